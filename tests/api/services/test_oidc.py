"""Signing in with the hospital account (OpenID Connect), against a real provider on loopback.

The browser's walk is followed hop by hop: Vraagbaak's login redirect, the provider's authorize endpoint
(which consents at once for whoever is signed in there), the callback, then the session cookie at work. A
provider account reaches Vraagbaak only when an admin linked it to a user (or auto-provisioning makes it a
clinician); the ID token is checked (signature, issuer, audience, expiry, nonce), and every refusal is a
Dutch page with a 4xx status, never a 500 and never a session.
"""

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy import Connection, text
from sqlalchemy.orm import Session

from api.app import create_app
from api.deps import CSRF_HEADER, SESSION_COOKIE
from api.models import Role
from api.services import oidc, users
from api.settings import ApiSettings
from ingest.database import get_engine
from ingest.settings import IngestSettings
from tests.api.conftest import add_user
from tests.api.oidc_provider import CLIENT_ID, CLIENT_SECRET, Account, Provider, running_provider

APP_URL = "http://testserver"
ANN = Account(sub="a1b2-ann", preferred_username="ann.peeters")


@pytest.fixture
def provider() -> Iterator[Provider]:
    with running_provider(APP_URL + oidc.CALLBACK_PATH) as running:
        running.signed_in = ANN
        yield running


def _with_sso(settings: ApiSettings, issuer: str, **changes: object) -> ApiSettings:
    return ApiSettings(
        **{
            **settings.model_dump(),
            "oidc_issuer": issuer,
            "oidc_client_id": CLIENT_ID,
            "oidc_client_secret": CLIENT_SECRET,
            "oidc_redirect_base_url": APP_URL,
            **changes,
        }
    )


@pytest.fixture
def sso_settings(api_settings: ApiSettings, provider: Provider) -> ApiSettings:
    return _with_sso(api_settings, provider.issuer)


@pytest.fixture
def browser(sso_settings: ApiSettings, ingest_settings: IngestSettings) -> Iterator[TestClient]:
    with TestClient(create_app(sso_settings, ingest_settings), base_url=APP_URL) as client:
        yield client


@pytest.fixture
def at_provider() -> Iterator[httpx.Client]:
    """The same browser as it talks to the provider (another site, so other cookies)."""
    with httpx.Client() as client:
        yield client


def _link(database_url: str, username: str, subject: str, *roles: Role) -> None:
    add_user(database_url, username, *roles)
    with Session(get_engine(database_url)) as db:
        users.link_subject(db, users.require_user(db, username), subject)
        db.commit()


def _to_provider(browser: TestClient) -> str:
    response = browser.get("/api/auth/oidc/login", follow_redirects=False)
    assert response.status_code == 302, response.text
    return response.headers["location"]


def _back_from_provider(at_provider: httpx.Client, authorize_url: str) -> str:
    response = at_provider.get(authorize_url)
    assert response.status_code == 302, response.text
    return response.headers["location"]


def _sso_sign_in(browser: TestClient, at_provider: httpx.Client) -> httpx.Response:
    callback = _back_from_provider(at_provider, _to_provider(browser))
    return browser.get(callback, follow_redirects=False)


def _refused(response: httpx.Response, status: int, message: str) -> bool:
    return (
        response.status_code == status
        and response.headers["content-type"].startswith("text/html")
        and message in response.text
        and SESSION_COOKIE not in response.headers.get("set-cookie", "")
    )


def test_a_linked_hospital_account_gets_the_same_session_as_a_password_login(
    browser: TestClient, at_provider: httpx.Client, sso_settings: ApiSettings, provider: Provider
) -> None:
    _link(sso_settings.database_url, "ann", ANN.sub, Role.clinician, Role.evaluator)

    authorize = urlsplit(_to_provider(browser))
    request = parse_qs(authorize.query)
    assert f"{authorize.scheme}://{authorize.netloc}{authorize.path}" == f"{provider.issuer}/authorize"
    assert request["client_id"] == [CLIENT_ID]
    assert request["redirect_uri"] == [APP_URL + oidc.CALLBACK_PATH]
    assert request["code_challenge_method"] == ["S256"]
    assert request["state"] and request["nonce"] and request["code_challenge"]
    callback = _back_from_provider(at_provider, authorize.geturl())
    arrived = browser.get(callback, follow_redirects=False)

    assert arrived.status_code == 303
    assert arrived.headers["location"] == "/"
    cookie = next(c for c in arrived.headers.get_list("set-cookie") if c.startswith(f"{SESSION_COOKIE}="))
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie
    me = browser.get("/api/auth/me").json()
    assert me["user"]["username"] == "ann"
    assert me["user"]["roles"] == ["clinician", "evaluator"]  # Vraagbaak's roles, not the provider's
    assert browser.post("/api/auth/logout").status_code == 403  # the cookie alone is not enough
    assert browser.post("/api/auth/logout", headers={CSRF_HEADER: me["csrf_token"]}).status_code == 204


def _waiting_for(observer: Connection, table: str) -> int:
    """How many transactions wait for a lock on `table` (PostgreSQL)."""
    waiting = text(
        "SELECT count(*) FROM pg_locks JOIN pg_class ON pg_class.oid = pg_locks.relation "
        "WHERE pg_class.relname = :table AND NOT pg_locks.granted"
    )
    return int(observer.execute(waiting, {"table": table}).scalar_one())


@pytest.mark.parametrize("empty_database_url", ["postgresql"], indirect=True)  # a lock on one table
def test_a_callback_waiting_to_write_its_audit_entry_holds_up_no_other_request(
    browser: TestClient, at_provider: httpx.Client, sso_settings: ApiSettings
) -> None:
    """The audit table is locked (a slow database): the callback waits to write Ann's sign-in, and meanwhile the
    same process (one event loop) answers another request; once the lock goes, the callback signs her in."""
    _link(sso_settings.database_url, "ann", ANN.sub, Role.clinician)
    callback = _back_from_provider(at_provider, _to_provider(browser))
    engine = get_engine(sso_settings.database_url)
    with engine.connect() as holder, engine.connect() as observer, ThreadPoolExecutor(2) as pool:
        holder.execute(text("LOCK TABLE audit_log IN EXCLUSIVE MODE"))
        try:
            arriving = pool.submit(browser.get, callback, follow_redirects=False)
            deadline = time.monotonic() + 60
            while _waiting_for(observer, "audit_log") == 0:
                assert time.monotonic() < deadline, "the callback never wrote its audit entry"
                time.sleep(0.05)
            other = pool.submit(browser.get, "/api/auth/config").result(timeout=60)  # blocked loop: no answer
            answered_while_waiting = not arriving.done() and _waiting_for(observer, "audit_log") == 1
        finally:
            holder.rollback()
        arrived = arriving.result(timeout=60)

    assert other.json() == {"sso": True}
    assert answered_while_waiting
    assert arrived.status_code == 303
    assert browser.get("/api/auth/me").json()["user"]["username"] == "ann"


def test_the_login_page_learns_that_sso_is_on(browser: TestClient) -> None:
    assert browser.get("/api/auth/config").json() == {"sso": True}


def test_a_callback_this_browser_did_not_start_is_refused(
    browser: TestClient, at_provider: httpx.Client, sso_settings: ApiSettings, ingest_settings: IngestSettings
) -> None:
    _link(sso_settings.database_url, "ann", ANN.sub, Role.clinician)
    callback = _back_from_provider(at_provider, _to_provider(browser))

    with TestClient(create_app(sso_settings, ingest_settings), base_url=APP_URL) as other_browser:
        elsewhere = other_browser.get(callback, follow_redirects=False)
    assert _refused(elsewhere, 400, oidc.BAD_STATE)

    query = parse_qs(urlsplit(callback).query)
    wrong_state = browser.get(
        oidc.CALLBACK_PATH, params={"code": query["code"][0], "state": "guessed"}, follow_redirects=False
    )
    assert _refused(wrong_state, 400, oidc.BAD_STATE)
    assert browser.get("/api/auth/me").status_code == 401


def test_a_callback_is_used_once(
    browser: TestClient, at_provider: httpx.Client, sso_settings: ApiSettings
) -> None:
    _link(sso_settings.database_url, "ann", ANN.sub, Role.clinician)
    callback = _back_from_provider(at_provider, _to_provider(browser))
    assert browser.get(callback, follow_redirects=False).status_code == 303

    replayed = browser.get(callback, follow_redirects=False)

    assert _refused(replayed, 400, oidc.BAD_STATE)


def test_the_providers_refusal_is_a_page_not_an_error(
    browser: TestClient, at_provider: httpx.Client, provider: Provider
) -> None:
    provider.signed_in = None  # the person cancelled at the provider: it answers error=access_denied

    refused = _sso_sign_in(browser, at_provider)

    assert _refused(refused, 400, oidc.PROVIDER_REFUSED)


def test_an_id_token_changed_after_signing_is_refused(
    browser: TestClient, at_provider: httpx.Client, sso_settings: ApiSettings, provider: Provider
) -> None:
    _link(sso_settings.database_url, "ann", ANN.sub, Role.clinician)
    _link(sso_settings.database_url, "boss", "subject-of-the-admin", Role.admin)
    provider.forge_subject = "subject-of-the-admin"

    refused = _sso_sign_in(browser, at_provider)

    assert _refused(refused, 400, oidc.BAD_TOKEN)
    assert browser.get("/api/auth/me").status_code == 401


@pytest.mark.parametrize(
    "claims",
    [
        pytest.param({"exp": int(time.time()) - 3600, "iat": int(time.time()) - 7200}, id="expired"),
        pytest.param({"aud": ["another-application"]}, id="another audience"),
        pytest.param({"iss": "https://another-provider.example"}, id="another issuer"),
    ],
)
def test_an_id_token_that_is_not_for_us_now_is_refused(
    browser: TestClient,
    at_provider: httpx.Client,
    sso_settings: ApiSettings,
    provider: Provider,
    claims: dict[str, object],
) -> None:
    _link(sso_settings.database_url, "ann", ANN.sub, Role.clinician)
    provider.id_token_claims = claims

    refused = _sso_sign_in(browser, at_provider)

    assert _refused(refused, 400, oidc.BAD_TOKEN)


def test_a_disabled_user_cannot_sign_in_with_the_hospital_account(
    browser: TestClient, at_provider: httpx.Client, sso_settings: ApiSettings
) -> None:
    _link(sso_settings.database_url, "ann", ANN.sub, Role.clinician)
    with Session(get_engine(sso_settings.database_url)) as db:
        users.set_disabled(db, users.require_user(db, "ann"), True)
        db.commit()

    refused = _sso_sign_in(browser, at_provider)

    assert _refused(refused, 403, "Dit account is uitgeschakeld.")


def test_an_unlinked_hospital_account_gets_no_access_and_no_account(
    browser: TestClient, at_provider: httpx.Client, sso_settings: ApiSettings
) -> None:
    add_user(sso_settings.database_url, "ann.peeters", Role.admin)  # same name, but never linked

    refused = _sso_sign_in(browser, at_provider)

    assert _refused(refused, 403, oidc.NOT_LINKED)
    with Session(get_engine(sso_settings.database_url)) as db:
        assert [user.username for user in users.list_users(db)] == ["ann.peeters"]
        assert users.require_user(db, "ann.peeters").oidc_subject is None


def test_auto_provisioning_makes_an_unlinked_account_a_clinician_once(
    api_settings: ApiSettings, ingest_settings: IngestSettings, provider: Provider, at_provider: httpx.Client
) -> None:
    settings = _with_sso(api_settings, provider.issuer, oidc_auto_provision=True)
    with TestClient(create_app(settings, ingest_settings), base_url=APP_URL) as browser:
        assert _sso_sign_in(browser, at_provider).status_code == 303
        assert _sso_sign_in(browser, at_provider).status_code == 303

        me = browser.get("/api/auth/me").json()
    assert me["user"]["username"] == ANN.preferred_username
    assert me["user"]["roles"] == ["clinician"]
    with Session(get_engine(settings.database_url)) as db:
        assert [user.oidc_subject for user in users.list_users(db)] == [ANN.sub]


def test_auto_provisioning_never_takes_over_an_existing_account(
    api_settings: ApiSettings, ingest_settings: IngestSettings, provider: Provider, at_provider: httpx.Client
) -> None:
    add_user(api_settings.database_url, ANN.preferred_username, Role.admin)
    settings = _with_sso(api_settings, provider.issuer, oidc_auto_provision=True)
    with TestClient(create_app(settings, ingest_settings), base_url=APP_URL) as browser:
        refused = _sso_sign_in(browser, at_provider)

        assert _refused(refused, 403, oidc.NAME_TAKEN)
        assert browser.get("/api/auth/me").status_code == 401


def test_an_unreachable_provider_is_a_page_not_an_error(
    api_settings: ApiSettings, ingest_settings: IngestSettings
) -> None:
    settings = _with_sso(api_settings, "http://127.0.0.1:9")  # the discard port: nothing listens
    with TestClient(create_app(settings, ingest_settings), base_url=APP_URL) as browser:
        refused = browser.get("/api/auth/oidc/login", follow_redirects=False)

    assert _refused(refused, 502, oidc.UNREACHABLE)


def test_with_sso_off_the_sso_routes_are_not_found(client: TestClient) -> None:
    assert client.get("/api/auth/config").json() == {"sso": False}
    assert client.get("/api/auth/oidc/login", follow_redirects=False).status_code == 404
    assert client.get(oidc.CALLBACK_PATH, params={"code": "x", "state": "y"}).status_code == 404


@pytest.mark.parametrize(
    ("changes", "complaint"),
    [
        ({"oidc_client_secret": None}, "OIDC_CLIENT_SECRET"),
        ({"oidc_redirect_base_url": None}, "OIDC_REDIRECT_BASE_URL"),
        ({"oidc_issuer": "http://sso.hospital.example/realms/staff"}, "https"),
        ({"oidc_scopes": "profile email"}, "openid"),
    ],
)
def test_a_half_configured_sso_stops_the_start(changes: dict[str, object], complaint: str) -> None:
    defaults = ApiSettings(_env_file=None)  # type: ignore[call-arg]

    with pytest.raises(ValidationError, match=complaint):
        _with_sso(defaults, "https://sso.hospital.example/realms/staff", **changes)


def test_empty_sso_settings_mean_sso_off(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "OIDC_REDIRECT_BASE_URL"):
        monkeypatch.setenv(name, "")

    assert not ApiSettings(_env_file=None).oidc_enabled  # type: ignore[call-arg]
