"""Looping answers: a speedup measured on text that repeats itself measures the copy of a loop, not the method.

An answer's repeated n-gram share is the fraction of its token n-grams that already occurred earlier in the same
answer. Fluent text rarely repeats a 4-gram; a loop repeats almost all of them. Copying the prompt (what RAG
answers should do) does not count: only the answer is looked at.
"""

from collections.abc import Sequence

NGRAM = 4
DEGENERATE_SHARE = 0.5


def repeated_ngram_share(token_ids: Sequence[int], n: int = NGRAM) -> float:
    """Share of the answer's n-grams seen before in the answer; 0 for answers with fewer than n + 1 tokens."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    ngrams = [tuple(token_ids[start : start + n]) for start in range(len(token_ids) - n + 1)]
    if len(ngrams) < 2:
        return 0.0
    seen: set[tuple[int, ...]] = set()
    repeated = 0
    for ngram in ngrams:
        repeated += ngram in seen
        seen.add(ngram)
    return repeated / len(ngrams)


def is_degenerate(token_ids: Sequence[int], threshold: float = DEGENERATE_SHARE, n: int = NGRAM) -> bool:
    """Whether the answer loops: at least `threshold` of its n-grams are repeats."""
    return repeated_ngram_share(token_ids, n) >= threshold
