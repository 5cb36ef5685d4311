"""Answer quality through the real chat path: the evaluator's answer report.

Every question is asked through the chat's own `prepare → store → stream` (the route's steps, without HTTP and
sign-in) against a temporary SQLite database migrated to head. Recorded per question: whether a relevant document
is among the retrieved passages (the `sources` event) and whether one of those passages holds the key fact, the
quote, the generated answer, the `support` event, the final state and stop reason, and the time from arrival to
the `quote` event and to the first text. Reported: document Hit@k and chunk recall (the key fact in one of the k
passages shown) next to the key-fact rate of the quote and of the answer (the question's `answer` key phrase,
normalised: `api.evaluator.key_facts`), the quote's rate where a passage holds the fact, the share of generated
sentences supported and flagged, supported sentences of answers that miss the key fact ("cited but not the
answer"), generated numbers shown without support (each flagged), "niet gevonden" on unanswerable and on
answerable questions, looping answers (stopped by the repetition guard), and the timings. The web page's report
runs it with the API's workers (`api.services.evaluation`); `python -m research.evaluate --answers` with a worker
it starts itself (`research.offline_answers`).
"""

import asyncio
import html
import json
import logging
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from api.answers.matching import numbers
from api.chat import answering
from api.chat.runtime import ChatRetriever, ChatRuntime, pool_from_settings
from api.chat.settings import ChatSettings
from api.csvfile import csv_text
from api.database_schema import migrate
from api.evaluator.key_facts import holds_key_fact
from api.evaluator.queries import EvalQuery
from api.evaluator.resolution import DocumentResolver
from api.models import Conversation, MessageState, Role
from api.services import users
from ingest.database import get_engine

log = logging.getLogger(__name__)

REPETITION = "repetition"


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
    queries: Sequence[EvalQuery],
    progress: Progress | None = None,
    resolver: DocumentResolver | None = None,
) -> list[AnswerObservation]:
    """Ask every question through the chat's steps with `retriever` and the workers of `chat`, storing the
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
                    retriever, chat, database_url, hospital, conversation_id, queries, progress, resolver
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
    conversation_id: int,
    queries: Sequence[EvalQuery],
    progress: Progress | None,
    resolver: DocumentResolver | None,
) -> list[AnswerObservation]:
    pool = pool_from_settings(chat)  # its HTTP client belongs to this event loop
    runtime = ChatRuntime(retriever, pool, chat, database_url, hospital)
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
        observation.answer_has_fact = generated and holds_key_fact(observation.answer, observation.key_phrase)
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


@dataclass(frozen=True)
class AnswerSummary:
    questions: int
    answerable_with_key: int
    document_hit_rate: float | None
    passage_key_fact_rate: float | None
    quote_key_fact_rate: float | None
    quote_key_fact_when_passages: float | None
    answer_key_fact_rate: float | None
    sentences: int
    supported_share: float | None
    flagged_share: float | None
    cited_not_answer: int
    warnings: int
    numbers_unchecked: int
    unanswerable: int
    not_found_on_unanswerable: float | None
    not_found_on_answerable: float | None
    looping: int
    median_seconds_to_sources: float | None
    median_seconds_to_quote: float | None
    median_quote_after_sources_ms: float | None
    max_quote_after_sources_ms: float | None
    median_seconds_to_text: float | None


def summarise(observations: Sequence[AnswerObservation]) -> AnswerSummary:
    keyed = [o for o in observations if o.answerable and o.key_phrase]
    findable = [o for o in keyed if o.passages_have_fact]
    located = [o for o in observations if o.answerable and o.document_in_sources is not None]
    answerable = [o for o in observations if o.answerable]
    unanswerable = [o for o in observations if not o.answerable]
    sentences = sum(o.sentences for o in observations)
    gaps = [
        (o.seconds_to_quote - o.seconds_to_sources) * 1000
        for o in observations
        if o.seconds_to_quote is not None and o.seconds_to_sources is not None
    ]
    return AnswerSummary(
        questions=len(observations),
        answerable_with_key=len(keyed),
        document_hit_rate=_share(sum(bool(o.document_in_sources) for o in located), len(located)),
        passage_key_fact_rate=_share(len(findable), len(keyed)),
        quote_key_fact_rate=_share(sum(bool(o.quote_has_fact) for o in keyed), len(keyed)),
        quote_key_fact_when_passages=_share(sum(bool(o.quote_has_fact) for o in findable), len(findable)),
        answer_key_fact_rate=_share(sum(bool(o.answer_has_fact) for o in keyed), len(keyed)),
        sentences=sentences,
        supported_share=_share(sum(o.supported for o in observations), sentences),
        flagged_share=_share(sum(o.flagged for o in observations), sentences),
        cited_not_answer=sum(o.cited_not_answer for o in observations),
        warnings=sum(o.warning for o in observations),
        numbers_unchecked=sum(o.numbers_unchecked for o in observations),
        unanswerable=len(unanswerable),
        not_found_on_unanswerable=_share(
            sum(o.state == MessageState.not_found for o in unanswerable), len(unanswerable)
        ),
        not_found_on_answerable=_share(
            sum(o.state == MessageState.not_found for o in answerable), len(answerable)
        ),
        looping=sum(o.stop_reason == REPETITION for o in observations),
        median_seconds_to_sources=_median([o.seconds_to_sources for o in observations]),
        median_seconds_to_quote=_median([o.seconds_to_quote for o in observations]),
        median_quote_after_sources_ms=_median(gaps),
        max_quote_after_sources_ms=max(gaps, default=None),
        median_seconds_to_text=_median([o.seconds_to_text for o in observations]),
    )


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _median(values: Sequence[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None


LABELS = {
    "questions": "Vragen",
    "answerable_with_key": "Beantwoordbare vragen met kernzin",
    "document_hit_rate": "Juist document bij de getoonde passages (document-Hit@k)",
    "passage_key_fact_rate": "Kernfeit in een van de getoonde passages (fragment-recall)",
    "quote_key_fact_rate": "Citaat bevat het kernfeit",
    "quote_key_fact_when_passages": "Kernfeit in citaat, als een passage het bevat",
    "answer_key_fact_rate": "Gegenereerd antwoord bevat het kernfeit",
    "sentences": "Gegenereerde zinnen",
    "supported_share": "Zinnen gevonden in de bronnen",
    "flagged_share": "Zinnen gemarkeerd als niet gevonden in de bronnen",
    "cited_not_answer": "Zinnen met bron in antwoorden zonder het kernfeit",
    "warnings": "Antwoorden met waarschuwing",
    "numbers_unchecked": "Getallen zonder bron en zonder markering",
    "unanswerable": "Onbeantwoordbare vragen",
    "not_found_on_unanswerable": "'Niet gevonden' op onbeantwoordbare vragen",
    "not_found_on_answerable": "'Niet gevonden' op beantwoordbare vragen",
    "looping": "Antwoorden afgebroken wegens herhaling",
    "median_seconds_to_sources": "Mediaan tijd tot bronnen (s)",
    "median_seconds_to_quote": "Mediaan tijd tot citaat (s)",
    "median_quote_after_sources_ms": "Mediaan citaat na bronnen (ms)",
    "max_quote_after_sources_ms": "Maximum citaat na bronnen (ms)",
    "median_seconds_to_text": "Mediaan tijd tot eerste tekst (s)",
}
RATES = {"quote_key_fact_rate", "answer_key_fact_rate", "supported_share", "flagged_share"}
RATES |= {
    "not_found_on_unanswerable",
    "not_found_on_answerable",
    "document_hit_rate",
    "passage_key_fact_rate",
}
RATES |= {"quote_key_fact_when_passages"}


def write_answer_report(
    title: str, observations: Sequence[AnswerObservation], notes: Sequence[str], out: Path
) -> list[Path]:
    """answers.csv (one row per question), answers.json (summary and rows), answers.html (Dutch, one page)."""
    out.mkdir(parents=True, exist_ok=True)
    summary = summarise(observations)
    rows = [asdict(o) for o in observations]
    paths = [out / "answers.csv", out / "answers.json", out / "answers.html"]
    columns = [name for name in rows[0] if name != "support"] + ["support"] if rows else []
    cells = ({**row, "support": json.dumps(row["support"], ensure_ascii=False)} for row in rows)
    table = csv_text(columns, ([row[name] for name in columns] for row in cells))
    paths[0].write_text(table, encoding="utf-8", newline="")
    payload = {"title": title, "notes": list(notes), "summary": asdict(summary), "questions": rows}
    paths[1].write_text(json.dumps(payload, ensure_ascii=False, indent=2), encoding="utf-8")
    paths[2].write_text(_html(title, summary, observations, notes), encoding="utf-8")
    return paths


def summary_lines(summary: AnswerSummary) -> list[str]:
    return [f"{LABELS[name]}: {_format(name, value)}" for name, value in asdict(summary).items()]


def _format(name: str, value: object) -> str:
    if value is None:
        return "–"
    if name in RATES and isinstance(value, float):
        return f"{value:.0%}"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _html(
    title: str, summary: AnswerSummary, observations: Sequence[AnswerObservation], notes: Sequence[str]
) -> str:
    escape = html.escape
    summary_rows = "".join(
        f"<tr><th>{escape(LABELS[name])}</th><td>{escape(_format(name, value))}</td></tr>"
        for name, value in asdict(summary).items()
    )
    question_rows = "".join(
        "<tr>"
        f"<td>{escape(o.question)}</td><td>{escape(o.key_phrase or '')}</td>"
        f"<td>{_yes_no(o.document_in_sources)}</td><td>{_yes_no(o.passages_have_fact)}</td>"
        f"<td>{escape(o.quote or '—')}</td>"
        f"<td>{_yes_no(o.quote_has_fact)}</td><td>{escape(o.answer)}</td><td>{_yes_no(o.answer_has_fact)}</td>"
        f"<td>{o.supported}/{o.sentences}</td><td>{escape(o.state)}</td>"
        "</tr>"
        for o in observations
    )
    note_items = "".join(f"<li>{escape(note)}</li>" for note in notes)
    return (
        '<!doctype html><html lang="nl"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>body{{font-family:sans-serif;margin:2em}}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px;text-align:left;"
        "vertical-align:top}</style></head><body>"
        f"<h1>Kwaliteit van de antwoorden: {escape(title)}</h1><table>{summary_rows}</table>"
        "<h2>Per vraag</h2><table><tr><th>Vraag</th><th>Kernzin</th><th>Juist document</th>"
        "<th>Kernfeit in passages</th><th>Citaat</th><th>Kernfeit in citaat</th>"
        "<th>Gegenereerd antwoord</th><th>Kernfeit in antwoord</th><th>Zinnen gevonden</th><th>Status</th></tr>"
        f"{question_rows}</table><h2>Opmerkingen</h2><ul>{note_items}</ul></body></html>"
    )


def _yes_no(value: bool | None) -> str:
    return "–" if value is None else ("ja" if value else "nee")
