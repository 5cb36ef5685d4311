"""Work each API process does now and then, whatever requests come: remove upload copies nothing refers to, and
audit entries past their retention. At start and then every `HOUSEKEEPING_SECONDS`; several replicas doing it
too change nothing (each step is idempotent)."""

import asyncio
import logging
from datetime import timedelta

from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from api.services import audit, uploads
from api.settings import ApiSettings

log = logging.getLogger(__name__)

HOUSEKEEPING_SECONDS = 3600.0
ORPHAN_GRACE = timedelta(hours=1)  # an upload being stored and queued is never this old


def tidy(settings: ApiSettings) -> None:
    uploads.sweep_orphans(settings.database_url, settings.upload_dir, ORPHAN_GRACE)
    audit.prune(settings.database_url, settings.audit_retention_days)


async def keep_tidy(settings: ApiSettings, every_seconds: float = HOUSEKEEPING_SECONDS) -> None:
    """`tidy` now and every `every_seconds` until cancelled; a database that is down is tried again next time."""
    while True:
        try:
            await run_in_threadpool(tidy, settings)
        except (SQLAlchemyError, OSError) as error:
            log.warning("housekeeping not done: %s", error)
        await asyncio.sleep(every_seconds)
