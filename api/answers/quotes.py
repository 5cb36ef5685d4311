"""The quote: the sentence(s) of the retrieved passages that best answer the question, verbatim, sent before any
generated text (docs/api.md, event `quote`).

Each sentence of each retrieved passage is scored by the share of the question's content words it holds (the
abstention's word rules; the document's title counts as context, so "handalcohol" need not be repeated in every
step), plus a bonus when the question asks for a quantity ("hoe lang", "hoeveel", "dosis"…) and the sentence
holds a number, plus a small one for the passage's retrieval rank. A sentence ending in ":" takes the next one
(the list it announces starts there). Nothing is quoted when no sentence reaches `min_score`, or the best is
longer than `max_chars` (a table or list without sentence boundaries): no quote rather than a wrong one. The
weights and the threshold were chosen on samples/questions.csv (`python -m api.evaluation.quote_study`,
docs/evaluation.md "Can a clinician check the answer?").
"""

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from api.answers.matching import Claim, match, numbers
from api.answers.sentences import Sentence, split_sentences

# Questions that ask for a quantity: a duration, a dose, a frequency, a limit.
QUANTITY_QUESTION = re.compile(
    r"\b(hoe\s*(lang|vaak|veel|ver|snel|groot|hoog|laag)|hoeveel|hoelang|hoevaak|duur|dosis|dosering|max|"
    r"maximaal|maximum|min|minimaal|minimum|tijd|interval|frequentie|houdbaar|ml|mg|seconden|minuten|uur)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class QuoteRule:
    min_score: float = 0.5
    quantity_bonus: float = 0.25
    rank_bonus: float = 0.05
    own_weight: float = 0.5  # the words the sentence itself holds, against those its heading and title add
    similarity_weight: float = 0.0
    max_chars: int = 400


HEADING_MAX_WORDS = 6
_TERMINAL = re.compile(r"[.!?:;]$")


def is_heading(sentence: str) -> bool:
    """A short line without a number or a full stop: a section heading or a table's header row, context for the
    sentences under it, never a quote of its own ("6. Spoelen", "EWS Risico Meten Actie")."""
    body = re.sub(r"^\d{1,2}[.)]\s*", "", sentence)
    return (
        len(body.split()) <= HEADING_MAX_WORDS
        and not _TERMINAL.search(body)
        and not any(character.isdigit() for character in body)
    )


Similarity = Callable[[str, Sequence[str]], Sequence[float]]


@dataclass(frozen=True)
class _Candidate:
    source_index: int
    sentence: Sentence
    following: Sentence | None
    own: float  # share of the question's content words in the sentence itself
    held: float  # … in the sentence, its heading and its document's title
    quantity: bool  # the question asks for a quantity and the sentence holds a number
    rank: float


def select_quote(
    question: str,
    sources: Sequence[dict[str, Any]],
    rule: QuoteRule = QuoteRule(),
    similarity: Similarity | None = None,
) -> dict[str, Any] | None:
    """The quote for `question` from the message's `sources` (docs/api.md `Quote`), or None. With `similarity`
    (the embedder's question/sentence cosine), `rule.similarity_weight` of it is added to each score."""
    claim = Claim.of(question)
    if not claim.words:
        return None
    candidates = list(_candidates(question, Claim(claim.words, frozenset()), sources, rule))
    if not candidates:
        return None
    cosines: Sequence[float] = [0.0] * len(candidates)
    if similarity is not None and rule.similarity_weight:
        cosines = similarity(question, [candidate.sentence.text for candidate in candidates])
    scored = [
        (
            rule.own_weight * c.own
            + (1 - rule.own_weight) * c.held
            + c.rank
            + (rule.quantity_bonus if c.quantity else 0.0)
            + rule.similarity_weight * cosine,
            c,
        )
        for c, cosine in zip(candidates, cosines, strict=True)
    ]
    score, best = max(scored, key=lambda pair: pair[0])
    if score < rule.min_score:
        return None
    return _quote(score, best, sources[best.source_index], rule)


def _candidates(
    question: str, words: Claim, sources: Sequence[dict[str, Any]], rule: QuoteRule
) -> Iterator[_Candidate]:
    """Every sentence of every passage that holds a content word of the question (headings excepted)."""
    wants_quantity = bool(QUANTITY_QUESTION.search(question))
    for index, source in enumerate(sources):
        sentences = split_sentences(str(source.get("passage") or ""))
        title = str(source.get("title") or "")
        rank = rule.rank_bonus * (1 - index / len(sources))
        heading = ""
        for position, sentence in enumerate(sentences):
            if is_heading(sentence.text):
                heading = sentence.text
                continue
            own = match(words, sentence.text).words
            if own == 0:
                continue
            held = match(words, sentence.text, f"{title}\n{heading}").words
            following = sentences[position + 1] if position + 1 < len(sentences) else None
            quantity = wants_quantity and bool(numbers(sentence.text))
            yield _Candidate(index, sentence, following, own, held, quantity, rank)


def _quote(
    score: float, candidate: _Candidate, source: dict[str, Any], rule: QuoteRule
) -> dict[str, Any] | None:
    start, end = candidate.sentence.start, candidate.sentence.end
    if candidate.sentence.text.endswith(":") and candidate.following is not None:
        end = candidate.following.end
    if end - start > rule.max_chars:
        return None
    passage = str(source["passage"])
    return {
        "text": passage[start:end],
        "source_index": candidate.source_index,
        "document_id": source.get("document_id"),
        "title": source.get("title"),
        "page_start": source.get("page_start"),
        "page_end": source.get("page_end"),
        "start": start,
        "end": end,
        "score": round(min(1.0, score), 4),
    }


class _Embeds(Protocol):
    def embed_query(self, text: str) -> NDArray[np.float32]: ...

    def embed_passages(self, texts: list[str]) -> NDArray[np.float32]: ...


def embedder_similarity(embedder: _Embeds) -> Similarity:
    """The embedder's cosine between the question (as a query) and each sentence (as a passage)."""

    def similarity(question: str, sentences: Sequence[str]) -> Sequence[float]:
        query = embedder.embed_query(question)
        passages = embedder.embed_passages(list(sentences))
        return [float(value) for value in passages @ query]

    return similarity
