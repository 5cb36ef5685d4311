"""The audit log: sign-ins (successful or not) and what admins did, who and when, kept in the database.

Admins export it (`GET /api/admin/audit`, JSON or CSV). Passwords and tokens never enter it: an entry names the
action, its target and the fields that changed.
"""

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.csvfile import csv_text
from api.models import AuditEntry, User
from api.services.errors import Invalid
from api.services.sessions import aware

SIGN_IN = "sign_in"
SIGN_IN_FAILED = "sign_in_failed"
CLI_ACTOR = "(command line)"
BAD_MOMENT = "Dit tijdstip valt buiten het bereik van de datums."
CSV_COLUMNS = ("id", "at", "actor", "action", "target", "client", "detail")


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


def sign_in(db: Session, username: str, client: str | None, status: int, method: str = "password") -> None:
    """One sign-in attempt, committed at once (a refused one has no other change to ride with); `status` is the
    HTTP status it was answered with (200 = signed in)."""
    user = db.scalars(select(User).where(User.username == username.strip())).first()
    action = SIGN_IN if status == 200 else SIGN_IN_FAILED
    record(db, user or username, action, detail={"method": method, "status": status}, client=client)
    db.commit()


def entries(db: Session, since: datetime | None = None) -> list[AuditEntry]:
    query = select(AuditEntry).order_by(AuditEntry.id)
    if since is not None:
        try:
            start = aware(since).astimezone(UTC)
        except OverflowError:  # e.g. 0001-01-01T00:00+01:00 lies before the year 1 in UTC
            raise Invalid(BAD_MOMENT) from None
        query = query.where(AuditEntry.at >= start)
    return list(db.scalars(query))


def to_csv(rows: Sequence[AuditEntry]) -> str:
    """One line per entry; `detail` as JSON text. Actors and targets are names users chose: formula-safe."""
    return csv_text(
        CSV_COLUMNS,
        (
            [
                row.id,
                aware(row.at).isoformat(),
                row.actor,
                row.action,
                row.target or "",
                row.client or "",
                json.dumps(row.detail, ensure_ascii=False, sort_keys=True),
            ]
            for row in rows
        ),
    )
