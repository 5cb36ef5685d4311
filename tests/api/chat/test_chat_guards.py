"""What keeps the chat safe to share: a user has at most CHAT_CONCURRENT_PER_USER questions answered at once,
filter lists are bounded, a message's stats hold no internal address, and the API signs its requests to a worker
that asks for a token (WORKER_TOKEN)."""

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from httpx_sse import connect_sse
from sqlalchemy.orm import Session

from api.chat.runtime import ChatRuntime, pool_from_settings
from api.chat.settings import ChatSettings
from api.models import MessageState
from api.services import users
from api.settings import ApiSettings
from ingest.database import get_engine
from research.loopback import worker_process
from tests.api.chat.conftest import Clinician, ask, stored_messages
from tests.api.chat.servers import RecordingRelay
from tests.api.chat.test_chat_flow import ANSWERABLE

WORKER_TOKEN = "the-workers-token-of-these-tests"


def test_a_user_has_at_most_the_configured_questions_answered_at_once(
    chat_settings: ChatSettings, chat_runtime: ChatRuntime, clinician: Clinician, api_settings: ApiSettings
) -> None:
    chat_settings.chat_concurrent_per_user = 2
    ann, anns_conversation = clinician("ann")
    bob, bobs_conversation = clinician("bob")
    ann_id = _user_id(api_settings, "ann")
    slots = chat_runtime.user_slots
    slots.take(ann_id, 2)  # two of ann's questions are being answered
    slots.take(ann_id, 2)
    url = f"/api/conversations/{anns_conversation}/messages"

    third = ann.post(url, json={"question": ANSWERABLE, "retrieval_only": True})
    others = ask(bob, bobs_conversation, question=ANSWERABLE, retrieval_only=True)

    assert third.status_code == 429
    assert "2 vragen tegelijk" in third.json()["detail"]
    assert others[-1][1]["state"] == "retrieval_only"  # the limit is per user
    slots.release(ann_id)  # one of them ended
    again = ask(ann, anns_conversation, question=ANSWERABLE, retrieval_only=True)
    assert again[-1][1]["state"] == "retrieval_only"
    assert (slots.running(ann_id), slots.running(_user_id(api_settings, "bob"))) == (1, 0)


def test_a_question_holds_its_place_until_its_answer_ends_or_its_client_leaves(
    chat_runtime: ChatRuntime, clinician: Clinician, api_settings: ApiSettings
) -> None:
    ann, conversation_id = clinician("ann")
    ann_id = _user_id(api_settings, "ann")
    url = f"/api/conversations/{conversation_id}/messages"

    held = []
    with connect_sse(ann, "POST", url, json={"question": ANSWERABLE}) as source:
        for event in source.iter_sse():
            held.append(chat_runtime.user_slots.running(ann_id))
            if event.event == "sources":
                break  # the client goes away mid-answer
    _wait_until_none_generating(api_settings)
    ask(ann, conversation_id, question=ANSWERABLE)  # answered to the end

    assert held[0] == 1
    assert chat_runtime.user_slots.running(ann_id) == 0


def _user_id(api_settings: ApiSettings, username: str) -> int:
    with Session(get_engine(api_settings.database_url)) as db:
        return users.require_user(db, username).id


def _wait_until_none_generating(api_settings: ApiSettings, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(message.state != MessageState.generating for message in stored_messages(api_settings)):
            return
        time.sleep(0.05)
    raise AssertionError("an answer was never finished")


@pytest.mark.parametrize(
    "filters",
    [
        {"audiences": [f"groep {i}" for i in range(51)]},
        {"departments": [f"dienst {i}" for i in range(51)]},
        {"audiences": ["x" * 201]},
        {"departments": [""]},
    ],
)
def test_filter_lists_are_bounded(clinician: Clinician, filters: dict[str, list[str]]) -> None:
    client, conversation_id = clinician("ann")

    response = client.post(
        f"/api/conversations/{conversation_id}/messages", json={"question": ANSWERABLE, **filters}
    )

    assert response.status_code == 422


def test_a_messages_stats_do_not_name_the_worker(clinician: Clinician, relay: RecordingRelay) -> None:
    client, conversation_id = clinician("ann")

    events = ask(client, conversation_id, question=ANSWERABLE)
    shown = client.get(f"/api/conversations/{conversation_id}").json()["messages"][0]["stats"]

    assert events[-1][1]["stats"]["worker"]["new_tokens"] >= 1
    for stats in (events[-1][1]["stats"], shown):
        assert "url" not in stats["worker"]
        assert relay.url not in json.dumps(stats) and "127.0.0.1" not in json.dumps(stats)


@pytest.fixture(scope="module")
def guarded_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("guarded-worker") / "worker.log"
    with worker_process(log, MAX_NEW_TOKENS="8", DRAFT_METHOD="casd", WORKER_TOKEN=WORKER_TOKEN) as url:
        yield url


def test_the_api_sends_the_workers_token(
    chat_runtime: ChatRuntime, clinician: Clinician, guarded_worker: str, api_settings: ApiSettings
) -> None:
    chat_runtime.pool = pool_from_settings(
        ChatSettings(worker_urls=[guarded_worker], worker_token=WORKER_TOKEN, worker_health_ttl_seconds=0)
    )
    client, conversation_id = clinician("ann")

    events = ask(client, conversation_id, question=ANSWERABLE)

    assert events[-1][1]["state"] == "answered"
    assert stored_messages(api_settings)[0].answer != ""


def test_a_wrong_worker_token_is_a_503_and_an_error_in_the_log(
    chat_runtime: ChatRuntime,
    clinician: Clinician,
    guarded_worker: str,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
) -> None:
    chat_runtime.pool = pool_from_settings(
        ChatSettings(
            worker_urls=[guarded_worker], worker_token="not-the-workers-token", worker_health_ttl_seconds=0
        )
    )
    client, conversation_id = clinician("ann")

    with caplog.at_level(logging.ERROR, logger="api.chat.worker_pool"):
        response = client.post(
            f"/api/conversations/{conversation_id}/messages", json={"question": ANSWERABLE}
        )

    assert response.status_code == 503
    assert "WORKER_TOKEN differs" in caplog.text
