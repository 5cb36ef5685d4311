"""The admin's job: upload PDFs, watch the ingestion job, reindex and delete documents, manage accounts.

Uploads are checked before anything is stored: too large (413), not a PDF (415), a name with folders in it
(sanitised into UPLOAD_DIR); one bad file in a request stores none of them, and the answer says so, naming every
refused file and the good ones that were not stored. A job names its files, never the server's folders.
"""

import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from api.app import create_app
from api.models import Role
from api.services.uploads import safe_name
from api.settings import ApiSettings
from api.views import job_out
from ingest.formats import ACCEPTED
from ingest.jobs import FileState, JobSummary
from ingest.models import FileStatus, JobStatus
from ingest.settings import IngestSettings
from tests.api.conftest import PASSWORD, SAMPLES, SignIn, add_user

JOB_TIMEOUT_SECONDS = 300


def _pdf(name: str) -> tuple[str, bytes, str]:
    return (name, (SAMPLES / name).read_bytes(), "application/pdf")


def _stored_copies(settings: ApiSettings) -> list[Path]:
    return [path for path in settings.upload_dir.rglob("*") if path.is_file()]


def _finished_job(admin: TestClient, job_id: int) -> dict[str, object]:
    deadline = time.monotonic() + JOB_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        job: dict[str, object] = admin.get(f"/api/admin/jobs/{job_id}").json()
        if job["status"] == "finished":
            return job
        time.sleep(0.5)
    raise AssertionError(f"job {job_id} did not finish in {JOB_TIMEOUT_SECONDS} s: {job}")


@pytest.fixture
def embedded_app(api_settings: ApiSettings, ingest_settings: IngestSettings) -> FastAPI:
    """The embedded mode: the API runs queued ingestion jobs on a thread of its own."""
    return create_app(api_settings.model_copy(update={"run_ingestion_jobs": True}), ingest_settings)


def test_upload_ingest_reindex_and_delete_in_the_embedded_mode(
    embedded_app: FastAPI, api_settings: ApiSettings
) -> None:
    with TestClient(embedded_app) as admin:
        add_user(api_settings.database_url, "root", Role.admin)
        login = admin.post("/api/auth/login", json={"username": "root", "password": PASSWORD}).json()
        admin.headers["X-CSRF-Token"] = login["csrf_token"]

        created = admin.post(
            "/api/admin/uploads",
            files=[("files", _pdf("bloedafname.pdf")), ("files", _pdf("handhygiene.pdf"))],
        )
        assert created.status_code == 201, created.text
        job = _finished_job(admin, created.json()["job"]["id"])

        assert job["counts"] == {"indexed": 2}
        assert job["progress"] == 1.0
        assert len(_stored_copies(api_settings)) == 2
        listed = {d["file_name"]: d for d in admin.get("/api/documents").json()}
        assert set(listed) == {"bloedafname.pdf", "handhygiene.pdf"}
        bloed = listed["bloedafname.pdf"]["id"]
        assert admin.get(f"/api/documents/{bloed}/passages/0").status_code == 200

        reindexed = admin.post(f"/api/admin/documents/{bloed}/reindex")
        assert reindexed.status_code == 201
        again = _finished_job(admin, reindexed.json()["job"]["id"])
        assert again["counts"] == {"indexed": 1}
        relisted = {d["file_name"]: d["id"] for d in admin.get("/api/documents").json()}
        assert relisted["bloedafname.pdf"] == bloed  # still under its upload name, not its stored copy's
        assert admin.get(f"/api/documents/{bloed}/passages/0").status_code == 200

        assert admin.delete(f"/api/admin/documents/{bloed}").status_code == 204
        assert admin.get(f"/api/documents/{bloed}").status_code == 404
        assert admin.get(f"/api/documents/{bloed}/passages/0").status_code == 404
        (kept,) = _stored_copies(api_settings)
        assert kept.read_bytes() == (SAMPLES / "handhygiene.pdf").read_bytes()
        assert admin.get("/api/admin/jobs").json()[0]["id"] == again["id"]


def test_bad_uploads_are_refused_and_nothing_is_stored(sign_in: SignIn, api_settings: ApiSettings) -> None:
    admin = sign_in("root", Role.admin)
    too_large = b"%PDF-1.7\n" + b"0" * (api_settings.max_upload_mb * 1_000_000)

    not_pdf = admin.post(
        "/api/admin/uploads", files=[("files", ("notes.pdf", b"hello, not a pdf", "application/pdf"))]
    )
    oversized = admin.post("/api/admin/uploads", files=[("files", ("big.pdf", too_large, "application/pdf"))])
    mixed = admin.post(
        "/api/admin/uploads",
        files=[
            ("files", ("evil.pdf", b"MZ\x90\x00", "application/pdf")),
            ("files", _pdf("bloedafname.pdf")),
            ("files", ("notities.txt", b"geen pdf", "text/plain")),
        ],
    )

    assert not_pdf.status_code == 415
    assert "geen PDF" in not_pdf.json()["detail"]
    assert oversized.status_code == 413
    assert mixed.status_code == 415
    assert mixed.json()["detail"] == (
        f"Niets opgeslagen. evil.pdf is geen {ACCEPTED}. notities.txt is geen {ACCEPTED}. "
        "Ook bloedafname.pdf is niet opgeslagen: kies dat bestand opnieuw, zonder de geweigerde."
    )
    assert _stored_copies(api_settings) == []
    assert admin.get("/api/admin/jobs").json() == []


def test_uploaded_names_cannot_leave_the_upload_folder(sign_in: SignIn, api_settings: ApiSettings) -> None:
    admin = sign_in("root", Role.admin)

    response = admin.post(
        "/api/admin/uploads",
        files=[
            (
                "files",
                ("../../etc/cron.d/evil.pdf", (SAMPLES / "bloedafname.pdf").read_bytes(), "application/pdf"),
            )
        ],
    )

    assert response.status_code == 201
    (stored,) = _stored_copies(api_settings)
    assert stored.resolve().is_relative_to(api_settings.upload_dir.resolve())
    assert response.json()["job"]["files"][0]["name"] == "evil.pdf"
    assert str(api_settings.upload_dir.resolve()) not in response.text


def test_a_job_shows_file_names_never_the_servers_folders() -> None:
    folder = "/srv/vraagbaak/.data/uploads"
    summary = JobSummary(
        id=1,
        status=JobStatus.finished,
        requested=(f"{folder}/kopie van handhygiene.pdf",),
        created_at=datetime(2026, 11, 25, tzinfo=UTC),
        finished_at=datetime(2026, 11, 25, tzinfo=UTC),
        counts={FileStatus.skipped: 1},
        files=(
            FileState(
                f"{folder}/kopie van handhygiene.pdf",
                FileStatus.skipped,
                f"zelfde inhoud als {folder}/Handhygiëne (v2).pdf",
                None,
                0,
                0,
            ),
        ),
    )

    body = job_out(summary).model_dump_json()

    assert folder not in body
    assert job_out(summary).files[0].name == "kopie van handhygiene.pdf"
    assert job_out(summary).files[0].message == "zelfde inhoud als Handhygiëne (v2).pdf"


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("../../etc/passwd", "passwd.pdf"),
        ("C:\\Windows\\system32\\x.PDF", "x.pdf"),
        ("..", "document.pdf"),
        ("Zorg: insuline <v2>.pdf", "Zorg_ insuline _v2.pdf"),
        (".hidden.pdf", "hidden.pdf"),
        (None, "document.pdf"),
    ],
)
def test_safe_names(given: str | None, stored: str) -> None:
    assert safe_name(given) == stored


def test_admins_manage_accounts_but_cannot_lock_themselves_out(sign_in: SignIn) -> None:
    admin = sign_in("root", Role.admin)
    me = admin.get("/api/auth/me").json()["user"]

    created = admin.post(
        "/api/admin/users", json={"username": "eva", "password": "long password 9", "roles": ["evaluator"]}
    )
    duplicate = admin.post("/api/admin/users", json={"username": "eva", "password": "long password 9"})
    changed = admin.patch(
        f"/api/admin/users/{created.json()['id']}",
        json={"roles": ["clinician", "evaluator"], "disabled": True},
    )

    assert created.status_code == 201
    assert duplicate.status_code == 409
    assert changed.json()["roles"] == ["clinician", "evaluator"]
    assert changed.json()["disabled"] is True
    assert [u["username"] for u in admin.get("/api/admin/users").json()] == ["eva", "root"]
    assert admin.patch(f"/api/admin/users/{me['id']}", json={"disabled": True}).status_code == 409
    assert admin.patch(f"/api/admin/users/{me['id']}", json={"roles": ["clinician"]}).status_code == 409
    assert admin.patch("/api/admin/users/999999", json={"disabled": True}).status_code == 404
    assert admin.post("/api/admin/users", json={"username": "x", "password": "short"}).status_code == 422
