"""`python -m api users …`: accounts from the command line, as an admin scripts them."""

import io

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.__main__ import main
from api.services import users
from ingest.database import get_engine


@pytest.fixture(autouse=True)
def _database(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)


def _users(monkeypatch: pytest.MonkeyPatch, *arguments: str, stdin: str = "") -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return main(["users", *arguments])


def test_add_list_set_roles_disable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        _users(monkeypatch, "add", "ann", "--role", "admin", "--role", "evaluator", stdin="long password 1\n")
        == 0
    )
    assert _users(monkeypatch, "add", "bob", stdin="long password 2\n") == 0
    assert _users(monkeypatch, "set-roles", "bob", "clinician", "evaluator") == 0
    assert _users(monkeypatch, "disable", "ann") == 0
    capsys.readouterr()

    assert _users(monkeypatch, "list") == 0

    assert capsys.readouterr().out.splitlines() == [
        "ann\tadmin,evaluator\tdisabled",
        "bob\tclinician,evaluator\tactive",
    ]


def test_refusals_say_why(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert _users(monkeypatch, "add", "ann", stdin="short\n") == 1
    assert "minstens" in capsys.readouterr().err
    assert _users(monkeypatch, "disable", "nobody") == 1
    assert "bestaat niet" in capsys.readouterr().err
    _users(monkeypatch, "add", "ann", stdin="long password 1\n")
    assert _users(monkeypatch, "add", "ann", stdin="long password 1\n") == 1
    assert "bestaat al" in capsys.readouterr().err
    assert _users(monkeypatch, "add", "ann", "--if-missing", stdin="another password\n") == 0
    assert "left unchanged" in capsys.readouterr().out


def test_a_token_from_the_command_line_signs_a_script_in(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], client: TestClient
) -> None:
    _users(monkeypatch, "add", "nightly", "--role", "evaluator", stdin="long password 1\n")
    capsys.readouterr()

    assert _users(monkeypatch, "token", "nightly", "--name", "export") == 0

    token = capsys.readouterr().out.strip()
    me = client.get("/api/auth/me", headers={"Authorization": f"Bearer {token}"})
    assert me.json()["user"]["username"] == "nightly"


def test_link_lets_one_hospital_account_sign_in_as_one_user(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], database_url: str
) -> None:
    _users(monkeypatch, "add", "ann", stdin="long password 1\n")
    _users(monkeypatch, "add", "bob", stdin="long password 2\n")

    assert _users(monkeypatch, "link", "ann", "a1b2-ann") == 0
    assert _users(monkeypatch, "link", "bob", "a1b2-ann") == 1
    assert "al gekoppeld aan 'ann'" in capsys.readouterr().err
    assert _subject(database_url, "ann") == "a1b2-ann"
    assert _users(monkeypatch, "unlink", "ann") == 0
    assert _subject(database_url, "ann") is None
    assert _users(monkeypatch, "link", "bob", "a1b2-ann") == 0


def _subject(database_url: str, username: str) -> str | None:
    with Session(get_engine(database_url)) as db:
        return users.require_user(db, username).oidc_subject
