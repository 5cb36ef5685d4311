"""Looping answers: a speedup measured on text that repeats itself measures the copy of a loop, not the method.

An answer is degenerate when the engine's repetition rule fires on it (`RepetitionRule`: most n-grams of a window
repeat an earlier n-gram of the answer), the rule with which the worker stops looping answers. The repeated n-gram
share (the fraction of the answer's n-grams that occurred earlier in it) is reported beside it: fluent text rarely
repeats a 4-gram, a loop repeats almost all of them. Copying the prompt (what RAG answers should do) does not
count: only the answer is looked at.
"""

from collections.abc import Sequence

from speculative.engine.stopping import RepetitionRule

DEFAULT_RULE = RepetitionRule()
NGRAM = DEFAULT_RULE.ngram


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


def is_degenerate(token_ids: Sequence[int], rule: RepetitionRule = DEFAULT_RULE) -> bool:
    """Whether the answer loops by the worker's repetition rule."""
    return rule.loop_end(token_ids) is not None
