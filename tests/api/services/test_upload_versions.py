"""A file uploaded again under the same name is a new version: until its job has indexed it, the viewer keeps
showing the version the searchable chunks came from; the job swaps them; a failed job keeps the old one live.
Stored copies are named by us, never by the client. A document from a folder that `ingest run` reads is replaced
in that folder, never by an upload (the next run over the folder would put the folder's file back)."""

import re
from pathlib import Path

from fastapi.testclient import TestClient

from api.models import Role
from api.settings import ApiSettings
from ingest.embedding import Embedder
from ingest.jobs import JobSummary
from ingest.models import FileStatus
from ingest.run_job import Ingestion
from ingest.search.embedded import EmbeddedIndex
from ingest.settings import IngestSettings
from tests.api.conftest import SAMPLES, SignIn, run_queued_jobs

NAME = "Protocol bloedafname.pdf"
VERSION_ONE = (SAMPLES / "bloedafname.pdf").read_bytes()
VERSION_TWO = (SAMPLES / "handhygiene.pdf").read_bytes()
BROKEN = b"%PDF-1.7\nhalf geupload, zonder trailer\n"
OUR_NAME = re.compile(r"[0-9a-f]{32}\.pdf")


def _upload(admin: TestClient, content: bytes) -> int:
    response = admin.post("/api/admin/uploads", files=[("files", (NAME, content, "application/pdf"))])
    assert response.status_code == 201, response.text
    return int(response.json()["job"]["id"])


def _only_document(admin: TestClient) -> str:
    (document,) = admin.get("/api/documents").json()
    assert document["file_name"] == NAME
    return str(document["id"])


def _copies(settings: ApiSettings) -> list[Path]:
    return [path for path in settings.upload_dir.rglob("*") if path.is_file()]


def _folder_run(settings: IngestSettings, minilm: Embedder, folder: Path) -> JobSummary:
    """What `python -m ingest run FOLDER` does."""
    index = EmbeddedIndex(settings.index_dir, settings.embedding_model)
    try:
        return Ingestion(settings, index, lambda: minilm).ingest([folder])
    finally:
        index.close()


def test_the_viewer_shows_the_indexed_version_until_the_new_version_is_indexed(
    sign_in: SignIn, api_settings: ApiSettings, ingest_settings: IngestSettings, minilm: Embedder
) -> None:
    admin = sign_in("root", Role.admin)
    _upload(admin, VERSION_ONE)
    run_queued_jobs(ingest_settings, minilm)
    first = _only_document(admin)

    _upload(admin, VERSION_TWO)  # queued, not run yet

    assert _only_document(admin) == first
    assert admin.get(f"/api/documents/{first}/file").content == VERSION_ONE

    (swapped,) = run_queued_jobs(ingest_settings, minilm)

    assert [file.status for file in swapped.files] == [FileStatus.indexed]
    second = _only_document(admin)
    assert second != first
    assert admin.get(f"/api/documents/{second}/file").content == VERSION_TWO
    assert admin.get(f"/api/documents/{first}/file").status_code == 404
    assert [path.read_bytes() for path in _copies(api_settings)] == [VERSION_TWO]  # the old copy is gone


def test_a_version_whose_job_fails_leaves_the_old_version_live(
    sign_in: SignIn, api_settings: ApiSettings, ingest_settings: IngestSettings, minilm: Embedder
) -> None:
    admin = sign_in("root", Role.admin)
    _upload(admin, VERSION_ONE)
    run_queued_jobs(ingest_settings, minilm)
    live = _only_document(admin)

    _upload(admin, BROKEN)
    (failed,) = run_queued_jobs(ingest_settings, minilm)

    assert [file.status for file in failed.files] == [FileStatus.failed]
    assert _only_document(admin) == live
    assert admin.get(f"/api/documents/{live}/file").content == VERSION_ONE
    assert [path.read_bytes() for path in _copies(api_settings)] == [VERSION_ONE]


def test_stored_copies_are_named_by_us(sign_in: SignIn, api_settings: ApiSettings) -> None:
    admin = sign_in("root", Role.admin)

    response = admin.post(
        "/api/admin/uploads",
        files=[("files", ("../../etc/cron.d/evil.pdf", VERSION_ONE, "application/pdf"))],
    )

    assert response.status_code == 201
    assert response.json()["job"]["files"][0]["name"] == "evil.pdf"
    (copy,) = _copies(api_settings)
    assert OUR_NAME.fullmatch(copy.name), copy.name
    assert copy.resolve().is_relative_to(api_settings.upload_dir.resolve())


def test_a_document_from_a_folder_run_is_replaced_in_its_folder_not_by_an_upload(
    sign_in: SignIn,
    api_settings: ApiSettings,
    ingest_settings: IngestSettings,
    minilm: Embedder,
    tmp_path: Path,
) -> None:
    folder = tmp_path / "documents"
    folder.mkdir()
    (folder / NAME).write_bytes(VERSION_ONE)
    _folder_run(ingest_settings, minilm, folder)
    admin = sign_in("root", Role.admin)
    document = _only_document(admin)

    response = admin.post(
        f"/api/admin/documents/{document}/version",
        files={"file": ("bloedafname-nieuw.pdf", VERSION_TWO, "application/pdf")},
    )

    assert response.status_code == 409
    assert response.json()["detail"] == (
        f"{NAME} komt uit de documentmap {folder}, die `python -m ingest run` inleest: vervang het bestand "
        "daar. Een nieuwe versie die hier wordt geüpload, zou bij de volgende run over die map weer door het "
        "bestand uit de map worden vervangen."
    )
    assert _copies(api_settings) == []
    (again,) = _folder_run(ingest_settings, minilm, folder).files
    assert again.status == FileStatus.skipped
    assert admin.get(f"/api/documents/{_only_document(admin)}/file").content == VERSION_ONE

    (folder / NAME).write_bytes(VERSION_TWO)  # replaced where it lives
    (replaced,) = _folder_run(ingest_settings, minilm, folder).files

    assert replaced.status == FileStatus.indexed
    assert admin.get(f"/api/documents/{_only_document(admin)}/file").content == VERSION_TWO
