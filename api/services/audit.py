"""The audit log: sign-ins (successful or not) and what admins did, who and when, kept in the database.

Admins export it (`GET /api/admin/audit`, JSON or CSV), streamed in batches of EXPORT_BATCH rows so a large log
is never loaded whole. Passwords and tokens never enter it: an entry names the action, its target and the fields
that changed. It stays bounded: refused sign-ins of one name from one address within the login window are one
entry with a `count` (a guessing script writes one row, not thousands), and entries older than
AUDIT_RETENTION_DAYS are removed (api/housekeeping.py).
"""

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from api.csvfile import csv_rows
from api.models import AuditEntry, User
from api.services.errors import Invalid
from api.services.sessions import aware
from ingest.database import session_scope

SIGN_IN = "sign_in"
SIGN_IN_FAILED = "sign_in_failed"
CLI_ACTOR = "(command line)"
BAD_MOMENT = "Dit tijdstip valt buiten het bereik van de datums."
CSV_COLUMNS = ("id", "at", "actor", "action", "target", "client", "detail")
EXPORT_BATCH = 500


def record(
    db: Session,
    actor: User | str,
    action: str,
    target: str | None = None,
    detail: dict[str, Any] | None = None,
    client: str | None = None,
) -> None:
    """Add an entry to the caller's transaction (the caller commits it with the change it describes)."""
    name = actor.username if isinstance(actor, User) else actor
    db.add(
        AuditEntry(
            actor_id=actor.id if isinstance(actor, User) else None,
            actor=name[:150],
            action=action,
            target=target[:255] if target is not None else None,
            client=client[:64] if client is not None else None,
            detail=detail or {},
        )
    )
    db.flush()


def sign_in(
    db: Session,
    username: str,
    client: str | None,
    status: int,
    method: str = "password",
    collapse_seconds: float = 900.0,
) -> None:
    """One sign-in attempt, committed at once (a refused one has no other change to ride with); `status` is the
    HTTP status it was answered with (200 = signed in). A refusal of the same name from the same address within
    `collapse_seconds` of the last one adds to that entry's `count` (and `last_at`, `status`) instead."""
    user = db.scalars(select(User).where(User.username == username.strip())).first()
    if status != 200 and _count_again(db, username, client, status, collapse_seconds):
        db.commit()
        return
    action = SIGN_IN if status == 200 else SIGN_IN_FAILED
    detail: dict[str, Any] = {"method": method, "status": status}
    if status != 200:
        detail["count"] = 1
    record(db, user or username, action, detail=detail, client=client)
    db.commit()


def _count_again(db: Session, username: str, client: str | None, status: int, within: float) -> bool:
    now = datetime.now(UTC)
    last = db.scalars(
        select(AuditEntry)
        .where(
            AuditEntry.action == SIGN_IN_FAILED,
            AuditEntry.actor == username[:150],
            AuditEntry.client == (client[:64] if client is not None else None),
            AuditEntry.at >= now - timedelta(seconds=within),
        )
        .order_by(AuditEntry.id.desc())
        .limit(1)
    ).first()
    if last is None:
        return False
    count = int(last.detail.get("count", 1)) + 1
    last.detail = {**last.detail, "count": count, "status": status, "last_at": now.isoformat()}
    return True


def prune(database_url: str, retention_days: int) -> int:
    """Remove the entries older than `retention_days`; how many."""
    cutoff = datetime.now(UTC) - timedelta(days=retention_days)
    with session_scope(database_url) as db:
        removed = db.execute(delete(AuditEntry).where(AuditEntry.at < cutoff)).rowcount  # type: ignore[attr-defined]
    return int(removed or 0)


def _start(since: datetime | None) -> datetime | None:
    if since is None:
        return None
    try:
        return aware(since).astimezone(UTC)
    except OverflowError:  # e.g. 0001-01-01T00:00+01:00 lies before the year 1 in UTC
        raise Invalid(BAD_MOMENT) from None


def batches(database_url: str, since: datetime | None = None) -> Iterator[list[AuditEntry]]:
    """The entries oldest first, EXPORT_BATCH at a time, each batch read in a short transaction of its own (by
    id, so entries added meanwhile are exported too and none twice). Raises `Invalid` at once for a bad `since`."""
    start = _start(since)

    def read() -> Iterator[list[AuditEntry]]:
        after = 0
        while True:
            query = (
                select(AuditEntry).where(AuditEntry.id > after).order_by(AuditEntry.id).limit(EXPORT_BATCH)
            )
            if start is not None:
                query = query.where(AuditEntry.at >= start)
            with session_scope(database_url) as db:
                batch = list(db.scalars(query))
                db.expunge_all()
            if not batch:
                return
            yield batch
            after = batch[-1].id

    return read()


def _csv_row(row: AuditEntry) -> list[object]:
    return [
        row.id,
        aware(row.at).isoformat(),
        row.actor,
        row.action,
        row.target or "",
        row.client or "",
        json.dumps(row.detail, ensure_ascii=False, sort_keys=True),
    ]


def csv_stream(batches: Iterable[list[AuditEntry]]) -> Iterator[str]:
    """The CSV export batch by batch: the header once, then each batch's lines (`detail` as JSON text). Actors
    and targets are names users chose: formula-safe."""
    yield csv_rows([CSV_COLUMNS])
    for batch in batches:
        yield csv_rows(_csv_row(row) for row in batch)
