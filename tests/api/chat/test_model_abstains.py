"""The adapted generator answers with the chat's fixed "not found" message when the passages hold no answer: the
chat then closes the answer as not found — the nearest documents, no sentence flagged as unsupported — live and in
the history, as when its own abstention rule had found nothing."""

from collections.abc import Iterator

import pytest

from api.chat.abstention import NOT_FOUND_MESSAGE
from api.chat.settings import ChatSettings
from api.models import MessageState
from api.settings import ApiSettings
from tests.api.chat.conftest import Clinician, ask, stored_messages
from tests.api.chat.servers import ScriptedWorker
from tests.api.chat.test_chat_flow import ANSWERABLE

SPLIT = 20  # the worker streams the message in two deltas


@pytest.fixture
def worker() -> Iterator[ScriptedWorker]:
    with ScriptedWorker(first=NOT_FOUND_MESSAGE[:SPLIT], rest=NOT_FOUND_MESSAGE[SPLIT:]) as scripted:
        scripted.finish()  # no pause after the first delta
        yield scripted


@pytest.fixture
def chat_settings(worker: ScriptedWorker) -> ChatSettings:
    return ChatSettings(worker_urls=[worker.url], worker_health_ttl_seconds=0.0)


def test_a_generated_not_found_closes_the_answer_as_not_found_without_flags(
    clinician: Clinician, worker: ScriptedWorker, api_settings: ApiSettings
) -> None:
    client, conversation_id = clinician("ann")

    events = dict(ask(client, conversation_id, question=ANSWERABLE))

    assert events["sources"]["not_found"] is False  # retrieval found passages: the model was asked
    assert events["support"] == {"sentences": [], "warning": False}
    assert (events["done"]["state"], events["done"]["stop_reason"]) == ("not_found", None)
    [stored] = stored_messages(api_settings)
    assert (stored.state, stored.answer) == (MessageState.not_found, NOT_FOUND_MESSAGE)
    history = client.get(f"/api/conversations/{conversation_id}").json()
    assert [m["state"] for m in history["messages"]] == ["not_found"]
