"""Failed logins slow further attempts down, never refuse them: counted in the database per name and client address,
per address and per account; an attempt counts before its password is checked, so parallel guesses cannot all
skip the wait. A correct password always signs in, at worst after the longest wait. How long an answer waited is
in its `Server-Timing: login-wait` header."""

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
from api.services.login import delay_after
from api.settings import ApiSettings
from ingest.database import get_engine
from ingest.settings import IngestSettings
from tests.api.chat.servers import api_server
from tests.api.conftest import PASSWORD, add_user, login_wait

BURST = 40


@pytest.fixture
def api_settings(api_settings: ApiSettings) -> ApiSettings:
    return api_settings.model_copy(
        update={
            "login_attempts": 3,
            "login_attempts_per_address": 6,
            "login_attempts_per_account": 8,
            "login_delay_seconds": 0.2,
            "login_max_delay_seconds": 0.8,
        }
    )


def browser_at(app: FastAPI, address: str) -> TestClient:
    return TestClient(app, client=(address, 50000))


def login(browser: TestClient | httpx.Client, username: str, password: str) -> tuple[int, float]:
    """The status of a login and how long it waited before its password was checked."""
    answer = browser.post("/api/auth/login", json={"username": username, "password": password})
    return answer.status_code, login_wait(answer)


def test_the_wait_doubles_with_each_failure_past_the_allowance_up_to_the_longest(
    app: FastAPI, api_settings: ApiSettings
) -> None:
    add_user(api_settings.database_url, "ann", Role.clinician)
    with browser_at(app, "10.0.0.66") as guesser:
        waits = [login(guesser, "ann", f"gok {number}") for number in range(7)]

    assert waits == [(401, 0.0)] * 3 + [(401, 0.2), (401, 0.4), (401, 0.8), (401, 0.8)]


def test_a_burst_of_parallel_wrong_passwords_cannot_skip_the_wait(
    app: FastAPI, api_settings: ApiSettings
) -> None:
    add_user(api_settings.database_url, "ann", Role.clinician)

    with (
        api_server(app) as url,
        httpx.Client(base_url=url, timeout=60) as browser,
        ThreadPoolExecutor(BURST) as pool,
    ):
        answers = list(pool.map(lambda _: login(browser, "ann", "guess"), range(BURST)))

    assert {status for status, _ in answers} == {401}, answers
    waits = sorted(wait for _, wait in answers)
    assert waits.count(0.0) <= api_settings.login_attempts, (
        waits
    )  # the others counted before they were checked
    assert waits[-1] == api_settings.login_max_delay_seconds


def test_a_correct_password_after_mistakes_on_that_name_at_a_shared_address_signs_in_after_a_wait(
    app: FastAPI, api_settings: ApiSettings
) -> None:
    """A VDI farm or NAT is one address: the failures on a colleague's name there (hers, or someone else's) make
    her wait, and never lock her out; at another address she does not wait."""
    add_user(api_settings.database_url, "ann", Role.clinician)
    with browser_at(app, "10.0.0.66") as farm, browser_at(app, "10.0.0.7") as elsewhere:
        for _ in range(api_settings.login_attempts):
            assert login(farm, "ann", "tikfout") == (401, 0.0)

        began = time.monotonic()
        assert login(farm, "ann", PASSWORD) == (200, api_settings.login_delay_seconds)
        waited = time.monotonic() - began
        assert login(elsewhere, "ann", PASSWORD) == (200, 0.0)

    assert waited >= api_settings.login_delay_seconds  # the wait was real, not only announced


def test_one_address_trying_many_names_is_slowed_and_a_new_name_there_still_signs_in(
    app: FastAPI, api_settings: ApiSettings
) -> None:
    add_user(api_settings.database_url, "nieuw", Role.clinician)
    with browser_at(app, "10.0.0.66") as sprayer, browser_at(app, "10.0.0.7") as other:
        for number in range(api_settings.login_attempts_per_address):
            assert login(sprayer, f"naam{number}", "Welkom01!") == (401, 0.0)

        assert login(sprayer, "nog-een-naam", "Welkom01!") == (401, 0.2)
        assert login(other, "nog-een-naam", "Welkom01!") == (401, 0.0)
        assert login(sprayer, "nieuw", PASSWORD) == (
            200,
            0.4,
        )  # new staff at a busy address: in, after a wait


def test_one_account_guessed_from_many_addresses_is_slowed_and_its_owner_still_signs_in(
    app: FastAPI, api_settings: ApiSettings
) -> None:
    add_user(api_settings.database_url, "ann", Role.clinician)
    for number in range(api_settings.login_attempts_per_account):
        with browser_at(app, f"10.0.1.{number}") as guesser:
            assert login(guesser, "ann", f"guess {number}") == (401, 0.0)

    with browser_at(app, "10.0.2.1") as guesser, browser_at(app, "10.0.2.2") as moved_pc:
        assert login(guesser, "ANN ", "nog een gok") == (401, 0.2)  # the same name, as typed
        assert login(moved_pc, "ann", PASSWORD) == (200, 0.4)


def test_successful_logins_are_not_counted(app: FastAPI, api_settings: ApiSettings) -> None:
    add_user(api_settings.database_url, "ann", Role.clinician)
    with browser_at(app, "10.0.0.7") as clinician:
        for _ in range(api_settings.login_attempts_per_account + 1):
            assert login(clinician, "ann", PASSWORD) == (200, 0.0)


def test_the_counts_hold_across_api_processes(
    api_settings: ApiSettings, ingest_settings: IngestSettings
) -> None:
    """Two apps on one database (as several API processes behind nginx) share the count."""
    add_user(api_settings.database_url, "ann", Role.clinician)
    first, second = create_app(api_settings, ingest_settings), create_app(api_settings, ingest_settings)
    with browser_at(first, "10.0.0.66") as one, browser_at(second, "10.0.0.66") as other:
        for number in range(api_settings.login_attempts):
            assert login(one if number % 2 else other, "ann", "guess") == (401, 0.0)

        assert login(one, "ann", "guess") == (401, 0.2)
        assert login(other, "ann", PASSWORD) == (200, 0.4)


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


def test_colleagues_who_signed_in_at_a_shared_address_do_not_wait_for_others_mistyping_there(
    app: FastAPI, api_settings: ApiSettings
) -> None:
    """A hospital's Citrix/VDI farm or NAT is one address: past the address-wide allowance, a nurse who signed in
    from there before waits only for her own failures there (none); a name never signed in from there (new staff,
    a password sprayer's) waits, and signs in with the right password."""
    add_user(api_settings.database_url, "zuster", Role.clinician)
    add_user(api_settings.database_url, "nieuw", Role.clinician)
    with browser_at(app, "10.20.0.1") as farm:
        assert login(farm, "zuster", PASSWORD) == (200, 0.0)  # yesterday
        for number in range(api_settings.login_attempts_per_address):
            assert login(farm, f"collega{number}", "tikfout") == (401, 0.0)

        assert login(farm, "sproeier", "tikfout") == (401, 0.2)
        assert login(farm, "zuster", PASSWORD) == (200, 0.0)
        assert login(farm, "nieuw", PASSWORD) == (200, 0.4)


def test_an_admin_whose_name_is_guessed_elsewhere_signs_in_at_their_desk_without_waiting(
    app: FastAPI, api_settings: ApiSettings
) -> None:
    """Failures on the admin's name from many addresses pass the account-wide allowance: at the address they
    signed in from before, the admin waits only for their own mistakes there; a new address waits, and gets in."""
    add_user(api_settings.database_url, "beheerder", Role.admin)
    with browser_at(app, "10.0.0.5") as desk:
        assert login(desk, "beheerder", PASSWORD) == (200, 0.0)
    for number in range(api_settings.login_attempts_per_account):
        with browser_at(app, f"10.9.0.{number}") as guesser:
            assert login(guesser, "beheerder", f"gok {number}") == (401, 0.0)

    with browser_at(app, "10.0.0.5") as desk, browser_at(app, "10.9.1.1") as new_pc:
        assert login(desk, "beheerder", PASSWORD) == (200, 0.0)
        assert login(new_pc, "beheerder", PASSWORD) == (200, 0.2)
        mistakes = [login(desk, "beheerder", "tikfout") for _ in range(api_settings.login_attempts + 1)]
        assert mistakes[-1] == (401, delay_after(api_settings, 1))  # past their own allowance at the desk
