"""The login limit, kept in the database: per name and client address, per address, per account; an attempt
counts before its password is checked, so parallel guesses cannot all pass."""

import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.app import create_app
from api.models import Role
from api.services import users
from api.settings import ApiSettings
from ingest.database import get_engine
from ingest.settings import IngestSettings
from tests.api.chat.servers import api_server
from tests.api.conftest import PASSWORD, add_user

BURST = 40


@pytest.fixture
def api_settings(api_settings: ApiSettings) -> ApiSettings:
    return api_settings.model_copy(
        update={
            "login_attempts": 3,
            "login_attempts_per_address": 6,
            "login_attempts_per_account": 8,
            "login_delay_seconds": 0.2,
        }
    )


def browser_at(app: FastAPI, address: str) -> TestClient:
    return TestClient(app, client=(address, 50000))


def login(browser: TestClient | httpx.Client, username: str, password: str) -> int:
    return browser.post("/api/auth/login", json={"username": username, "password": password}).status_code


def test_a_burst_of_parallel_wrong_passwords_gets_at_most_the_limit_of_401s(
    app: FastAPI, api_settings: ApiSettings
) -> None:
    add_user(api_settings.database_url, "ann", Role.clinician)

    with (
        api_server(app) as url,
        httpx.Client(base_url=url, timeout=60) as browser,
        ThreadPoolExecutor(BURST) as pool,
    ):
        answers = list(pool.map(lambda _: login(browser, "ann", "guess"), range(BURST)))

    assert set(answers) <= {401, 429}, answers
    assert 1 <= answers.count(401) <= api_settings.login_attempts, answers


def test_a_locked_out_client_does_not_lock_out_another_with_the_right_password(
    app: FastAPI, api_settings: ApiSettings
) -> None:
    add_user(api_settings.database_url, "ann", Role.clinician)
    with browser_at(app, "10.0.0.66") as attacker, browser_at(app, "10.0.0.7") as clinician:
        for _ in range(api_settings.login_attempts):
            assert login(attacker, "ann", "guess") == 401
        assert login(attacker, "ann", PASSWORD) == 429

        assert login(clinician, "ann", PASSWORD) == 200


def test_one_address_trying_many_names_is_limited(app: FastAPI, api_settings: ApiSettings) -> None:
    with browser_at(app, "10.0.0.66") as sprayer, browser_at(app, "10.0.0.7") as other:
        for number in range(api_settings.login_attempts_per_address):
            assert login(sprayer, f"naam{number}", "Welkom01!") == 401

        assert login(sprayer, "nog-een-naam", "Welkom01!") == 429
        assert login(other, "nog-een-naam", "Welkom01!") == 401


def test_one_account_guessed_from_many_addresses_is_limited(app: FastAPI, api_settings: ApiSettings) -> None:
    add_user(api_settings.database_url, "ann", Role.clinician)
    for number in range(api_settings.login_attempts_per_account):
        with browser_at(app, f"10.0.1.{number}") as guesser:
            assert login(guesser, "ann", f"guess {number}") == 401

    with browser_at(app, "10.0.2.1") as guesser:
        refused = guesser.post("/api/auth/login", json={"username": "ANN ", "password": PASSWORD})

    assert refused.status_code == 429
    assert 0 < int(refused.headers["Retry-After"]) <= api_settings.login_window_seconds


def test_successful_logins_are_not_counted(app: FastAPI, api_settings: ApiSettings) -> None:
    add_user(api_settings.database_url, "ann", Role.clinician)
    with browser_at(app, "10.0.0.7") as clinician:
        for _ in range(api_settings.login_attempts_per_account + 1):
            assert login(clinician, "ann", PASSWORD) == 200


def test_the_limit_holds_across_api_processes(
    api_settings: ApiSettings, ingest_settings: IngestSettings
) -> None:
    """Two apps on one database (as several API processes behind nginx) share the count."""
    add_user(api_settings.database_url, "ann", Role.clinician)
    first, second = create_app(api_settings, ingest_settings), create_app(api_settings, ingest_settings)
    with browser_at(first, "10.0.0.66") as one, browser_at(second, "10.0.0.66") as other:
        for number in range(api_settings.login_attempts):
            assert login(one if number % 2 else other, "ann", "guess") == 401

        assert login(one, "ann", PASSWORD) == login(other, "ann", PASSWORD) == 429


def test_a_disabled_account_answers_exactly_like_a_wrong_password(
    client: TestClient, api_settings: ApiSettings
) -> None:
    add_user(api_settings.database_url, "ann", Role.clinician)
    add_user(api_settings.database_url, "bob", Role.clinician)
    with Session(get_engine(api_settings.database_url)) as db:
        users.set_disabled(db, users.require_user(db, "ann"), True)
        db.commit()

    disabled = client.post("/api/auth/login", json={"username": "ann", "password": PASSWORD})
    wrong = client.post("/api/auth/login", json={"username": "bob", "password": "not the password"})

    assert disabled.status_code == wrong.status_code == 401
    assert disabled.json() == wrong.json()
    assert "set-cookie" not in disabled.headers


def test_colleagues_behind_one_address_keep_signing_in_when_others_mistype_there(
    app: FastAPI, api_settings: ApiSettings
) -> None:
    """A hospital's Citrix/VDI farm or NAT is one address: once its failures pass the address-wide limit, a nurse
    who signed in from there before still gets in with her password (after a short delay); a name never signed in
    from there (a password sprayer's) is refused as before."""
    add_user(api_settings.database_url, "zuster", Role.clinician)
    add_user(api_settings.database_url, "nieuw", Role.clinician)
    with browser_at(app, "10.20.0.1") as farm:
        assert login(farm, "zuster", PASSWORD) == 200  # yesterday
        for number in range(api_settings.login_attempts_per_address):
            assert login(farm, f"collega{number}", "tikfout") == 401
        assert login(farm, "sproeier", "tikfout") == 429  # the address-wide limit holds for unknown names

        began = time.monotonic()
        assert login(farm, "zuster", PASSWORD) == 200
        waited = time.monotonic() - began
        assert login(farm, "nieuw", PASSWORD) == 429

    assert waited >= api_settings.login_delay_seconds


def test_an_admin_whose_name_is_known_still_signs_in_from_their_own_address(
    app: FastAPI, api_settings: ApiSettings
) -> None:
    """Failures on the admin's name from many addresses pass the account-wide limit: the admin, at the address they
    signed in from before, still gets in with the right password (after a delay); a new address is refused."""
    add_user(api_settings.database_url, "beheerder", Role.admin)
    with browser_at(app, "10.0.0.5") as desk:
        assert login(desk, "beheerder", PASSWORD) == 200
    for number in range(api_settings.login_attempts_per_account):
        with browser_at(app, f"10.9.0.{number}") as guesser:
            assert login(guesser, "beheerder", f"gok {number}") == 401

    with browser_at(app, "10.0.0.5") as desk, browser_at(app, "10.9.1.1") as stranger:
        began = time.monotonic()
        assert login(desk, "beheerder", PASSWORD) == 200
        first_wait = time.monotonic() - began
        assert login(stranger, "beheerder", PASSWORD) == 429
        assert login(desk, "beheerder", "tikfout") == 401  # checked too, after its delay: one more failure
        began = time.monotonic()
        assert login(desk, "beheerder", PASSWORD) == 200
        second_wait = time.monotonic() - began

    assert first_wait >= api_settings.login_delay_seconds
    assert (
        second_wait >= 2 * api_settings.login_delay_seconds
    )  # the delay grows with the failures past the limit
