"""Hit@k and MRR computed from the order the retriever returned, as the source study did.

Ranks are positions in the returned list, never re-sorted by score: libraries break score ties differently (the
same run can give MRR 0.5 or 1.0), so the order the user would see is the only honest one. A question whose
first relevant result lies beyond the search depth gets no rank: reciprocal rank 0, plotted at the depth (50).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

CUTOFFS: Final = (1, 3, 5, 7, 10, 50)
DEPTH: Final = 50


def first_relevant_rank(relevant: Sequence[bool], depth: int = DEPTH) -> int | None:
    """1-based position of the first relevant result among the first `depth`, or None when there is none."""
    for position, is_relevant in enumerate(relevant[:depth], start=1):
        if is_relevant:
            return position
    return None


def reciprocal_rank(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / rank


def plotted_rank(rank: int | None, depth: int = DEPTH) -> int:
    """Where a question lands in the rank plots: a miss counts as the maximal rank, as in the thesis."""
    return depth if rank is None else rank


def hit_at(ranks: Sequence[int | None], k: int) -> float:
    """Share of questions whose first relevant result is in the top k."""
    if not ranks:
        raise ValueError("Hit@k is undefined for zero questions")
    return sum(1 for rank in ranks if rank is not None and rank <= k) / len(ranks)


def mean_reciprocal_rank(ranks: Sequence[int | None]) -> float:
    if not ranks:
        raise ValueError("MRR is undefined for zero questions")
    return sum(reciprocal_rank(rank) for rank in ranks) / len(ranks)


@dataclass(frozen=True)
class Summary:
    """The averages of one configuration at one level (document or chunk) over the questions it could judge."""

    questions: int
    hit_at: dict[int, float]
    mrr: float

    def metrics(self) -> dict[str, float]:
        """Metric name → value, in report order: Hit@1 … Hit@50, then MRR."""
        return {**{f"Hit@{k}": value for k, value in self.hit_at.items()}, "MRR": self.mrr}


def summarise(ranks: Sequence[int | None], cutoffs: Sequence[int] = CUTOFFS) -> Summary | None:
    """Averages over the given ranks; None when no question could be judged (an average of nothing)."""
    if not ranks:
        return None
    return Summary(
        questions=len(ranks), hit_at={k: hit_at(ranks, k) for k in cutoffs}, mrr=mean_reciprocal_rank(ranks)
    )
