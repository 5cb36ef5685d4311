"""Judging one question's ranked results against its labels, at document and at chunk level.

Document level: a result is relevant when its document is one of the question's relevant documents, so the rank is
the position of the first chunk of any relevant document. Chunk level: a result is relevant when it holds at least
half of an answer span of its document; half rather than all, because an answer longer than the chunk overlap can
be cut in two, and then the chunk holding the larger part is the one a reader needs. A question labelled with a key
phrase instead of spans (the CSV's `answer` column) is judged at chunk level by the key fact: a result is relevant
when it is a passage of a relevant document that holds the key phrase (`api.evaluator.key_facts`), so chunk Hit@3
is the share of questions whose key fact is in one of the three passages the chat shows.

The scores of the first few results are kept with their relevance, so the report can show where a relevance floor
would separate answers from non-answers (including questions that no document answers), and how many of them repeat
a result before them (the overlap of neighbouring chunks, a summary's sentence: `ingest.distinct`), so it can show
whether the passages the chat shows are distinct places.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from api.evaluator.key_facts import holds_key_fact
from api.evaluator.metrics import DEPTH, first_relevant_rank
from api.evaluator.queries import AnswerSpan, EvalQuery
from api.evaluator.resolution import DocumentResolver
from ingest.distinct import repeated
from ingest.settings import DEFAULT_REPEAT_MIN_CHARS

FLOOR_DEPTH = 3  # the chunks that go into the prompt


@dataclass(frozen=True)
class Retrieved:
    """A returned chunk as judging sees it: document, character range in the indexed text, its scores (fused;
    the dense leg's raw cosine similarity, None when only BM25 found it) and its passage text."""

    document_id: str
    char_start: int
    char_end: int
    score: float
    dense_similarity: float | None = None
    text: str = ""


@dataclass(frozen=True)
class ScoredResult:
    """One of the first results with whether its document is relevant (false for unanswerable questions)."""

    score: float
    dense_similarity: float | None
    relevant: bool


@dataclass(frozen=True)
class QueryOutcome:
    """One question's ranks; a level it could not be judged at (unanswerable, nothing resolved, no span) has
    judged=False and is left out of that level's averages."""

    query_id: str
    question: str
    answerable: bool
    document_judged: bool
    document_rank: int | None
    chunk_judged: bool
    chunk_rank: int | None
    unresolved: tuple[str, ...]
    top_results: tuple[ScoredResult, ...] = ()
    top_repeats: int = 0  # of the first FLOOR_DEPTH results, how many repeat one before them


def judge(query: EvalQuery, results: Sequence[Retrieved], resolver: DocumentResolver) -> QueryOutcome:
    """Rank of the first relevant document and chunk among `results`, in the order they were returned."""
    relevant_documents, unresolved = _resolve_all(query.relevant_documents, resolver)
    spans = [(document, span) for span in query.answer_spans for document in resolver.resolve(span.document)]
    document_relevance = [result.document_id in relevant_documents for result in results]
    if spans:
        chunk_relevance = [_holds_an_answer(result, spans) for result in results]
    else:
        chunk_relevance = [
            relevant and query.answer is not None and holds_key_fact(result.text, query.answer)
            for result, relevant in zip(results, document_relevance, strict=True)
        ]
    return QueryOutcome(
        query_id=query.id,
        question=query.question,
        answerable=bool(query.relevant_documents),
        document_judged=bool(relevant_documents),
        document_rank=first_relevant_rank(document_relevance, DEPTH),
        chunk_judged=bool(spans) or (query.answer is not None and bool(relevant_documents)),
        chunk_rank=first_relevant_rank(chunk_relevance, DEPTH),
        unresolved=unresolved,
        top_results=tuple(
            ScoredResult(result.score, result.dense_similarity, relevant)
            for result, relevant in zip(results[:FLOOR_DEPTH], document_relevance, strict=False)
        ),
        top_repeats=sum(
            repeated([result.text for result in results[:FLOOR_DEPTH]], DEFAULT_REPEAT_MIN_CHARS)
        ),
    )


def holds_most_of(chunk: Retrieved, span: AnswerSpan) -> bool:
    """True when the chunk's character range covers at least half of the span."""
    overlap = min(chunk.char_end, span.end) - max(chunk.char_start, span.start)
    return 2 * overlap >= span.end - span.start


def _resolve_all(
    references: Sequence[str], resolver: DocumentResolver
) -> tuple[frozenset[str], tuple[str, ...]]:
    resolved = {reference: resolver.resolve(reference) for reference in references}
    ids = frozenset().union(*resolved.values())
    return ids, tuple(reference for reference, matches in resolved.items() if not matches)


def _holds_an_answer(chunk: Retrieved, spans: Sequence[tuple[str, AnswerSpan]]) -> bool:
    return any(document == chunk.document_id and holds_most_of(chunk, span) for document, span in spans)
