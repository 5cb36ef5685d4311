"""Answer quality through the real chat path: each question of the evaluator's answer report asked and judged.

Every question is asked through the chat's own `prepare → store → stream` (the route's steps, without HTTP and
sign-in) against a temporary SQLite database migrated to head. Recorded per question: whether a relevant document
is among the retrieved passages (the `sources` event) and whether one of those passages holds the key fact, the
quote, the generated answer, the `support` event, the final state and stop reason, and the time from arrival to
the `quote` event and to the first text. Reported: document Hit@k and chunk recall (the key fact in one of the k
passages shown) next to the key-fact rate of the quote (verbatim) and of the answer (in its own words) — the
question's `answer` key phrase, `api.evaluator.key_facts`, the quote's rate where a passage holds the fact, the share of generated
sentences supported and flagged, supported sentences of answers that miss the key fact ("cited but not the
answer"), generated numbers shown without support (each flagged), "niet gevonden" on unanswerable and on
answerable questions, looping answers (stopped by the repetition guard), and the timings: the summary and the
report's files are `api.evaluator.answer_report`. The web page's report runs it with the API's workers
(`api.evaluator.reports`); `python -m research.evaluate --answers` with a worker it starts itself
(`research.offline_answers`).
"""

import asyncio
import json
import logging
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from api.answers.matching import numbers
from api.chat import answering
from api.chat.runtime import ChatRetriever, ChatRuntime, pool_from_settings
from api.chat.settings import ChatSettings
from api.database_schema import migrate
from api.evaluator.key_facts import answer_holds_key_fact, holds_key_fact
from api.evaluator.queries import EvalQuery
from api.evaluator.resolution import DocumentResolver
from api.models import Conversation, MessageState, Role
from api.services import users
from ingest.database import get_engine

log = logging.getLogger(__name__)


@dataclass
class AnswerObservation:
    question: str
    answerable: bool
    key_phrase: str | None
    document_in_sources: bool | None = None  # a relevant document among the passages shown (None: unresolved)
    passages_have_fact: bool | None = None  # one of the passages shown holds the key fact
    state: str = ""
    stop_reason: str | None = None
    quote: str | None = None
    answer: str = ""
    quote_has_fact: bool | None = None
    answer_has_fact: bool | None = None
    sentences: int = 0
    supported: int = 0
    flagged: int = 0
    cited_not_answer: int = 0  # supported sentences of an answer that does not hold the key fact
    numbers_unchecked: int = 0  # sentences stating a number, neither supported nor flagged (must stay 0)
    warning: bool = False
    seconds_to_sources: float | None = None
    seconds_to_quote: float | None = None
    seconds_to_text: float | None = None
    support: list[dict[str, Any]] = field(default_factory=list)


Progress = Callable[[int, int], None]


def ask_through_chat(
    retriever: ChatRetriever,
    chat: ChatSettings,
    hospital: str,
    embedding_model: str,
    queries: Sequence[EvalQuery],
    progress: Progress | None = None,
    resolver: DocumentResolver | None = None,
) -> list[AnswerObservation]:
    """Ask every question through the chat's steps with `retriever` (its index embedded by `embedding_model`, whose
    calibrated dense gate the not-found rule uses) and the workers of `chat`, storing the
    messages in a temporary SQLite database (the evaluator's questions stay out of every real history);
    `progress(done, total)` after each question; `resolver` tells which indexed documents a question's
    `relevant_documents` name (without it, no document hit is recorded). Runs its own event loop: call it from a
    worker thread."""
    with tempfile.TemporaryDirectory(prefix="vraagbaak-answers-db-") as folder:
        database_url = f"sqlite:///{Path(folder) / 'answers.db'}"
        migrate(database_url)
        conversation_id = _conversation(database_url)
        try:
            return asyncio.run(
                _ask_all(
                    retriever,
                    chat,
                    database_url,
                    hospital,
                    embedding_model,
                    conversation_id,
                    queries,
                    progress,
                    resolver,
                )
            )
        finally:
            get_engine(database_url).dispose()


def _conversation(database_url: str) -> int:
    with Session(get_engine(database_url)) as db:
        user = users.create_user(db, "evaluatie", None, [Role.evaluator])
        conversation = Conversation(user_id=user.id, title="Evaluatie")
        db.add(conversation)
        db.commit()
        return conversation.id


async def _ask_all(
    retriever: ChatRetriever,
    chat: ChatSettings,
    database_url: str,
    hospital: str,
    embedding_model: str,
    conversation_id: int,
    queries: Sequence[EvalQuery],
    progress: Progress | None,
    resolver: DocumentResolver | None,
) -> list[AnswerObservation]:
    pool = pool_from_settings(chat)  # its HTTP client belongs to this event loop
    runtime = ChatRuntime(retriever, pool, chat, database_url, hospital, embedding_model)
    observations = []
    try:
        for number, query in enumerate(queries, start=1):
            observation = await _ask(runtime, conversation_id, query, resolver)
            log.info(
                "%d/%d %s: %s, quote %s, answer %s",
                number,
                len(queries),
                query.question,
                observation.state,
                observation.quote_has_fact,
                observation.answer_has_fact,
            )
            observations.append(observation)
            if progress is not None:
                progress(number, len(queries))
    finally:
        await pool.aclose()
        runtime.close()
    return observations


async def _ask(
    runtime: ChatRuntime, conversation_id: int, query: EvalQuery, resolver: DocumentResolver | None
) -> AnswerObservation:
    observation = AnswerObservation(query.question, bool(query.relevant_documents), query.answer)
    received = time.perf_counter()
    question = answering.Question(conversation_id, query.question, retrieval_only=False)
    prepared = await answering.prepare(runtime, question, received)
    message_id = await answering.store(runtime, prepared)
    parts: list[str] = []
    async for event in answering.stream(runtime, prepared, message_id):
        name, data = event["event"], json.loads(event["data"])
        elapsed = time.perf_counter() - received
        if name == "sources":
            observation.seconds_to_sources = elapsed
            _judge_sources(observation, query, data["sources"], resolver)
        elif name == "quote":
            observation.seconds_to_quote = elapsed
            observation.quote = data["quote"]["text"] if data["quote"] else None
        elif name == "delta":
            if observation.seconds_to_text is None:
                observation.seconds_to_text = elapsed
            parts.append(data["text"])
        elif name == "support":
            observation.support = data["sentences"]
            observation.warning = data["warning"]
        elif name == "done":
            observation.state, observation.stop_reason = data["state"], data["stop_reason"]
    observation.answer = "".join(parts)
    _judge(observation)
    return observation


def _judge_sources(
    observation: AnswerObservation,
    query: EvalQuery,
    sources: Sequence[dict[str, Any]],
    resolver: DocumentResolver | None,
) -> None:
    """Whether the passages shown come from a relevant document, and whether one of them holds the key fact."""
    if resolver is not None and query.relevant_documents:
        relevant = frozenset().union(*(resolver.resolve(name) for name in query.relevant_documents))
        if relevant:
            observation.document_in_sources = any(source["document_id"] in relevant for source in sources)
    if query.answer:
        observation.passages_have_fact = any(
            holds_key_fact(source["passage"], query.answer) for source in sources
        )


def _judge(observation: AnswerObservation) -> None:
    generated = observation.state != MessageState.not_found
    if observation.key_phrase:
        observation.quote_has_fact = holds_key_fact(observation.quote, observation.key_phrase)
        observation.answer_has_fact = generated and answer_holds_key_fact(
            observation.answer, observation.key_phrase
        )
    observation.sentences = len(observation.support)
    observation.supported = sum(bool(s["supported"]) for s in observation.support)
    observation.flagged = observation.sentences - observation.supported
    if observation.key_phrase and not observation.answer_has_fact:
        observation.cited_not_answer = observation.supported
    # every reported sentence is supported or flagged; a number in text no sentence covers would be unchecked
    uncovered = list(observation.answer)
    for sentence in observation.support:
        uncovered[sentence["start"] : sentence["end"]] = " " * (sentence["end"] - sentence["start"])
    observation.numbers_unchecked = len(numbers("".join(uncovered))) if generated else 0
