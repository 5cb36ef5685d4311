"""Documents for any signed-in user: list and search with metadata, the original PDF by id, one passage."""

from pathlib import Path

from fastapi.testclient import TestClient

from api.app import create_app
from api.deps import CSRF_HEADER
from api.models import Role
from api.settings import ApiSettings
from ingest.jobs import JobSummary
from ingest.settings import IngestSettings
from tests.api.conftest import PASSWORD, SignIn, add_user

TITLES = {
    "Decubituspreventie",
    "Handhygiëne en handalcohol",
    "Insulinepomp bij kinderen met diabetes type 1",
    "Subcutane insulinetoediening bij volwassenen",
    "Veneuze bloedafname",
}


def _ids_by_file(client: TestClient) -> dict[str, str]:
    return {d["file_name"]: d["id"] for d in client.get("/api/documents").json()}


def test_list_search_filter_and_passages(sign_in: SignIn, ingested: JobSummary) -> None:
    ann = sign_in("ann", Role.clinician)

    everything = ann.get("/api/documents").json()
    insuline = ann.get("/api/documents", params={"q": "INSULINE"}).json()
    children = ann.get("/api/documents", params={"audience": "kinderen"}).json()
    nursing_for_adults = ann.get(
        "/api/documents", params={"audience": "volwassenen", "department": "endocrinologie"}
    ).json()

    assert {d["title"] for d in everything} == TITLES
    assert all(d["page_count"] == 3 and d["chunk_count"] > 0 for d in everything)
    assert {d["file_name"] for d in insuline} == {"insulinepomp-kinderen.pdf", "insuline-volwassenen.pdf"}
    assert [d["file_name"] for d in children] == ["insulinepomp-kinderen.pdf"]
    assert children[0]["departments"] == ["kindergeneeskunde"]
    assert [d["file_name"] for d in nursing_for_adults] == ["insuline-volwassenen.pdf"]

    hygiene = next(d for d in everything if d["file_name"] == "handhygiene.pdf")
    passages = f"/api/documents/{hygiene['id']}/passages"
    first = ann.get(f"{passages}/0").json()
    last = ann.get(f"{passages}/{hygiene['chunk_count'] - 1}").json()
    assert first["page_start"] == 1
    assert last["page_end"] == 3
    assert "handalcohol" in first["text"].lower()
    assert not first["text"].startswith("Titel:")
    assert first["char_start"] == 0 < first["char_end"]
    assert ann.get(f"{passages}/{hygiene['chunk_count']}").status_code == 404


def test_files_are_served_by_document_id_only(
    sign_in: SignIn, ingested: JobSummary, sample_folder: Path
) -> None:
    ann = sign_in("ann", Role.clinician)
    ids = _ids_by_file(ann)

    original = ann.get(f"/api/documents/{ids['bloedafname.pdf']}/file")

    assert original.status_code == 200
    assert original.headers["content-type"] == "application/pdf"
    assert original.content == (sample_folder / "bloedafname.pdf").read_bytes()
    for reference in ("..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", "bloedafname.pdf", "0" * 64):
        refused = ann.get(f"/api/documents/{reference}/file")
        assert refused.status_code == 404, reference
        assert refused.headers["content-type"] == "application/json"

    (sample_folder / "decubituspreventie.pdf").unlink()
    gone = ann.get(f"/api/documents/{ids['decubituspreventie.pdf']}/file")
    assert gone.status_code == 404
    assert "niet meer beschikbaar" in gone.json()["detail"]


def _viewer(api_settings: ApiSettings, ingest_settings: IngestSettings, documents_dir: Path) -> TestClient:
    """A clinician's client of an API configured with DOCUMENTS_DIR (as docker-compose.yml sets it)."""
    app = create_app(api_settings.model_copy(update={"documents_dir": documents_dir}), ingest_settings)
    client = TestClient(app)
    response = client.post("/api/auth/login", json={"username": "ann", "password": PASSWORD})
    assert response.status_code == 200, response.text
    client.headers[CSRF_HEADER] = response.json()["csrf_token"]
    return client


def test_documents_ingested_from_the_documents_folder_are_shown_and_no_file_outside_it(
    api_settings: ApiSettings,
    ingest_settings: IngestSettings,
    ingested: JobSummary,
    sample_folder: Path,
    tmp_path: Path,
) -> None:
    add_user(api_settings.database_url, "ann", Role.clinician)
    elsewhere = tmp_path / "andere map"
    elsewhere.mkdir()

    with _viewer(api_settings, ingest_settings, sample_folder) as configured:
        ids = _ids_by_file(configured)
        shown = configured.get(f"/api/documents/{ids['bloedafname.pdf']}/file")
    with _viewer(api_settings, ingest_settings, elsewhere) as other:
        refused = other.get(f"/api/documents/{ids['bloedafname.pdf']}/file")

    assert shown.status_code == 200
    assert shown.content == (sample_folder / "bloedafname.pdf").read_bytes()
    assert refused.status_code == 404
    assert refused.headers["content-type"] == "application/json"
