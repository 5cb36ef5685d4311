"""No upload silently replaces another procedure: a document is replaced only by a file of exactly its name or by
the file the admin uploads as its new version ("vervang"); a name that only cleans to another document's path is
stored beside it under a free name, and the job says so. On SQLite and on PostgreSQL."""

import sqlite3
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.engine import make_url

from api.models import Role
from api.settings import ApiSettings
from ingest.database import get_engine
from ingest.embedding import Embedder
from ingest.models import FileStatus
from ingest.settings import IngestSettings
from tests.api.chat.servers import api_server
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


@contextmanager
def _writes_held_back(database_url: str) -> Iterator[Callable[[], int | None]]:
    """No transaction can write until the block ends, reads go on (PostgreSQL: an EXCLUSIVE lock on `ingest_jobs`;
    SQLite: the database's write lock); yields how many transactions wait to write into `ingest_jobs` (None on SQLite,
    which cannot say)."""
    url = make_url(database_url)
    if url.drivername == "sqlite":
        holder = sqlite3.connect(str(url.database), isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            yield lambda: None
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        return
    engine = get_engine(database_url)
    with engine.connect() as holder, engine.connect() as observer:
        holder.execute(text("LOCK TABLE ingest_jobs IN EXCLUSIVE MODE"))
        waiting = text(
            "SELECT count(*) FROM pg_locks JOIN pg_class ON pg_class.oid = pg_locks.relation "
            "WHERE pg_class.relname = 'ingest_jobs' AND NOT pg_locks.granted"
        )
        yield lambda: int(observer.execute(waiting).scalar_one())
        holder.rollback()


def test_two_uploads_whose_names_clean_to_one_path_at_once_are_stored_at_two_paths(
    app: FastAPI,
    sign_in: SignIn,
    api_settings: ApiSettings,
    ingest_settings: IngestSettings,
    minilm: Embedder,
) -> None:
    """Both requests look for a free path while neither's job is queued (the database's writes are held back
    until both wait to queue it): the first to queue takes the cleaned path, the other the free one beside it."""
    admin = sign_in("root", Role.admin)
    one, other, cleaned = COLLISIONS[0]
    versions = api_settings.upload_dir / "versions"
    with (
        api_server(app) as url,
        httpx.Client(
            base_url=url, cookies=dict(admin.cookies), headers=admin.headers, timeout=120
        ) as browser,
        ThreadPoolExecutor(2) as pool,
        _writes_held_back(api_settings.database_url) as waiting,
    ):
        answers = [
            pool.submit(
                browser.post, "/api/admin/uploads", files=[("files", (name, content, "application/pdf"))]
            )
            for name, content in ((one, FIRST), (other, SECOND))
        ]
        deadline = time.monotonic() + 60
        while len(list(versions.glob("*.pdf"))) < 2 or waiting() not in (None, 2):
            assert time.monotonic() < deadline, "the uploads never reached their job"
            time.sleep(0.05)
        if waiting() is None:
            time.sleep(0.5)  # SQLite cannot say: both stored their copy and are on their way to the write
    files = [answer.result().json()["job"]["files"][0] for answer in answers]
    run_queued_jobs(ingest_settings, minilm)

    assert sorted(file["note"] or "" for file in files)[-1].startswith(f"opgeslagen als {cleaned} (2).pdf")
    assert _documents(admin) == {one: FIRST, other: SECOND}


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
