"""Knowing when it does not know: abstain when even the best retrieved chunk matches the question weakly.

The fused score cannot decide this: relativeScoreFusion min-max scales each leg per question, so the best hit of
an unanswerable question still scores near 1. The raw leg scores are not rescaled: the dense leg's cosine
similarity and the BM25 score of the best chunk say how well the question matches in absolute terms. The
thresholds come from `python -m api.chat.abstention_study` (docs/evaluation.md, "Knowing when it does not know").
"""

from collections.abc import Iterable
from dataclasses import dataclass

from ingest.search.types import LegScores

NOT_FOUND_MESSAGE = (
    "Ik vond in de documenten geen antwoord op deze vraag. Hieronder staan de documenten die er het dichtst bij "
    "komen; controleer ze zelf of stel de vraag anders."
)


@dataclass(frozen=True)
class Confidence:
    """The best raw score of each leg among the retrieved chunks (None when no chunk came from that leg)."""

    dense: float | None
    bm25: float | None

    @classmethod
    def of(cls, legs: Iterable[tuple[LegScores | None, LegScores | None]]) -> "Confidence":
        """From each chunk's (dense, bm25) leg scores."""
        dense: list[float] = []
        bm25: list[float] = []
        for vector, keyword in legs:
            if vector is not None:
                dense.append(vector.raw)
            if keyword is not None:
                bm25.append(keyword.raw)
        return cls(max(dense, default=None), max(bm25, default=None))


@dataclass(frozen=True)
class AbstentionRule:
    """Answer when the best chunk's cosine reaches `min_dense` or its BM25 score reaches `min_bm25`.

    Either leg may vouch for a chunk: a question in the documents' exact words scores high on BM25 even when the
    small embedder places it poorly, and a paraphrase the other way round. A threshold of None ignores that leg;
    with both None the chat never abstains.
    """

    min_dense: float | None
    min_bm25: float | None

    def abstains(self, confidence: Confidence) -> bool:
        if self.min_dense is None and self.min_bm25 is None:
            return False
        return not (_reaches(confidence.dense, self.min_dense) or _reaches(confidence.bm25, self.min_bm25))


def _reaches(value: float | None, threshold: float | None) -> bool:
    return threshold is not None and value is not None and value >= threshold
