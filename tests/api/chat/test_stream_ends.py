"""However an answer's stream ends, its worker stream is closed and its message stored as ended: also when the
client leaves before the first word (the stream is closed while it yields its first events), and when the worker
keeps the connection alive but never finishes (the API's own limit per answer, ANSWER_TIMEOUT_SECONDS)."""

import asyncio
import time
from collections.abc import Iterator

import pytest

from api.chat import answering
from api.chat.runtime import ChatRuntime
from api.chat.settings import ChatSettings
from api.models import MessageState
from api.settings import ApiSettings
from tests.api.chat.conftest import clinician_token, stored_messages
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
