"""PostgreSQL restarted while a clinician's answer streams, on a server of the test's own: while it is down the API
answers 503 with a Dutch detail and /api/health says so; once it is back the API serves again without a restart;
the answer that ended meanwhile is stored when the database returns; if the stream cannot wait for it, the user
is told it is not saved yet, and it is stored as soon as the database is back."""

import logging
import time
from collections.abc import Iterator

import httpx
import pytest
from httpx_sse import ServerSentEvent, connect_sse

from api import database_schema
from api.chat.answering import NOT_SAVED_MESSAGE
from api.chat.runtime import ChatRuntime
from api.chat.settings import ChatSettings
from api.models import Message, MessageState
from api.services.errors import DATABASE_DOWN
from api.settings import ApiSettings
from tests.api.chat.conftest import Clinician, Event, stored_messages
from tests.api.chat.servers import ScriptedWorker
from tests.api.chat.test_chat_flow import ANSWERABLE
from tests.throwaway_postgres import ThrowawayPostgres, throwaway_postgres

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.timeout(60, func_only=True),
]


@pytest.fixture
def server() -> Iterator[ThrowawayPostgres]:
    with throwaway_postgres() as throwaway:
        yield throwaway


@pytest.fixture
def database_url(server: ThrowawayPostgres) -> str:
    database_schema.migrate(server.url)
    return server.url


@pytest.fixture
def worker() -> Iterator[ScriptedWorker]:
    with ScriptedWorker() as scripted:
        yield scripted


@pytest.fixture
def chat_settings(worker: ScriptedWorker) -> ChatSettings:
    return ChatSettings(worker_urls=[worker.url], worker_health_ttl_seconds=0.0, answer_save_retry_seconds=20)


def stored_later(api_settings: ApiSettings, seconds: float = 20) -> Message:
    """The one message once it is no longer `generating` (an answer the stream could not wait for is stored by a
    task of the API that tries again every few seconds)."""
    deadline = time.monotonic() + seconds
    while True:
        [stored] = stored_messages(api_settings)
        if stored.state != MessageState.generating or time.monotonic() > deadline:
            return stored
        time.sleep(0.25)


def until_first_delta(stream: Iterator[ServerSentEvent]) -> list[Event]:
    """The events up to the first delta; the rest stay in `stream` (one iterator for the whole answer: closing it
    would close the response, which the API takes for a user who went away)."""
    events = []
    for event in stream:
        events.append((event.event, event.json()))
        if event.event == "delta":
            return events
    raise AssertionError(f"the stream ended before its first delta: {events}")


def assert_database_down(client: httpx.Client, conversation_id: int) -> None:
    health = client.get("/api/health")
    assert health.status_code == 503
    assert health.json()["database"].startswith("unavailable")
    for response in (
        client.get("/api/conversations"),
        client.post(f"/api/conversations/{conversation_id}/messages", json={"question": ANSWERABLE}),
    ):
        assert response.status_code == 503, response.text
        assert response.json() == {"detail": DATABASE_DOWN}
        assert response.headers["Retry-After"] == "5"


def wait_for_log(caplog: pytest.LogCaptureFixture, words: str, timeout: float = 20) -> None:
    """Until the API (served in this process) logged `words`."""
    deadline = time.monotonic() + timeout
    while not any(words in record.getMessage() for record in caplog.records):
        assert time.monotonic() < deadline, f"the API never logged: {words}"
        time.sleep(0.05)


def test_an_answer_that_ends_while_postgres_restarts_is_stored_when_it_is_back_and_the_api_recovers(
    clinician: Clinician,
    worker: ScriptedWorker,
    server: ThrowawayPostgres,
    api_settings: ApiSettings,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="api.chat.answering")
    client, conversation_id = clinician("ann")

    url = f"/api/conversations/{conversation_id}/messages"
    with connect_sse(client, "POST", url, json={"question": ANSWERABLE}) as source:
        stream = source.iter_sse()
        events = until_first_delta(stream)
        server.stop()
        assert_database_down(client, conversation_id)
        worker.finish()
        wait_for_log(caplog, "the database does not answer; trying again")
        server.start()
        events += [(event.event, event.json()) for event in stream]

    names = [name for name, _ in events]
    assert names == ["message", "sources", "quote", "delta", "delta", "support", "done"]
    assert (events[-1][1]["state"], events[-1][1]["stop_reason"]) == ("answered", "eos")
    [stored] = stored_messages(api_settings)
    assert (stored.state, stored.answer) == (
        MessageState.answered,
        ScriptedWorker.FIRST + ScriptedWorker.REST,
    )
    assert client.get("/api/health").json()["database"] == "ok"
    assert [c["id"] for c in client.get("/api/conversations").json()] == [conversation_id]


def test_an_answer_that_ends_while_postgres_stays_down_tells_the_user_and_is_stored_once_it_is_back(
    clinician: Clinician,
    worker: ScriptedWorker,
    server: ThrowawayPostgres,
    chat_runtime: ChatRuntime,
    api_settings: ApiSettings,
) -> None:
    chat_runtime.settings = chat_runtime.settings.model_copy(update={"answer_save_retry_seconds": 1.0})
    client, conversation_id = clinician("ann")

    url = f"/api/conversations/{conversation_id}/messages"
    with connect_sse(client, "POST", url, json={"question": ANSWERABLE}) as source:
        stream = source.iter_sse()
        events = until_first_delta(stream)
        server.stop()
        worker.finish()
        events += [(event.event, event.json()) for event in stream]
    server.start()

    names = [name for name, _ in events]
    assert names == ["message", "sources", "quote", "delta", "delta", "error", "support", "done"]
    assert events[5][1]["message"] == NOT_SAVED_MESSAGE
    stored = stored_later(api_settings)
    assert (stored.state, stored.stop_reason) == (MessageState.answered, "eos")
    assert stored.answer == events[3][1]["text"] + events[4][1]["text"]
    assert client.get("/api/conversations").status_code == 200
