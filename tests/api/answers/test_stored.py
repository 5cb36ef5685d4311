"""A message stored as the chat stores it (quote at creation, support at completion) comes back with its quote,
its sentences and their citations, and the evaluators' feedback export carries them; SQLite and PostgreSQL."""

import csv
import io

from api.answers.quotes import select_quote
from api.answers.support import support
from api.chat import storage
from api.models import MessageState, Role
from api.settings import ApiSettings
from tests.api.conftest import SignIn

PASSAGE = (
    "5. Handalcohol: werkwijze\n"
    "1. Neem een handvol handalcohol (ongeveer 3 ml, twee pompslagen) in de holle, droge hand.\n"
    "3. Wrijf de handen 20 tot 30 seconden in tot ze volledig droog zijn.\n"
    "Handen wassen duurt 40 tot 60 seconden."
)
SOURCES = [
    {
        "document_id": "hh",
        "title": "Handhygiëne en handalcohol",
        "page_start": 2,
        "page_end": 2,
        "chunk_index": 3,
        "passage": PASSAGE,
        "score": 0.9,
    }
]
QUESTION = "hoe lang handen wrijven met handalcohol"
ANSWER = "Wrijf de handen 20 tot 30 seconden in. Het werkt tegen de sporen van C. difficile."


def test_a_stored_message_comes_back_with_its_quote_sentences_and_citations(
    sign_in: SignIn, api_settings: ApiSettings
) -> None:
    ann, eva = sign_in("ann", Role.clinician), sign_in("eva", Role.evaluator)
    conversation = ann.post("/api/conversations", json={}).json()["id"]
    quote = select_quote(QUESTION, SOURCES)
    url = api_settings.database_url
    message = storage.create_message(
        url, conversation, QUESTION, state=MessageState.generating, retrieval_only=False,
        sources=SOURCES, stats={}, quote=quote,
    )  # fmt: skip
    checked = support(ANSWER, SOURCES)
    storage.finish_message(
        url, message, answer=ANSWER, state=MessageState.answered, stop_reason="eos", method="casd", stats={},
        sentences=checked.sentences, support_warning=checked.warning,
    )  # fmt: skip
    ann.put(f"/api/messages/{message}/feedback/hh", json={"contains_answer": True})

    [shown] = ann.get(f"/api/conversations/{conversation}").json()["messages"]

    assert shown["quote"] == quote and quote is not None
    assert quote["text"] == "3. Wrijf de handen 20 tot 30 seconden in tot ze volledig droog zijn."
    first, second = shown["sentences"]
    assert (first["supported"], first["citation"]) == (True, 1)
    assert PASSAGE[first["source_start"] : first["source_end"]] == quote["text"]
    assert (second["supported"], second["citation"]) == (False, None)
    assert shown["support_warning"] is False  # one of two unsupported is not "most"
    [row] = csv.DictReader(io.StringIO(eva.get("/api/evaluator/feedback.csv").text))
    assert (row["quote"], row["supported_sentences"], row["support_warning"]) == (quote["text"], "1/2", "nee")


def test_an_old_message_has_no_quote_no_sentences_and_no_warning(
    sign_in: SignIn, api_settings: ApiSettings
) -> None:
    ann = sign_in("ann", Role.clinician)
    conversation = ann.post("/api/conversations", json={}).json()["id"]
    storage.create_message(
        api_settings.database_url, conversation, "vraag", state=MessageState.retrieval_only,
        retrieval_only=True, sources=[], stats={},
    )  # fmt: skip

    [shown] = ann.get(f"/api/conversations/{conversation}").json()["messages"]

    assert (shown["quote"], shown["sentences"], shown["support_warning"]) == (None, [], False)
