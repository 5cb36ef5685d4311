"""However an answer's stream ends, its worker stream is closed and its message stored as ended: also when the
client leaves before the first word (the stream is closed while it yields its first events), and when the worker
keeps the connection alive but never finishes (the API's own limit per answer, ANSWER_TIMEOUT_SECONDS)."""

import asyncio
import time
from collections.abc import Iterator

import pytest
from httpx_sse import connect_sse
from sqlalchemy import update
from sqlalchemy.orm import Session

from api.chat import answering
from api.chat.instances import API_INTERRUPTED
from api.chat.runtime import ChatRuntime
from api.chat.settings import ChatSettings
from api.models import Message, MessageState
from api.settings import ApiSettings
from ingest.database import get_engine
from tests.api.chat.conftest import Clinician, clinician_token, stored_messages
from tests.api.chat.servers import ScriptedWorker
from tests.api.chat.test_chat_flow import ANSWERABLE


@pytest.fixture
def worker() -> Iterator[ScriptedWorker]:
    with ScriptedWorker() as scripted:
        yield scripted


@pytest.fixture
def chat_settings(worker: ScriptedWorker) -> ChatSettings:
    return ChatSettings(worker_urls=[worker.url], worker_health_ttl_seconds=0.0, worker_silence_seconds=30)


def test_a_client_leaving_at_the_first_event_closes_the_worker_stream_and_ends_the_message(
    chat_runtime: ChatRuntime, worker: ScriptedWorker, api_settings: ApiSettings
) -> None:
    _, conversation_id = clinician_token(api_settings.database_url, "ann")

    async def leave_after_the_first_event() -> tuple[str, int]:
        question = answering.Question(conversation_id, ANSWERABLE, retrieval_only=False)
        prepared = await answering.prepare(chat_runtime, question, time.perf_counter())
        message_id = await answering.store(chat_runtime, prepared)
        events = answering.stream(chat_runtime, prepared, message_id)
        first = await anext(events)
        await events.aclose()  # what the response does when the client has gone
        for _ in range(100):  # the worker notices the closed connection
            if worker.hung_up:
                break
            await asyncio.sleep(0.05)
        hung_up = worker.hung_up
        await chat_runtime.pool.aclose()
        return str(first["event"]), hung_up

    # the API closed its request to the worker while the pool still holds its connections
    assert asyncio.run(leave_after_the_first_event()) == ("message", 1)
    [stored] = stored_messages(api_settings)
    assert (stored.state, stored.stop_reason) == (MessageState.stopped, "client_disconnected")


def test_a_stop_reaches_the_local_stream_even_when_another_process_closed_its_message_in_the_database(
    clinician: Clinician, api_settings: ApiSettings
) -> None:
    """After a database outage longer than INSTANCE_STALE_SECONDS a replica may take this one for dead and close
    its answer in the database while it still streams: the user's stop must still end it."""
    client, conversation_id = clinician("ann")
    url = f"/api/conversations/{conversation_id}/messages"
    events = []
    with connect_sse(client, "POST", url, json={"question": ANSWERABLE}) as source:
        for event in source.iter_sse():
            events.append((event.event, event.json()))
            if event.event == "delta":
                message_id = events[0][1]["message_id"]
                _closed_by_another_process(api_settings, message_id)
                stop = client.post(f"/api/messages/{message_id}/stop")
                assert stop.status_code == 204, stop.text

    assert (events[-1][1]["state"], events[-1][1]["stop_reason"]) == ("stopped", "user_stopped")
    [stored] = stored_messages(api_settings)
    assert (stored.state, stored.stop_reason) == (MessageState.stopped, "user_stopped")


def _closed_by_another_process(api_settings: ApiSettings, message_id: int) -> None:
    with Session(get_engine(api_settings.database_url)) as db:
        db.execute(
            update(Message)
            .where(Message.id == message_id)
            .values(state=MessageState.failed, stop_reason=API_INTERRUPTED)
        )
        db.commit()
