"""No upload silently replaces another procedure: a document is replaced only by a file of exactly its name or by
the file the admin uploads as its new version ("vervang"); a name that only cleans to another document's path is
stored beside it under a free name, and the job says so. On SQLite and on PostgreSQL."""

import pytest
from fastapi.testclient import TestClient

from api.models import Role
from ingest.embedding import Embedder
from ingest.models import FileStatus
from ingest.settings import IngestSettings
from tests.api.conftest import SAMPLES, SignIn, run_queued_jobs

FIRST = (SAMPLES / "bloedafname.pdf").read_bytes()
SECOND = (SAMPLES / "handhygiene.pdf").read_bytes()
THIRD = (SAMPLES / "decubituspreventie.pdf").read_bytes()
COLLISIONS = [
    ("Insuline kind ≥ 6 jaar.pdf", "Insuline kind < 6 jaar.pdf", "Insuline kind _ 6 jaar"),
    ("★.pdf", "☆.pdf", "document"),
]


def _upload(admin: TestClient, name: str, content: bytes) -> dict[str, object]:
    response = admin.post("/api/admin/uploads", files=[("files", (name, content, "application/pdf"))])
    assert response.status_code == 201, response.text
    (file,) = response.json()["job"]["files"]
    return dict(file)


def _documents(admin: TestClient) -> dict[str, bytes]:
    """Each document's name as the admin gave it, with the bytes the viewer shows."""
    return {
        document["file_name"]: admin.get(f"/api/documents/{document['id']}/file").content
        for document in admin.get("/api/documents").json()
    }


@pytest.mark.parametrize(("one", "other", "cleaned"), COLLISIONS + [(b, a, c) for a, b, c in COLLISIONS])
def test_an_upload_whose_cleaned_name_is_another_documents_is_stored_beside_it(
    sign_in: SignIn, ingest_settings: IngestSettings, minilm: Embedder, one: str, other: str, cleaned: str
) -> None:
    admin = sign_in("root", Role.admin)
    _upload(admin, one, FIRST)
    run_queued_jobs(ingest_settings, minilm)

    queued = _upload(admin, other, SECOND)
    (job,) = run_queued_jobs(ingest_settings, minilm)

    assert _documents(admin) == {one: FIRST, other: SECOND}
    assert queued["name"] == other
    assert queued["note"] == (
        f"opgeslagen als {cleaned} (2).pdf: {cleaned}.pdf hoort al bij een ander document ({one}); "
        "dat document is niet vervangen"
    )
    assert [file.status for file in job.files] == [FileStatus.indexed]


def test_two_colliding_uploads_queued_before_either_is_read_both_stay(
    sign_in: SignIn, ingest_settings: IngestSettings, minilm: Embedder
) -> None:
    admin = sign_in("root", Role.admin)
    one, other, _ = COLLISIONS[0]
    _upload(admin, one, FIRST)
    _upload(admin, other, SECOND)

    run_queued_jobs(ingest_settings, minilm)

    assert _documents(admin) == {one: FIRST, other: SECOND}


def test_the_same_name_again_is_a_new_version_even_after_a_collision(
    sign_in: SignIn, ingest_settings: IngestSettings, minilm: Embedder
) -> None:
    admin = sign_in("root", Role.admin)
    one, other, _ = COLLISIONS[0]
    _upload(admin, one, FIRST)
    _upload(admin, other, THIRD)
    run_queued_jobs(ingest_settings, minilm)

    again = _upload(admin, other, SECOND)
    run_queued_jobs(ingest_settings, minilm)

    assert again["note"] is None
    assert _documents(admin)[other] == SECOND
    assert _documents(admin)[one] == FIRST


def _one_document(admin: TestClient, ingest_settings: IngestSettings, minilm: Embedder) -> str:
    _upload(admin, "Protocol bloedafname.pdf", FIRST)
    run_queued_jobs(ingest_settings, minilm)
    (document,) = admin.get("/api/documents").json()
    return str(document["id"])


def test_the_admin_replaces_a_chosen_document_with_a_file_of_any_name(
    sign_in: SignIn, ingest_settings: IngestSettings, minilm: Embedder
) -> None:
    admin = sign_in("root", Role.admin)
    document = _one_document(admin, ingest_settings, minilm)

    response = admin.post(
        f"/api/admin/documents/{document}/version",
        files={"file": ("bloedafname-2027-def.pdf", SECOND, "application/pdf")},
    )
    assert response.status_code == 201, response.text
    run_queued_jobs(ingest_settings, minilm)

    assert _documents(admin) == {"bloedafname-2027-def.pdf": SECOND}


def test_only_admins_replace_a_document(
    sign_in: SignIn, ingest_settings: IngestSettings, minilm: Embedder
) -> None:
    admin = sign_in("root", Role.admin)
    _upload(admin, "Protocol bloedafname.pdf", FIRST)
    run_queued_jobs(ingest_settings, minilm)
    (document,) = admin.get("/api/documents").json()
    clinician = sign_in("nurse", Role.clinician)

    response = clinician.post(
        f"/api/admin/documents/{document}/version",
        files={"file": ("x.pdf", SECOND, "application/pdf")},
    )

    assert response.status_code == 403
    assert _documents(admin) == {"Protocol bloedafname.pdf": FIRST}
