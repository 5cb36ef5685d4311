"""A generator says when the passages hold no answer — "niet gevonden", as the prompt asks, or the chat's own fixed
message (the adapted Gemma): the chat then closes the answer as not found — the fixed message, the nearest
documents, no sentence flagged as unsupported — live and in the history, as when retrieval had found nothing. The
client never sees the model's own wording: a beginning that may still turn into "niet gevonden" is held back
until the text goes another way."""

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


REPLIES = {
    "fixed message": (NOT_FOUND_MESSAGE[:SPLIT], NOT_FOUND_MESSAGE[SPLIT:]),
    "niet gevonden": ("Niet gev", "onden."),
    "quoted": ('"niet', ' gevonden"'),
}


@pytest.fixture
def worker(request: pytest.FixtureRequest) -> Iterator[ScriptedWorker]:
    """Streams `request.param`'s two deltas (tests parametrize it indirectly)."""
    first, rest = request.param
    with ScriptedWorker(first=first, rest=rest) as scripted:
        scripted.finish()  # no pause after the first delta
        yield scripted


@pytest.fixture
def chat_settings(worker: ScriptedWorker) -> ChatSettings:
    return ChatSettings(worker_urls=[worker.url], worker_health_ttl_seconds=0.0)


@pytest.mark.parametrize("worker", list(REPLIES.values()), ids=list(REPLIES), indirect=True)
def test_a_generated_not_found_closes_the_answer_as_not_found_without_flags(
    clinician: Clinician, worker: ScriptedWorker, api_settings: ApiSettings
) -> None:
    client, conversation_id = clinician("ann")

    ask_events = ask(client, conversation_id, question=ANSWERABLE)
    events = dict(ask_events)

    assert events["sources"]["not_found"] is False  # retrieval found passages: the model was asked
    deltas = [data["text"] for name, data in ask_events if name == "delta"]
    assert deltas == [NOT_FOUND_MESSAGE]
    assert events["support"] == {"sentences": [], "warning": False}
    assert (events["done"]["state"], events["done"]["stop_reason"]) == ("not_found", None)
    [stored] = stored_messages(api_settings)
    assert (stored.state, stored.answer) == (MessageState.not_found, NOT_FOUND_MESSAGE)
    history = client.get(f"/api/conversations/{conversation_id}").json()
    assert [m["state"] for m in history["messages"]] == ["not_found"]


@pytest.mark.parametrize(
    "worker",
    [("Niet ", "meer dan twee glazen per dag."), ("N", "ee, niet zonder overleg.")],
    ids=["niet meer", "nee"],
    indirect=True,
)
def test_an_answer_that_only_begins_like_not_found_is_sent_whole(
    worker: ScriptedWorker, clinician: Clinician, api_settings: ApiSettings
) -> None:
    client, conversation_id = clinician("bob")

    events = ask(client, conversation_id, question=ANSWERABLE)

    whole = worker.first + worker.rest
    assert "".join(data["text"] for name, data in events if name == "delta") == whole
    assert dict(events)["done"]["state"] == "answered"
    [stored] = stored_messages(api_settings)
    assert (stored.state, stored.answer) == (MessageState.answered, whole)
