"""Knowing when it does not know: abstain when even the best retrieved chunks match the question weakly.

The fused score cannot decide this: relativeScoreFusion min-max scales each leg per question, so the best hit of
an unanswerable question still scores near 1. Three signals are not rescaled: the dense leg's cosine similarity
and the BM25 score of the best chunk, and the share of the question's content words that the retrieved passages
contain. The last catches the hard case of a procedure that is not indexed while a sibling is ("glucagon dosis
kind" when only the adult version is there: everything matches but "kind"), and, being a share rather than a
score, its threshold carries over from one document collection to another where raw BM25 does not, but it
refuses a question asked in other words than the documents'. How the thresholds are chosen: docs/evaluation.md,
"Knowing when it does not know" and "A dense gate instead of word coverage"; which the chat uses by default (a dense
gate calibrated per embedder, coverage off): `api/chat/calibration.py`.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass

from api.dutch import Vocabulary, content_words
from ingest.search.types import LegScores

NOT_FOUND_MESSAGE = (
    "Ik vond in de documenten geen antwoord op deze vraag. Hieronder staan de documenten die er het dichtst bij "
    "komen; controleer ze zelf of stel de vraag anders."
)
NOT_FOUND_SENTENCE = NOT_FOUND_MESSAGE.split(".")[0]
# How a generator says the passages hold no answer: the prompt asks for "niet gevonden" (api/prompting.py); the
# adapted Gemma answers with the chat's own sentence (docs/evaluation.md, "The adapted generator").
NOT_FOUND_REPLIES = ("niet gevonden", NOT_FOUND_SENTENCE.lower())
_LEADING_MARKS = re.compile(r"^[\s\"'“”‘’«»*_:.-]+")


def _plain(text: str) -> str:
    """Lower case, white space collapsed, quotes and emphasis marks before the first word dropped."""
    return " ".join(_LEADING_MARKS.sub("", text).lower().split())


def says_not_found(answer: str) -> bool:
    """Whether a generated answer is the model's own "not found" (it starts with one of NOT_FOUND_REPLIES)."""
    plain = _plain(answer)
    return any(plain.startswith(reply) for reply in NOT_FOUND_REPLIES)


def may_say_not_found(partial: str) -> bool:
    """Whether an answer that begins with `partial` may still turn out to be the model's "not found": the chat
    holds such a beginning back until it knows, so the user sees the fixed message instead of the model's words."""
    plain = _plain(partial)
    return any(reply.startswith(plain) or plain.startswith(reply) for reply in NOT_FOUND_REPLIES)


def coverage(question: str, passages: Iterable[str]) -> float | None:
    """The share of the question's content words that the passages contain (None: the question has none)."""
    wanted = content_words(question)
    if not wanted:
        return None
    vocabulary = Vocabulary(passages)
    return sum(vocabulary.holds(word) for word in wanted) / len(wanted)


@dataclass(frozen=True)
class Confidence:
    """The best raw score of each leg among the retrieved chunks (None when no chunk came from that leg), and the
    share of the question's content words the retrieved passages hold (None when it has none)."""

    dense: float | None
    bm25: float | None
    coverage: float | None = None

    @classmethod
    def of(
        cls,
        legs: Iterable[tuple[LegScores | None, LegScores | None]],
        question: str = "",
        passages: Iterable[str] = (),
    ) -> "Confidence":
        """From each chunk's (dense, bm25) leg scores, the question and the chunks' titles and passages."""
        dense: list[float] = []
        bm25: list[float] = []
        for vector, keyword in legs:
            if vector is not None:
                dense.append(vector.raw)
            if keyword is not None:
                bm25.append(keyword.raw)
        return cls(max(dense, default=None), max(bm25, default=None), coverage(question, passages))


@dataclass(frozen=True)
class AbstentionRule:
    """Answer when a leg vouches for the best chunk — its cosine reaches `min_dense` or its BM25 score reaches
    `min_bm25` — and the passages hold at least `min_coverage` of the question's content words.

    Either leg may vouch: a question in the documents' exact words scores high on BM25 even when the small
    embedder places it poorly, and a paraphrase the other way round. A threshold of None leaves that signal out
    (with both leg thresholds None the legs are not asked); with all three None the chat never abstains. A
    question without content words is not refused for coverage.
    """

    min_dense: float | None
    min_bm25: float | None
    min_coverage: float | None = None

    def abstains(self, confidence: Confidence) -> bool:
        legs_asked = self.min_dense is not None or self.min_bm25 is not None
        vouched = _reaches(confidence.dense, self.min_dense) or _reaches(confidence.bm25, self.min_bm25)
        covered = (
            self.min_coverage is None
            or confidence.coverage is None
            or confidence.coverage >= self.min_coverage
        )
        return (legs_asked and not vouched) or not covered


def _reaches(value: float | None, threshold: float | None) -> bool:
    return threshold is not None and value is not None and value >= threshold
