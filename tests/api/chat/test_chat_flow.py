"""The chat end to end: a clinician's question → retrieval over the sample PDFs → the Dutch bracketed prompt →
a real worker process → server-sent events → the stored message; and every way an answer can end otherwise."""

import time

from httpx_sse import connect_sse

from api.chat.abstention import NOT_FOUND_MESSAGE
from api.chat.runtime import ChatRetriever, ChatRuntime, pool_from_settings
from api.chat.settings import ChatSettings
from api.models import Message, MessageState
from api.settings import ApiSettings
from ingest.retrieval import Retrieval
from ingest.search.types import SearchFilter
from research.local_process import free_port
from tests.api.chat.conftest import Clinician, ask, stored_messages
from tests.api.chat.servers import RecordingRelay

ANSWERABLE = "Hoe lang moet ik mijn handen wrijven met handalcohol?"
OFF_TOPIC = (
    "Wat is de hoofdstad van Frankrijk?"  # far from every sample procedure: below e5-small's dense gate
)
NEAR_THE_TOPIC = (
    "isolatiemaatregelen bij mazelen"  # no sample procedure is about measles, one is about isolation
)


def expected_prompt(question: str, sources: list[dict[str, str]]) -> str:
    """The source system's template, written out here on its own (not through api.prompting)."""
    documents = "\n—\n".join(f"Titel: {s['title']}\nTekst: {s['passage']}" for s in sources)
    return (
        "[begin context]\nJij bent een dokter. Jij kent alle medische procedures van het UZGent.\n"
        "Beantwoord de vraag in één of twee zinnen, alleen met wat in de documenten staat. Staat het antwoord niet "
        'in de documenten, antwoord dan "niet gevonden".\n[einde context]\n\n'
        f"[begin documenten]\n{documents}\n[einde documenten]\n\n"
        f"[begin vraag]\n{question}\n[einde vraag]\n\n"
        "[begin antwoord]\n"
    )


def test_a_question_streams_its_sources_then_the_answer_and_the_worker_got_exactly_the_bracketed_prompt(
    chat_settings: ChatSettings, clinician: Clinician, relay: RecordingRelay, api_settings: ApiSettings
) -> None:
    chat_settings.answer_quote_first = False  # the source system's template: the retrieved passages only
    client, conversation_id = clinician("ann")

    events = ask(client, conversation_id, question=ANSWERABLE)

    names = [name for name, _ in events]
    assert names[:3] == ["message", "sources", "quote"] and names[-2:] == ["support", "done"]
    assert set(names[3:-2]) == {"delta"}
    message_id = events[0][1]["message_id"]
    assert events[0][1] == {"message_id": message_id, "conversation_id": conversation_id}
    sources = events[1][1]["sources"]
    assert events[1][1]["not_found"] is False
    assert len(sources) == 3 and sources[0]["title"] == "Handhygiëne en handalcohol"
    assert "20 tot 30 seconden" in " ".join(source["passage"] for source in sources)
    done = events[-1][1]
    assert done["state"] == "answered"
    assert done["stop_reason"] in {"eos", "stop_string", "length", "repetition"}
    assert done["stats"]["worker"]["new_tokens"] >= 1

    [body] = relay.generate_bodies()
    assert body["prompt"] == expected_prompt(ANSWERABLE, sources)
    assert body["context"] == [f"Titel: {s['title']}\nTekst: {s['passage']}" for s in sources]
    assert body["stop"] == ["[einde antwoord]", "[begin"]

    quote = events[2][1]["quote"]
    assert quote["text"] == "3. Wrijf de handen 20 tot 30 seconden in tot ze volledig droog zijn."
    assert sources[quote["source_index"]]["passage"][quote["start"] : quote["end"]] == quote["text"]
    support = events[-2][1]
    answer = "".join(data["text"] for name, data in events if name == "delta")
    assert [answer[s["start"] : s["end"]] for s in support["sentences"]] == [
        s["text"] for s in support["sentences"]
    ]

    [stored] = stored_messages(api_settings)
    assert (stored.quote, stored.sentences, stored.support_warning) == (
        quote,
        support["sentences"],
        support["warning"],
    )
    assert stored.id == message_id
    assert stored.question == ANSWERABLE
    assert stored.answer == "".join(data["text"] for name, data in events if name == "delta")
    assert (stored.state, stored.stop_reason) == (MessageState.answered, done["stop_reason"])
    assert stored.sources == sources
    assert stored.model and stored.method == "casd"
    assert stored.finished_at is not None


def test_by_default_the_worker_reads_the_quoted_sentence_before_the_retrieved_passages(
    clinician: Clinician, relay: RecordingRelay
) -> None:
    client, conversation_id = clinician("ann")

    events = ask(client, conversation_id, question=ANSWERABLE)

    sources = events[1][1]["sources"]
    quote = events[2][1]["quote"]
    assert quote["text"] == "3. Wrijf de handen 20 tot 30 seconden in tot ze volledig droog zijn."
    quoted = {"title": quote["title"], "passage": quote["text"]}
    [body] = relay.generate_bodies()
    assert body["prompt"] == expected_prompt(ANSWERABLE, [quoted, *sources])
    assert body["context"] == [f"Titel: {s['title']}\nTekst: {s['passage']}" for s in [quoted, *sources]]
    assert events[-1][1]["state"] == "answered"


def test_the_quote_precedes_the_first_delta_on_the_wire_and_the_stored_message_comes_back_with_it(
    clinician: Clinician, chat_url: str
) -> None:
    client, conversation_id = clinician("ann")
    url = f"/api/conversations/{conversation_id}/messages"

    with client.stream("POST", url, json={"question": ANSWERABLE}) as response:
        raw = response.read().decode()

    quote_at, delta_at, support_at = (raw.index(f"event: {name}") for name in ("quote", "delta", "support"))
    assert raw.index("event: sources") < quote_at < delta_at < support_at < raw.index("event: done")
    [message] = client.get(f"/api/conversations/{conversation_id}").json()["messages"]
    assert message["quote"]["text"] == "3. Wrijf de handen 20 tot 30 seconden in tot ze volledig droog zijn."
    assert isinstance(message["sentences"], list) and isinstance(message["support_warning"], bool)
    assert all(s["citation"] in (None, 1, 2, 3) for s in message["sentences"])


def test_an_off_topic_question_gets_the_fixed_message_and_the_closest_documents_without_the_model(
    clinician: Clinician, relay: RecordingRelay, api_settings: ApiSettings
) -> None:
    client, conversation_id = clinician("ann")

    events = ask(client, conversation_id, question=OFF_TOPIC)

    assert [name for name, _ in events] == ["message", "sources", "quote", "delta", "done"]
    assert events[1][1]["not_found"] is True
    assert len(events[1][1]["sources"]) == 3  # the closest documents are still listed
    assert events[2][1] == {"quote": None}  # nothing is quoted from documents that do not answer
    assert events[3][1] == {"text": NOT_FOUND_MESSAGE}
    assert events[4][1]["state"] == "not_found"
    assert relay.generate_bodies() == []  # the model was never asked
    [stored] = stored_messages(api_settings)
    assert (stored.state, stored.answer) == (MessageState.not_found, NOT_FOUND_MESSAGE)


def test_a_question_near_the_documents_topic_goes_to_the_generator_which_may_say_not_found_itself(
    clinician: Clinician, relay: RecordingRelay
) -> None:
    """The dense gate refuses only what is far from every passage; word coverage is off by default, so a question
    in other words than the documents' is not refused for its words."""
    client, conversation_id = clinician("ann")

    events = ask(client, conversation_id, question=NEAR_THE_TOPIC)

    assert events[1][1]["not_found"] is False
    assert len(relay.generate_bodies()) == 1  # the model was asked
    assert events[-1][1]["state"] in {"answered", "not_found"}


def test_retrieval_only_lists_documents_and_passages_and_generates_nothing(
    clinician: Clinician, relay: RecordingRelay, api_settings: ApiSettings
) -> None:
    client, conversation_id = clinician("ann")

    events = ask(client, conversation_id, question=ANSWERABLE, retrieval_only=True)

    assert [name for name, _ in events] == ["message", "sources", "quote", "done"]
    assert events[1][1]["sources"][0]["title"] == "Handhygiëne en handalcohol"
    quote = events[2][1]["quote"]
    assert "20 tot 30 seconden" in quote["text"]  # documents only still quotes the answering sentence
    assert events[3][1]["state"] == "retrieval_only"
    assert relay.generate_bodies() == []
    [stored] = stored_messages(api_settings)
    assert (stored.state, stored.answer, stored.retrieval_only) == (MessageState.retrieval_only, "", True)
    assert (stored.quote, stored.sentences) == (quote, [])


def test_the_deployment_can_force_retrieval_only_on(
    chat_settings: ChatSettings, clinician: Clinician, relay: RecordingRelay
) -> None:
    chat_settings.retrieval_only = True
    client, conversation_id = clinician("ann")

    events = ask(client, conversation_id, question=ANSWERABLE, retrieval_only=False)

    assert events[-1][1]["state"] == "retrieval_only"
    assert relay.generate_bodies() == []


def test_the_deployment_can_refuse_retrieval_only(
    chat_settings: ChatSettings, clinician: Clinician, api_settings: ApiSettings
) -> None:
    chat_settings.retrieval_only = False
    client, conversation_id = clinician("ann")

    response = client.post(
        f"/api/conversations/{conversation_id}/messages",
        json={"question": ANSWERABLE, "retrieval_only": True},
    )

    assert response.status_code == 403
    assert "uitgeschakeld" in response.json()["detail"]
    assert stored_messages(api_settings) == []


def test_the_users_metadata_filters_steer_retrieval(clinician: Clinician) -> None:
    client, conversation_id = clinician("ann")

    events = ask(
        client, conversation_id, question="insuline toedienen", retrieval_only=True, audiences=["kinderen"]
    )

    titles = {source["title"] for source in events[1][1]["sources"]}
    assert titles == {"Insulinepomp bij kinderen met diabetes type 1"}


def test_a_worker_that_dies_mid_answer_leaves_the_message_stored_with_what_was_generated(
    clinician: Clinician, relay: RecordingRelay, api_settings: ApiSettings
) -> None:
    relay.after_first_delta = "break"
    client, conversation_id = clinician("ann")

    events = ask(client, conversation_id, question=ANSWERABLE)

    names = [name for name, _ in events]
    assert names == ["message", "sources", "quote", "delta", "error", "support", "done"]
    assert "onderbroken" in events[4][1]["message"]
    assert (events[6][1]["state"], events[6][1]["stop_reason"]) == ("failed", "worker_failed")
    [stored] = stored_messages(api_settings)
    assert (stored.state, stored.stop_reason) == (MessageState.failed, "worker_failed")
    assert stored.answer == events[3][1]["text"] != ""
    assert stored.sentences == events[5][1]["sentences"]  # the part generated was checked too


def test_a_client_that_goes_away_mid_answer_leaves_the_message_stored_as_stopped(
    clinician: Clinician, relay: RecordingRelay, api_settings: ApiSettings
) -> None:
    relay.after_first_delta = "pause"
    client, conversation_id = clinician("ann")

    url = f"/api/conversations/{conversation_id}/messages"
    with connect_sse(client, "POST", url, json={"question": ANSWERABLE}) as source:
        for event in source.iter_sse():
            if event.event == "delta":
                first = event.json()["text"]
                break

    stored = wait_until_final(api_settings)
    assert (stored.state, stored.stop_reason) == (MessageState.stopped, "client_disconnected")
    assert stored.answer == first


def test_the_stop_route_ends_an_answer_in_progress(
    clinician: Clinician, relay: RecordingRelay, api_settings: ApiSettings
) -> None:
    relay.after_first_delta = "pause"
    client, conversation_id = clinician("ann")
    other, _ = clinician("bob")

    events = []
    url = f"/api/conversations/{conversation_id}/messages"
    with connect_sse(client, "POST", url, json={"question": ANSWERABLE}) as source:
        for event in source.iter_sse():
            events.append((event.event, event.json()))
            if event.event == "delta":
                message_id = events[0][1]["message_id"]
                assert other.post(f"/api/messages/{message_id}/stop").status_code == 404
                assert client.post(f"/api/messages/{message_id}/stop").status_code == 204

    assert (events[-1][1]["state"], events[-1][1]["stop_reason"]) == ("stopped", "user_stopped")
    assert events[-2][0] == "support"  # an answer cut by stop is checked as far as it went
    [stored] = stored_messages(api_settings)
    assert (stored.state, stored.answer) == (MessageState.stopped, events[3][1]["text"])
    assert stored.sentences == events[-2][1]["sentences"]
    finished = client.post(f"/api/messages/{message_id}/stop")
    assert finished.status_code == 409  # nothing is generated any more: the answer says so
    assert "niets te stoppen" in finished.json()["detail"]


class CountingRetriever:
    """The real retriever, counting the questions it was asked."""

    def __init__(self, retriever: ChatRetriever) -> None:
        self.retriever = retriever
        self.asked: list[str] = []

    def retrieve(
        self, question: str, *, top_k: int | None = None, filters: SearchFilter | None = None
    ) -> Retrieval:
        self.asked.append(question)
        return self.retriever.retrieve(question, top_k=top_k, filters=filters)


def test_with_no_worker_ready_the_answer_is_503_with_retry_after_before_retrieval_and_nothing_is_stored(
    chat_runtime: ChatRuntime, clinician: Clinician, api_settings: ApiSettings
) -> None:
    nobody_listens = ChatSettings(
        worker_urls=[f"http://127.0.0.1:{free_port()}"], worker_retry_after_seconds=7
    )
    chat_runtime.pool = pool_from_settings(nobody_listens)
    chat_runtime.retriever = retriever = CountingRetriever(chat_runtime.retriever)
    client, conversation_id = clinician("ann")

    response = client.post(f"/api/conversations/{conversation_id}/messages", json={"question": ANSWERABLE})

    assert response.status_code == 503
    assert response.headers["Retry-After"] == "7"
    assert "geen taalmodel beschikbaar" in response.json()["detail"]
    assert retriever.asked == []  # refused on arrival: a full burst is not embedded only to be refused
    assert stored_messages(api_settings) == []


def test_with_no_worker_ready_documents_only_still_answers(
    chat_runtime: ChatRuntime, clinician: Clinician, api_settings: ApiSettings
) -> None:
    chat_runtime.pool = pool_from_settings(ChatSettings(worker_urls=[f"http://127.0.0.1:{free_port()}"]))
    client, conversation_id = clinician("ann")

    events = ask(client, conversation_id, question=ANSWERABLE, retrieval_only=True)

    assert events[-1][1]["state"] == "retrieval_only"
    assert len(events[1][1]["sources"]) == 3
    [stored] = stored_messages(api_settings)
    assert stored.state == MessageState.retrieval_only


def test_nobody_asks_in_or_stops_in_someone_elses_conversation(
    clinician: Clinician, api_settings: ApiSettings
) -> None:
    _, anns_conversation = clinician("ann")
    bob, _ = clinician("bob")

    asked = bob.post(f"/api/conversations/{anns_conversation}/messages", json={"question": ANSWERABLE})
    stopped = bob.post("/api/messages/999999/stop")
    blank = bob.post(f"/api/conversations/{anns_conversation}/messages", json={"question": "   "})

    assert (asked.status_code, stopped.status_code, blank.status_code) == (404, 404, 422)
    assert stored_messages(api_settings) == []


def test_questions_refused_for_someone_elses_conversation_take_no_place_on_the_worker(
    clinician: Clinician, api_settings: ApiSettings
) -> None:
    _, anns_conversation = clinician("ann")
    bob, bobs_conversation = clinician("bob")
    for _ in range(12):  # more than the worker's queue holds
        refused = bob.post(f"/api/conversations/{anns_conversation}/messages", json={"question": ANSWERABLE})
        assert refused.status_code == 404

    events = ask(bob, bobs_conversation, question=ANSWERABLE)

    assert events[-1][1]["state"] == "answered"


def wait_until_final(api_settings: ApiSettings, timeout: float = 30) -> Message:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        [stored] = stored_messages(api_settings)
        if stored.state != MessageState.generating:
            return stored
        time.sleep(0.05)
    raise AssertionError("the message was never finished")
