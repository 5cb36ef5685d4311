"""BM25 as Weaviate scores it, over the live rows of several segments.

Per query term: idf = ln(1 + (N − n + 0.5)/(n + 0.5)) with N live chunks and n live chunks holding the term;
each holding chunk gains idf · tf/(tf + k1·(1 − b + b·len/avglen)), once per occurrence of the term in the
query. Weaviate leaves out the (k1 + 1) factor, which min-max normalisation cancels anyway. Statistics come
from all live chunks, not from the filtered ones (the filter narrows the candidates, not the corpus).
"""

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ingest.search.segment import Segment

K1 = 1.2
B = 0.75


@dataclass(frozen=True)
class CorpusStats:
    live_chunks: int
    average_length: float


def idf(live_chunks: int, holding: int) -> float:
    return math.log(1.0 + (live_chunks - holding + 0.5) / (holding + 0.5))


def bm25_scores(
    segments: Sequence[Segment],
    alive: Sequence[NDArray[np.bool_] | None],
    candidates: Sequence[NDArray[np.bool_] | None],
    terms: Counter[str],
    stats: CorpusStats,
) -> list[tuple[NDArray[np.int64], NDArray[np.float64]]]:
    """Per segment, the candidate rows holding at least one query term and their BM25 scores.

    `alive` and `candidates` hold a row mask per segment, or None when every row of the segment qualifies.
    """
    totals = [np.zeros(segment.row_count) for segment in segments]
    matched = [np.zeros(segment.row_count, dtype=bool) for segment in segments]
    for term, repeats in terms.items():
        postings = [segment.postings(term) for segment in segments]
        holding = sum(_count(rows, live) for live, (rows, _) in _present(alive, postings))
        if holding == 0:
            continue
        weight = repeats * idf(stats.live_chunks, holding)
        for index, posting in enumerate(postings):
            if posting is None:
                continue
            rows, frequencies = _kept(*posting, candidates[index])
            lengths = segments[index].lengths[rows]
            norm = K1 * (1.0 - B + B * lengths / stats.average_length)
            totals[index][rows] += weight * frequencies / (frequencies + norm)
            matched[index][rows] = True
    return [(np.flatnonzero(hit), total[hit]) for hit, total in zip(matched, totals, strict=True)]


Postings = tuple[NDArray[np.int32], NDArray[np.float32]]


def _present(
    masks: Sequence[NDArray[np.bool_] | None], postings: Sequence[Postings | None]
) -> list[tuple[NDArray[np.bool_] | None, Postings]]:
    return [(mask, posting) for mask, posting in zip(masks, postings, strict=True) if posting is not None]


def _count(rows: NDArray[np.int32], live: NDArray[np.bool_] | None) -> int:
    return len(rows) if live is None else int(np.count_nonzero(live[rows]))


def _kept(
    rows: NDArray[np.int32], frequencies: NDArray[np.float32], allowed: NDArray[np.bool_] | None
) -> tuple[NDArray[np.int32], NDArray[np.float64]]:
    if allowed is None:
        return rows, frequencies.astype(np.float64)
    keep = allowed[rows]
    return rows[keep], frequencies[keep].astype(np.float64)
