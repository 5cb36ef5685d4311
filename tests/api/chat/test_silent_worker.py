"""A worker that stays alive and accepts the question but then sends nothing (no event, no keep-alive): the API
gives up after WORKER_SILENCE_SECONDS, keeps what was written with the reason, and tells the user in Dutch; one
that does not even answer the request's headers is refused like a worker that cannot be reached."""

import time
from collections.abc import Iterator

import pytest

from api.chat.answering import WORKER_SILENT_MESSAGE
from api.chat.settings import ChatSettings
from api.models import MessageState
from api.settings import ApiSettings
from tests.api.chat.conftest import Clinician, ask, stored_messages
from tests.api.chat.servers import ScriptedWorker
from tests.api.chat.test_chat_flow import ANSWERABLE

SILENCE = 2.0


@pytest.fixture
def worker(request: pytest.FixtureRequest) -> Iterator[ScriptedWorker]:
    with ScriptedWorker(mute=getattr(request, "param", False)) as scripted:
        yield scripted


@pytest.fixture
def chat_settings(worker: ScriptedWorker) -> ChatSettings:
    return ChatSettings(
        worker_urls=[worker.url], worker_health_ttl_seconds=0.0, worker_silence_seconds=SILENCE
    )


def test_a_worker_silent_mid_answer_is_given_up_after_the_set_time_and_the_answer_so_far_kept(
    clinician: Clinician, worker: ScriptedWorker, api_settings: ApiSettings
) -> None:
    client, conversation_id = clinician("ann")

    began = time.monotonic()
    events = ask(client, conversation_id, question=ANSWERABLE)
    took = time.monotonic() - began

    names = [name for name, _ in events]
    assert names == ["message", "sources", "quote", "delta", "error", "support", "done"]
    assert events[4][1]["message"] == WORKER_SILENT_MESSAGE
    assert (events[6][1]["state"], events[6][1]["stop_reason"]) == ("failed", "worker_silent")
    assert took >= SILENCE  # given up by the API after the set silence (the stop reason above), never before
    [stored] = stored_messages(api_settings)
    assert (stored.state, stored.stop_reason) == (MessageState.failed, "worker_silent")
    assert stored.answer == ScriptedWorker.FIRST
    assert stored.finished_at is not None


@pytest.mark.parametrize("worker", [True], indirect=True, ids=["mute"])
def test_a_worker_that_never_answers_the_request_is_refused_with_503_and_nothing_stored(
    clinician: Clinician, worker: ScriptedWorker, api_settings: ApiSettings
) -> None:
    client, conversation_id = clinician("ann")

    response = client.post(f"/api/conversations/{conversation_id}/messages", json={"question": ANSWERABLE})

    assert response.status_code == 503
    assert "taalmodel" in response.json()["detail"]
    assert worker.generate_requests == 1
    assert stored_messages(api_settings) == []
