"""No upload copy is left behind that nothing refers to: when queuing the job fails after the copies were stored
(here: the database refuses the job), the copies are removed; and the sweep removes copies that no job and no
document refers to (older than a grace period, so an upload being stored is never taken)."""

import os
import time
from datetime import timedelta
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.exc import ProgrammingError

from api.models import Role
from api.services import uploads
from api.settings import ApiSettings
from ingest.database import get_engine
from tests.api.conftest import SAMPLES, SignIn

PDF = (SAMPLES / "handhygiene.pdf").read_bytes()


def _copies(settings: ApiSettings) -> list[Path]:
    return sorted(path for path in settings.upload_dir.rglob("*") if path.is_file())


def test_the_copies_are_removed_when_queuing_the_job_fails(
    sign_in: SignIn, api_settings: ApiSettings
) -> None:
    admin = sign_in("root", Role.admin)
    with get_engine(api_settings.database_url).begin() as connection:  # the job cannot be written
        connection.execute(text("ALTER TABLE ingest_job_files RENAME TO ingest_job_files_elsewhere"))

    try:  # SQLite: an OperationalError, answered 503; PostgreSQL: an UndefinedTable error, a 500
        refused = admin.post("/api/admin/uploads", files=[("files", ("a.pdf", PDF, "application/pdf"))])
        assert refused.status_code == 503, refused.text
    except ProgrammingError as error:
        assert "ingest_job_files" in str(error)

    assert _copies(api_settings) == []


def test_the_sweep_removes_only_old_copies_nothing_refers_to(
    sign_in: SignIn, api_settings: ApiSettings
) -> None:
    admin = sign_in("root", Role.admin)
    queued = admin.post("/api/admin/uploads", files=[("files", ("queued.pdf", PDF, "application/pdf"))])
    assert queued.status_code == 201, queued.text
    [kept] = _copies(api_settings)
    versions = api_settings.upload_dir / uploads.VERSIONS
    old_orphan, young_orphan = versions / ("0" * 32 + ".pdf"), versions / ("1" * 32 + ".pdf")
    old_part = versions / ".upload-x.part"
    for path in (old_orphan, young_orphan, old_part):
        path.write_bytes(PDF)
    an_hour_ago = time.time() - 3600
    for path in (kept, old_orphan, old_part):
        os.utime(path, (an_hour_ago, an_hour_ago))

    removed = uploads.sweep_orphans(api_settings.database_url, api_settings.upload_dir, timedelta(minutes=30))

    assert sorted(removed) == sorted([old_orphan, old_part])
    assert _copies(api_settings) == sorted([kept, young_orphan])
