"""Sessions and API tokens end when they should: a new password ends the user's other sessions, a session ends
after the idle timeout, a token at its expiry or when revoked (admin API and command line)."""

import io
import time
from datetime import timedelta

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.__main__ import main
from api.app import create_app
from api.deps import CSRF_HEADER
from api.models import Role
from api.services import sessions, users
from api.settings import ApiSettings
from ingest.database import get_engine
from ingest.settings import IngestSettings
from tests.api.conftest import PASSWORD, SignIn, add_user

NEW_PASSWORD = "a brand new password"


def _browser(app: FastAPI, username: str, password: str = PASSWORD) -> TestClient:
    browser = TestClient(app)
    response = browser.post("/api/auth/login", json={"username": username, "password": password})
    assert response.status_code == 200, response.text
    browser.headers[CSRF_HEADER] = response.json()["csrf_token"]
    return browser


def _token(database_url: str, username: str, lifetime: timedelta = timedelta(days=1)) -> dict[str, str]:
    with Session(get_engine(database_url)) as db:
        token = sessions.create_api_token(db, users.require_user(db, username), "script", lifetime)
        db.commit()
    return {"Authorization": f"Bearer {token}"}


def _user_id(database_url: str, username: str) -> int:
    with Session(get_engine(database_url)) as db:
        return users.require_user(db, username).id


def test_an_admin_setting_a_password_ends_that_users_sessions(
    app: FastAPI, sign_in: SignIn, api_settings: ApiSettings
) -> None:
    admin = sign_in("ada", Role.admin)
    add_user(api_settings.database_url, "bob", Role.clinician)
    laptop, phone = _browser(app, "bob"), _browser(app, "bob")
    bob_id = _user_id(api_settings.database_url, "bob")

    changed = admin.patch(f"/api/admin/users/{bob_id}", json={"password": NEW_PASSWORD})

    assert changed.status_code == 200
    assert laptop.get("/api/auth/me").status_code == 401
    assert phone.get("/api/auth/me").status_code == 401
    assert _browser(app, "bob", NEW_PASSWORD).get("/api/auth/me").status_code == 200


def test_an_admin_changing_their_own_password_keeps_this_session_and_ends_the_others(
    app: FastAPI, sign_in: SignIn, api_settings: ApiSettings
) -> None:
    admin = sign_in("ada", Role.admin)
    elsewhere = _browser(app, "ada")
    ada_id = _user_id(api_settings.database_url, "ada")

    assert admin.patch(f"/api/admin/users/{ada_id}", json={"password": NEW_PASSWORD}).status_code == 200

    assert admin.get("/api/auth/me").status_code == 200
    assert elsewhere.get("/api/auth/me").status_code == 401


def test_a_password_set_on_the_command_line_ends_the_users_sessions(
    app: FastAPI, api_settings: ApiSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_user(api_settings.database_url, "bob", Role.clinician)
    browser = _browser(app, "bob")
    monkeypatch.setenv("DATABASE_URL", api_settings.database_url)
    monkeypatch.setattr("sys.stdin", io.StringIO(NEW_PASSWORD + "\n"))

    assert main(["users", "password", "bob"]) == 0

    assert browser.get("/api/auth/me").status_code == 401


def test_a_session_ends_after_the_idle_timeout_and_lives_while_used(
    api_settings: ApiSettings, ingest_settings: IngestSettings
) -> None:
    idle_seconds = 3.0
    app = create_app(
        api_settings.model_copy(update={"session_idle_minutes": idle_seconds / 60}), ingest_settings
    )
    add_user(api_settings.database_url, "bob", Role.clinician)
    browser = _browser(app, "bob")

    began = time.monotonic()
    while time.monotonic() - began < 2 * idle_seconds:  # in use: lives past the idle timeout
        assert browser.get("/api/auth/me").status_code == 200
        time.sleep(idle_seconds / 4)
    time.sleep(idle_seconds * 1.5)

    assert browser.get("/api/auth/me").status_code == 401
    assert browser.get("/api/auth/me").status_code == 401  # and it stays ended


def test_a_token_stops_working_at_its_expiry(client: TestClient, api_settings: ApiSettings) -> None:
    add_user(api_settings.database_url, "script", Role.evaluator)
    bearer = _token(api_settings.database_url, "script", timedelta(seconds=2))

    assert client.get("/api/auth/me", headers=bearer).status_code == 200
    time.sleep(2.5)
    assert client.get("/api/auth/me", headers=bearer).status_code == 401


def test_new_tokens_expire_after_the_configured_days_by_default(
    api_settings: ApiSettings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    add_user(api_settings.database_url, "script", Role.evaluator)
    monkeypatch.setenv("DATABASE_URL", api_settings.database_url)
    monkeypatch.setenv("API_TOKEN_DAYS", "30")

    assert main(["users", "token", "script"]) == 0
    assert main(["users", "tokens", "script"]) == 0

    with Session(get_engine(api_settings.database_url)) as db:
        [token] = sessions.list_api_tokens(db, users.require_user(db, "script"))
        lifetime = sessions.aware(token.expires_at) - sessions.aware(token.created_at)
    assert timedelta(days=30) - timedelta(minutes=1) < lifetime <= timedelta(days=30)
    assert "\tactive\t" in capsys.readouterr().out


def test_an_admin_lists_and_revokes_a_users_tokens(
    client: TestClient, sign_in: SignIn, api_settings: ApiSettings
) -> None:
    admin = sign_in("ada", Role.admin)
    add_user(api_settings.database_url, "script", Role.evaluator)
    bearer = _token(api_settings.database_url, "script")
    script_id = _user_id(api_settings.database_url, "script")
    [listed] = admin.get(f"/api/admin/users/{script_id}/tokens").json()
    assert (listed["name"], listed["revoked_at"]) == ("script", None)
    assert "token" not in listed and "token_hash" not in listed

    assert admin.delete(f"/api/admin/tokens/{listed['id']}").status_code == 204

    assert client.get("/api/auth/me", headers=bearer).status_code == 401
    assert admin.get(f"/api/admin/users/{script_id}/tokens").json()[0]["revoked_at"] is not None
    assert admin.delete("/api/admin/tokens/999999").status_code == 404
    assert (
        client.delete(
            f"/api/admin/tokens/{listed['id']}", headers=_token_of_clinician(api_settings)
        ).status_code
        == 403
    )


def _token_of_clinician(api_settings: ApiSettings) -> dict[str, str]:
    add_user(api_settings.database_url, "carl", Role.clinician)
    return _token(api_settings.database_url, "carl")


def test_a_token_revoked_on_the_command_line_stops_working(
    client: TestClient, api_settings: ApiSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_user(api_settings.database_url, "script", Role.evaluator)
    bearer = _token(api_settings.database_url, "script")
    with Session(get_engine(api_settings.database_url)) as db:
        [token] = sessions.list_api_tokens(db, users.require_user(db, "script"))
    monkeypatch.setenv("DATABASE_URL", api_settings.database_url)

    assert main(["users", "revoke-token", str(token.id)]) == 0

    assert client.get("/api/auth/me", headers=bearer).status_code == 401
    assert main(["users", "revoke-token", "999999"]) == 1
