"""Weaviate's relativeScoreFusion, reproduced step by step from the server's source at v1.38.0.

- Legs (`usecases/traverser/explorer_hybrid.go`, `Explorer.Hybrid`): the vector leg runs only when α > 0 and
  becomes result set 0, the keyword leg only when 1 − α > 0 and becomes the last result set. (`searcher.go`'s
  `Search`, which lists keyword first, serves aggregations only, not queries.)
- Fusion (`usecases/traverser/hybrid/hybrid_fusion.go`, `FusionRelativeScore`): each result set is min-max
  normalised on its own raw scores (`SecondarySortValue`: BM25F, or 1 − cosine distance; max == min, a single
  hit included, gives 1), weighted (vector α, keyword 1 − α) and summed per object in float32; an object missing
  from a leg gets 0 from it. The result sets are walked in order and a later set's entry replaces the earlier
  one, so an object found by both legs keeps the **keyword** leg's raw score as its `SecondarySortValue`, and
  its score explanation lists the keyword leg first (`weaviate_index.py` reads it back).
- Order: fused score descending; scores within 1e-7 (squared difference < 1e-14) are ties, broken by the kept
  raw score descending (again within 1e-7), then by UUID string ascending. The server sorts with Go's
  `sort.Slice` and that comparator; only a chain of near-ties whose ends differ by more than 1e-7 can come out
  in another order here (Go's result then depends on its sort algorithm's internals).
"""

import itertools
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import cmp_to_key
from typing import Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

from ingest.search.types import LegScores

Key = TypeVar("Key", bound=Hashable)
_TIE_SQUARED = 1e-14


@dataclass(frozen=True)
class Fused(Generic[Key]):
    key: Key
    score: float
    vector: LegScores | None
    keyword: LegScores | None
    secondary: float
    uuid: str


def normalised_leg(scores: Sequence[tuple[Key, float]]) -> dict[Key, LegScores]:
    """Min-max over the leg's pool in float32; all-equal scores (or one hit) normalise to 1."""
    if not scores:
        return {}
    raw = np.array([score for _, score in scores], dtype=np.float32)
    low, high = raw.min(), raw.max()
    normalised = np.ones_like(raw) if high == low else (raw - low) / np.float32(high - low)
    return {
        key: LegScores(raw=float(r), normalised=float(n))
        for (key, _), r, n in zip(scores, raw, normalised, strict=True)
    }


def relative_score_fusion(
    vector: Sequence[tuple[Key, float]],
    keyword: Sequence[tuple[Key, float]],
    alpha: float,
    uuids: Mapping[Key, str],
    limit: int | None = None,
) -> list[Fused[Key]]:
    """The objects of both pools, fused, in Weaviate's order, cut to `limit` (None: all of them).

    A leg whose weight is 0 (α = 0 or α = 1) does not exist for the server, so its pool is ignored.
    """
    vector_scores = normalised_leg(vector) if alpha > 0 else {}
    keyword_scores = normalised_leg(keyword) if alpha < 1 else {}
    keys = list(dict.fromkeys([*vector_scores, *keyword_scores]))
    vector_part = _weighted(keys, vector_scores, alpha)
    keyword_part = _weighted(keys, keyword_scores, 1.0 - alpha)
    scores = (vector_part + keyword_part).astype(np.float32)
    secondary = np.array([_kept(key, vector_scores, keyword_scores).raw for key in keys], dtype=np.float32)
    order = _weaviate_order(scores, secondary, [uuids[key] for key in keys])
    return [
        Fused(
            keys[i],
            float(scores[i]),
            vector_scores.get(keys[i]),
            keyword_scores.get(keys[i]),
            float(secondary[i]),
            uuids[keys[i]],
        )
        for i in order[:limit]
    ]


def _kept(key: Key, vector: Mapping[Key, LegScores], keyword: Mapping[Key, LegScores]) -> LegScores:
    """The entry of the last result set holding the object (keyword comes after vector) wins."""
    return keyword[key] if key in keyword else vector[key]


def _weighted(keys: Sequence[Key], leg: Mapping[Key, LegScores], weight: float) -> NDArray[np.float32]:
    """Each key's weighted normalised score on one leg (0 where the leg does not hold it), in float32."""
    normalised = np.array([leg[key].normalised if key in leg else 0.0 for key in keys], dtype=np.float32)
    return np.float32(weight) * normalised


def _weaviate_order(
    scores: NDArray[np.float32], secondary: NDArray[np.float32], uuids: Sequence[str]
) -> list[int]:
    """Score descending; only runs of near-equal scores (|Δ| < 1e-7) go through the tie-break comparator."""
    order = np.argsort(-scores, kind="stable").tolist()
    result: list[int] = []
    run = [order[0]] if order else []
    for previous, current in itertools.pairwise(order):
        if _near(scores[previous], scores[current]):
            run.append(current)
            continue
        result += _tie_broken(run, secondary, uuids)
        run = [current]
    return result + _tie_broken(run, secondary, uuids)


def _near(first: np.float32, second: np.float32) -> bool:
    difference = float(np.float32(second - first))
    return difference * difference < _TIE_SQUARED


def _tie_broken(run: list[int], secondary: NDArray[np.float32], uuids: Sequence[str]) -> list[int]:
    """Within a tie: the last leg's raw score descending, then UUID ascending (Weaviate's comparator)."""
    if len(run) < 2:
        return run

    def compare(first: int, second: int) -> int:
        if not _near(secondary[first], secondary[second]):
            return -1 if secondary[first] > secondary[second] else 1
        return (uuids[first] > uuids[second]) - (uuids[first] < uuids[second])

    return sorted(run, key=cmp_to_key(compare))
