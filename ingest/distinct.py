"""Three distinct places: a retrieved passage that repeats a higher-ranked one gives its place to the next one.

Neighbouring chunks share up to CHUNK_OVERLAP characters (160 by default), and a summary box repeats a sentence
of the text it sums up, so without this two of the three passages the generator reads are often one place. A
passage repeats another when, white space collapsed, the two share a run of at least `min_chars` characters or a
whole sentence of at least MIN_SENTENCE characters; `min_chars` 0 switches both off.
"""

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

MIN_SENTENCE = 40  # a shorter sentence ("Ja.", a heading) is repeated by chance, not by a summary
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")

Passage = TypeVar("Passage")


class _Seen:
    """The runs of `min_chars` characters and the sentences of the passages kept so far."""

    def __init__(self, min_chars: int) -> None:
        self.min_chars = min_chars
        self.runs: set[str] = set()
        self.sentences: set[str] = set()

    def repeats(self, text: str) -> bool:
        plain = _plain(text)
        return any(run in self.runs for run in _runs(plain, self.min_chars)) or not self.sentences.isdisjoint(
            _sentences(plain)
        )

    def add(self, text: str) -> None:
        plain = _plain(text)
        self.runs.update(_runs(plain, self.min_chars))
        self.sentences.update(_sentences(plain))


def distinct(
    candidates: Sequence[Passage], text: Callable[[Passage], str], limit: int, min_chars: int
) -> list[Passage]:
    """The first `limit` candidates, in order, that repeat none of those kept before them."""
    if min_chars <= 0:
        return list(candidates[:limit])
    seen = _Seen(min_chars)
    kept: list[Passage] = []
    for candidate in candidates:
        if len(kept) == limit:
            break
        if not seen.repeats(text(candidate)):
            kept.append(candidate)
            seen.add(text(candidate))
    return kept


def repeated(texts: Sequence[str], min_chars: int) -> list[bool]:
    """For each passage, whether it repeats any passage before it (all False at `min_chars` 0)."""
    if min_chars <= 0:
        return [False] * len(texts)
    seen = _Seen(min_chars)
    flags = []
    for text in texts:
        flags.append(seen.repeats(text))
        seen.add(text)
    return flags


def _plain(text: str) -> str:
    return " ".join(text.split())


def _runs(plain: str, length: int) -> set[str]:
    return {plain[start : start + length] for start in range(len(plain) - length + 1)}


def _sentences(plain: str) -> set[str]:
    return {sentence for sentence in _SENTENCE_END.split(plain) if len(sentence) >= MIN_SENTENCE}
