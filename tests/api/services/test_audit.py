"""The audit log: every sign-in (successful or not) and every admin action, who, what and when, in the database;
admins export it as JSON or CSV, nobody else can."""

import csv
import io
import json
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from api.__main__ import main
from api.models import Role
from api.settings import ApiSettings
from tests.api.conftest import PASSWORD, SignIn, add_user


def _log(admin: TestClient, **query: str) -> list[dict[str, object]]:
    response = admin.get("/api/admin/audit", params=query)
    assert response.status_code == 200, response.text
    entries: list[dict[str, object]] = response.json()
    return entries


def test_sign_ins_are_logged_with_who_when_where_and_how_they_went(
    client: TestClient, sign_in: SignIn, api_settings: ApiSettings
) -> None:
    add_user(api_settings.database_url, "bob", Role.clinician)
    before = datetime.now(UTC)
    client.post("/api/auth/login", json={"username": "bob", "password": "wrong password!"})
    client.post("/api/auth/login", json={"username": "nobody", "password": PASSWORD})
    client.post("/api/auth/login", json={"username": "bob", "password": PASSWORD})
    admin = sign_in("ada", Role.admin)

    entries = [(e["actor"], e["action"], e["client"]) for e in _log(admin)]

    # the refusals from one address with one outcome are one entry
    assert entries == [
        ("(several names)", "sign_in_failed", "testclient"),
        ("bob", "sign_in", "testclient"),
        ("ada", "sign_in", "testclient"),
    ]
    first = _log(admin)[0]
    assert before - timedelta(seconds=1) <= datetime.fromisoformat(str(first["at"])) <= datetime.now(UTC)
    detail = first["detail"]
    assert isinstance(detail, dict) and detail.pop("last_at")  # when the second refusal came
    assert detail == {"method": "password", "status": 401, "count": 2, "names": ["bob", "nobody"]}
    assert PASSWORD not in json.dumps(_log(admin)) and "wrong password!" not in json.dumps(_log(admin))


def test_admin_actions_are_logged_without_passwords(
    sign_in: SignIn, api_settings: ApiSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    admin = sign_in("ada", Role.admin)
    created = admin.post(
        "/api/admin/users", json={"username": "eva", "password": "long password 9", "roles": ["evaluator"]}
    ).json()
    admin.patch(
        f"/api/admin/users/{created['id']}", json={"disabled": True, "password": "another password 1"}
    )
    monkeypatch.setenv("DATABASE_URL", api_settings.database_url)
    monkeypatch.setattr("sys.stdin", io.StringIO("long password 3\n"))
    assert main(["users", "add", "carl"]) == 0

    actions = [(e["actor"], e["action"], e["target"], e["detail"]) for e in _log(admin)][1:]

    assert actions == [
        ("ada", "user.create", "eva", {"roles": ["evaluator"]}),
        ("ada", "user.update", "eva", {"disabled": True, "password": True}),
        ("(command line)", "cli.add", "carl", {}),
    ]
    assert "another password" not in json.dumps(_log(admin))


def test_admins_export_the_log_as_csv_and_from_a_moment_on(sign_in: SignIn) -> None:
    admin = sign_in("ada", Role.admin)
    admin.post("/api/admin/users", json={"username": "eva", "password": "long password 9"})

    exported = admin.get("/api/admin/audit", params={"format": "csv"})
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    later = _log(admin, since=(datetime.now(UTC) + timedelta(minutes=1)).isoformat())

    assert exported.headers["content-type"].startswith("text/csv")
    assert [(row["actor"], row["action"], row["target"]) for row in rows] == [
        ("ada", "sign_in", ""),
        ("ada", "user.create", "eva"),
    ]
    assert json.loads(rows[1]["detail"]) == {"roles": ["clinician"]}
    assert later == []
    assert admin.get("/api/admin/audit", params={"since": "0001-01-01T00:00:00+01:00"}).status_code == 422
    assert admin.get("/api/admin/audit", params={"format": "xml"}).status_code == 422


@pytest.mark.parametrize("role", [Role.clinician, Role.evaluator])
def test_only_admins_read_the_log(sign_in: SignIn, role: Role) -> None:
    assert sign_in("someone", role).get("/api/admin/audit").status_code == 403
