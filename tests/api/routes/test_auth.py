"""Signing in and out: session cookie, CSRF header, bearer tokens, disabled users, the login rate limit."""

from datetime import timedelta

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.app import create_app
from api.deps import CSRF_HEADER, SESSION_COOKIE
from api.models import Role
from api.services import sessions, users
from api.settings import ApiSettings
from ingest.database import get_engine
from ingest.settings import IngestSettings
from tests.api.conftest import PASSWORD, SignIn, add_user, login_wait


def test_login_sets_an_httponly_strict_session_cookie_and_me_tells_the_roles(
    client: TestClient, api_settings: ApiSettings
) -> None:
    add_user(api_settings.database_url, "ann", Role.clinician, Role.evaluator)

    response = client.post("/api/auth/login", json={"username": "ann", "password": PASSWORD})

    assert response.status_code == 200
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=")
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie
    assert "Secure" not in cookie  # plain HTTP here
    me = client.get("/api/auth/me").json()
    assert me["user"]["username"] == "ann"
    assert me["user"]["roles"] == ["clinician", "evaluator"]
    assert me["csrf_token"] == response.json()["csrf_token"]


def test_the_cookie_is_secure_when_served_over_https(app: FastAPI, api_settings: ApiSettings) -> None:
    add_user(api_settings.database_url, "ann", Role.clinician)
    with TestClient(app, base_url="https://vraagbaak.example") as browser:
        response = browser.post("/api/auth/login", json={"username": "ann", "password": PASSWORD})

    assert "Secure" in response.headers["set-cookie"]


@pytest.mark.parametrize(
    ("api_host", "cookie_secure", "secure"), [("0.0.0.0", None, True), ("::1", False, False)]
)
def test_the_cookie_is_secure_unless_the_api_is_embedded_or_told_otherwise(
    api_settings: ApiSettings,
    ingest_settings: IngestSettings,
    api_host: str,
    cookie_secure: bool | None,
    secure: bool,
) -> None:
    """Production (the API on every interface, behind a proxy) gets the Secure flag even if the proxy did not say
    HTTPS; only COOKIE_SECURE=false or the embedded mode on loopback leave it off."""
    settings = api_settings.model_copy(update={"api_host": api_host, "cookie_secure": cookie_secure})
    add_user(settings.database_url, "ann", Role.clinician)
    with TestClient(create_app(settings, ingest_settings)) as browser:
        response = browser.post("/api/auth/login", json={"username": "ann", "password": PASSWORD})

    assert ("Secure" in response.headers["set-cookie"]) is secure


def test_wrong_password_and_unknown_name_get_the_same_answer(
    client: TestClient, api_settings: ApiSettings
) -> None:
    add_user(api_settings.database_url, "ann", Role.clinician)

    wrong = client.post("/api/auth/login", json={"username": "ann", "password": "not the password"})
    unknown = client.post("/api/auth/login", json={"username": "bob", "password": PASSWORD})

    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    assert SESSION_COOKIE not in client.cookies


def test_a_disabled_user_cannot_sign_in_and_is_signed_out(sign_in: SignIn, api_settings: ApiSettings) -> None:
    browser = sign_in("ann", Role.clinician)
    with Session(get_engine(api_settings.database_url)) as db:
        users.set_disabled(db, users.require_user(db, "ann"), True)
        db.commit()

    assert browser.get("/api/auth/me").status_code == 401
    again = browser.post("/api/auth/login", json={"username": "ann", "password": PASSWORD})
    assert again.status_code == 401  # as a wrong password (tests/api/services/test_login_throttle.py)


def test_failed_logins_slow_the_next_attempts_down_and_never_refuse_the_right_password(
    client: TestClient, api_settings: ApiSettings
) -> None:
    add_user(api_settings.database_url, "ann", Role.clinician)
    for _ in range(api_settings.login_attempts):
        wrong = client.post("/api/auth/login", json={"username": "ann", "password": "guess"})
        assert (wrong.status_code, login_wait(wrong)) == (401, 0.0)

    right = client.post("/api/auth/login", json={"username": "ann", "password": PASSWORD})

    assert (right.status_code, login_wait(right)) == (200, api_settings.login_delay_seconds)


def test_logout_ends_the_session(sign_in: SignIn) -> None:
    browser = sign_in("ann", Role.clinician)

    assert browser.post("/api/auth/logout").status_code == 204

    assert browser.get("/api/auth/me").status_code == 401


def test_unsafe_methods_with_the_cookie_need_the_csrf_header(sign_in: SignIn) -> None:
    browser = sign_in("ann", Role.clinician)
    token = browser.headers.pop(CSRF_HEADER)

    missing = browser.post("/api/auth/logout")
    wrong = browser.post("/api/auth/logout", headers={CSRF_HEADER: "forged"})

    assert missing.status_code == wrong.status_code == 403
    assert browser.get("/api/auth/me").status_code == 200  # still signed in
    assert browser.post("/api/auth/logout", headers={CSRF_HEADER: token}).status_code == 204


def test_a_bearer_token_needs_no_csrf_header(client: TestClient, api_settings: ApiSettings) -> None:
    add_user(api_settings.database_url, "script", Role.evaluator)
    with Session(get_engine(api_settings.database_url)) as db:
        token = sessions.create_api_token(
            db, users.require_user(db, "script"), "nightly export", timedelta(days=1)
        )
        db.commit()
    bearer = {"Authorization": f"Bearer {token}"}

    assert client.get("/api/auth/me", headers=bearer).json()["csrf_token"] is None
    assert client.post("/api/auth/logout", headers=bearer).status_code == 204
    assert client.get("/api/auth/me", headers={"Authorization": "Bearer forged"}).status_code == 401
