"""The audit log: sign-ins (successful or not) and what admins did, who and when, kept in the database.

Admins export it (`GET /api/admin/audit`, JSON or CSV), streamed in batches of EXPORT_BATCH rows so a large log
is never loaded whole. Passwords and tokens never enter it: an entry names the action, its target and the fields
that changed. It stays bounded: refused sign-ins from one address with one outcome (status and method) within the
login window are one entry with a `count` and the names tried (`names`, the first NAMES_KEPT), so a script
guessing or spraying rotating names writes one row, not thousands; past AUDIT_FAILED_SIGN_IN_ROWS entries of
refused sign-ins within a window (many addresses at once), the further ones are counted in one entry per outcome
(actor OVER_THE_CAP, with the first NAMES_KEPT addresses). Entries older than AUDIT_RETENTION_DAYS are removed
(api/housekeeping.py).
"""

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from api.csvfile import csv_rows
from api.models import AuditEntry, User
from api.services.errors import Invalid
from api.services.sessions import aware
from ingest.database import session_scope

SIGN_IN = "sign_in"
SIGN_IN_FAILED = "sign_in_failed"
CLI_ACTOR = "(command line)"
SEVERAL_NAMES = (
    "(several names)"  # the actor of refused sign-ins from one address that named several accounts
)
OVER_THE_CAP = "(over the cap)"  # the actor counting refused sign-ins past the rows a window may have
NAMES_KEPT = 20  # names (or addresses) listed in a collapsed entry; its count counts them all
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
    failed_rows: int = 100,
) -> None:
    """One sign-in attempt, committed at once (a refused one has no other change to ride with); `status` is the
    HTTP status it was answered with (200 = signed in). A refusal is counted in the entry of the same address and
    outcome within `collapse_seconds`, or, when that window already holds `failed_rows` entries of refusals, in
    the window's OVER_THE_CAP entry of that outcome; only otherwise is it an entry of its own."""
    user = db.scalars(select(User).where(User.username == username.strip())).first()
    if status == 200:
        record(db, user or username, SIGN_IN, detail={"method": method, "status": status}, client=client)
        db.commit()
        return
    name, address = username.strip()[:150], client[:64] if client is not None else None
    since = datetime.now(UTC) - timedelta(seconds=collapse_seconds)
    outcome = {"method": method, "status": status}
    entry = _refusals_entry(db, since, outcome, client=address)
    if entry is None and _refusal_rows(db, since) >= failed_rows:
        entry = _refusals_entry(db, since, outcome, actor=OVER_THE_CAP)
        if entry is None:
            detail = {**outcome, "count": 1, "clients": [address or ""], "names": [name]}
            record(db, OVER_THE_CAP, SIGN_IN_FAILED, detail=detail)
    elif entry is None:
        record(db, user or name, SIGN_IN_FAILED, detail={**outcome, "count": 1}, client=address)
    if entry is not None:
        _count_again(entry, name, address)
    db.commit()


def _refusals_entry(
    db: Session, since: datetime, outcome: dict[str, Any], client: str | None = None, actor: str | None = None
) -> AuditEntry | None:
    """The latest entry of refused sign-ins with this outcome since `since`: from `client`, or by `actor`."""
    query = select(AuditEntry).where(AuditEntry.action == SIGN_IN_FAILED, AuditEntry.at >= since)
    if actor is not None:
        query = query.where(AuditEntry.actor == actor)
    else:
        query = query.where(AuditEntry.client == client, AuditEntry.actor != OVER_THE_CAP)
    entries = db.scalars(query.order_by(AuditEntry.id.desc()))  # a few: one per outcome
    return next((entry for entry in entries if _outcome(entry) == outcome), None)


def _outcome(entry: AuditEntry) -> dict[str, Any]:
    return {"method": entry.detail.get("method"), "status": entry.detail.get("status")}


def _refusal_rows(db: Session, since: datetime) -> int:
    counted = select(func.count()).where(AuditEntry.action == SIGN_IN_FAILED, AuditEntry.at >= since)
    return int(db.execute(counted).scalar_one())


def _count_again(entry: AuditEntry, name: str, client: str | None) -> None:
    """One more refusal in `entry`: its count, when last, and the name (past the cap also the address) tried."""
    detail = {**entry.detail, "count": int(entry.detail.get("count", 1)) + 1}
    detail["last_at"] = datetime.now(UTC).isoformat()
    if entry.actor == OVER_THE_CAP:
        detail["clients"] = _with(detail.get("clients", []), client or "")
    if name != entry.actor or "names" in detail:
        detail["names"] = _with(detail.get("names", [entry.actor]), name)
        if entry.actor != OVER_THE_CAP:
            entry.actor, entry.actor_id = SEVERAL_NAMES, None
    entry.detail = detail


def _with(kept: list[str], value: str) -> list[str]:
    """`kept` with `value` added, unless already there or NAMES_KEPT are kept."""
    return kept if value in kept or len(kept) >= NAMES_KEPT else [*kept, value]


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
