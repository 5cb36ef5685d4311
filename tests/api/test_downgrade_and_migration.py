"""`python -m api downgrade` removes nothing without an explicit yes; migration 0003 brings rows of 0002 along
(sessions get a last use, tokens an expiry, messages' stats lose the worker's address)."""

import io
import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import inspect, text

from api import database_schema
from api.__main__ import main
from api.services.sessions import aware
from ingest import database
from ingest import database_schema as ingest_schema
from ingest.database import get_engine


@pytest.mark.parametrize("answer", ["", "no\n", "y\n", "ja\n"])
def test_downgrade_without_a_yes_removes_nothing(
    database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], answer: str
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setattr("sys.stdin", io.StringIO(answer))

    assert main(["downgrade"]) == 1

    assert "users" in inspect(get_engine(database_url)).get_table_names()
    assert "ALL data" in capsys.readouterr().out


def test_downgrade_goes_ahead_on_yes_or_with_the_flag(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setattr("sys.stdin", io.StringIO("yes\n"))

    assert main(["downgrade"]) == 0
    assert "users" not in inspect(get_engine(database_url)).get_table_names()

    database_schema.migrate(database_url)
    assert main(["downgrade", "--yes"]) == 0
    assert "users" not in inspect(get_engine(database_url)).get_table_names()


def test_migration_0003_keeps_sessions_and_tokens_of_0002_and_forgets_worker_urls(
    empty_database_url: str,
) -> None:
    url = empty_database_url
    ingest_schema.migrate(url)
    database.upgrade(url, database_schema.MIGRATIONS, database_schema.VERSION_TABLE, "0002")
    now = datetime.now(UTC)
    stats = {"worker": {"url": "http://worker:8001", "new_tokens": 7}, "retrieval": {"seconds": 0.1}}
    with get_engine(url).begin() as connection:
        connection.execute(
            text(
                "INSERT INTO users (id, username, password_hash, disabled, created_at) VALUES (1, 'ann', 'x', :f, :t)"
            ),
            {"f": False, "t": now},
        )
        connection.execute(
            text(
                "INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, expires_at) "
                "VALUES ('h', 1, 'c', :t, :e)"
            ),
            {"t": now, "e": now + timedelta(hours=1)},
        )
        connection.execute(
            text(
                "INSERT INTO api_tokens (id, user_id, name, token_hash, created_at) VALUES (1, 1, 'n', 'th', :t)"
            ),
            {"t": now},
        )
        connection.execute(
            text(
                "INSERT INTO conversations (id, user_id, title, created_at, updated_at) VALUES (1, 1, 't', :t, :t)"
            ),
            {"t": now},
        )
        connection.execute(
            text(
                "INSERT INTO messages (id, conversation_id, question, answer, state, retrieval_only, sources, "
                "stats, created_at) VALUES (1, 1, 'q', 'a', 'answered', :f, '[]', :s, :t)"
            ),
            {"f": False, "s": json.dumps(stats), "t": now},
        )

    database_schema.migrate(url)

    with get_engine(url).connect() as connection:
        last_seen = connection.execute(text("SELECT last_seen_at FROM sessions")).scalar_one()
        expires = connection.execute(text("SELECT expires_at FROM api_tokens")).scalar_one()
        stored = connection.execute(text("SELECT stats FROM messages")).scalar_one()
    assert last_seen is not None
    assert timedelta(days=89) < aware(_moment(expires)) - now <= timedelta(days=90, minutes=1)
    kept = stored if isinstance(stored, dict) else json.loads(stored)
    assert kept == {"worker": {"new_tokens": 7}, "retrieval": {"seconds": 0.1}}


def _moment(value: object) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
