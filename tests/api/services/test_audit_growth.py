"""The audit log stays bounded: refused sign-ins from one address with one outcome within the login window are one
entry with a count and the names tried (rotating names too), the entries of refusals per window are capped, entries
older than AUDIT_RETENTION_DAYS are removed, and the export streams the table in batches instead of loading it
whole."""

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event, select
from sqlalchemy.orm import Session

from api.models import AuditEntry, Role
from api.services import audit
from api.settings import ApiSettings
from ingest.database import get_engine
from tests.api.conftest import SignIn


def _failures(database_url: str) -> list[tuple[str, str | None, dict[str, Any]]]:
    with Session(get_engine(database_url)) as db:
        rows = db.scalars(
            select(AuditEntry).where(AuditEntry.action == audit.SIGN_IN_FAILED).order_by(AuditEntry.id)
        )
        return [(row.actor, row.client, row.detail) for row in rows]


def test_repeated_refused_sign_ins_are_one_entry_with_a_count(
    client: TestClient, api_settings: ApiSettings
) -> None:
    for _ in range(3):
        client.post("/api/auth/login", json={"username": "raadsel", "password": "geraden"})
    with Session(get_engine(api_settings.database_url)) as db:
        audit.sign_in(db, "raadsel", "203.0.113.9", 401)  # another address: an entry of its own
        audit.sign_in(db, "raadsel", "203.0.113.9", 403, "oidc")  # another outcome too

    assert [
        (actor, client, detail["count"]) for actor, client, detail in _failures(api_settings.database_url)
    ] == [
        ("raadsel", "testclient", 3),
        ("raadsel", "203.0.113.9", 1),
        ("raadsel", "203.0.113.9", 1),
    ]


def test_password_spraying_with_rotating_names_is_one_entry_per_address(
    app: FastAPI, api_settings: ApiSettings
) -> None:
    """Each guess names another account: still one entry, counting them all and listing the first names."""
    with TestClient(app, client=("203.0.113.66", 50000)) as sprayer:
        for number in range(api_settings.login_attempts_per_address):  # none waits
            sprayer.post("/api/auth/login", json={"username": f"naam{number}", "password": "Welkom01!"})

    ((actor, client, detail),) = _failures(api_settings.database_url)
    assert (actor, client, detail["count"], detail["status"]) == (
        audit.SEVERAL_NAMES,
        "203.0.113.66",
        api_settings.login_attempts_per_address,
        401,
    )
    assert detail["names"] == [f"naam{number}" for number in range(audit.NAMES_KEPT)]


def test_refusals_from_many_addresses_are_capped_per_window(api_settings: ApiSettings) -> None:
    """A guess from each of many addresses (a botnet): past the cap one entry per outcome counts the rest."""
    with Session(get_engine(api_settings.database_url)) as db:
        for number in range(12):
            audit.sign_in(db, f"naam{number}", f"198.51.100.{number}", 401, failed_rows=5)

    failures = _failures(api_settings.database_url)
    assert [client for _, client, _ in failures] == [f"198.51.100.{number}" for number in range(5)] + [None]
    actor, _, detail = failures[-1]
    assert (actor, detail["count"]) == (audit.OVER_THE_CAP, 7)
    assert detail["clients"] == [f"198.51.100.{number}" for number in range(5, 12)]
    assert detail["names"] == [f"naam{number}" for number in range(5, 12)]


def test_entries_past_the_retention_are_removed(api_settings: ApiSettings) -> None:
    url = api_settings.database_url
    with Session(get_engine(url)) as db:
        db.add(
            AuditEntry(
                actor="oud", action="user.create", at=datetime.now(UTC) - timedelta(days=400), detail={}
            )
        )
        db.add(
            AuditEntry(
                actor="recent", action="user.create", at=datetime.now(UTC) - timedelta(days=10), detail={}
            )
        )
        db.commit()

    removed = audit.prune(url, retention_days=365)

    with Session(get_engine(url)) as db:
        assert (removed, [row.actor for row in db.scalars(select(AuditEntry))]) == (1, ["recent"])


def test_the_export_streams_the_log_in_batches(sign_in: SignIn, api_settings: ApiSettings) -> None:
    admin = sign_in("ada", Role.admin)
    with Session(get_engine(api_settings.database_url)) as db:
        db.add_all(AuditEntry(actor=f"a{i}", action="user.create", detail={}) for i in range(1200))
        db.commit()
    statements: list[str] = []

    def record(_connection: object, _cursor: object, statement: str, *_: object) -> None:
        if "audit_log" in statement and statement.lstrip().upper().startswith("SELECT"):
            statements.append(statement)

    engine = get_engine(api_settings.database_url)
    event.listen(engine, "before_cursor_execute", record)
    try:
        as_json = admin.get("/api/admin/audit")
        as_csv = admin.get("/api/admin/audit", params={"format": "csv"})
    finally:
        event.remove(engine, "before_cursor_execute", record)

    assert len(json.loads(as_json.content)) == 1201  # and ada's sign-in
    assert len(as_csv.text.splitlines()) == 1202
    assert "content-length" not in as_json.headers and "content-length" not in as_csv.headers
    assert statements and all("LIMIT" in statement.upper() for statement in statements), statements
