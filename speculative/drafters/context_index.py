"""An incremental n-gram position index over a growing token sequence, and the match search CASD needs.

Every n-gram of length 1…`max_n` maps to the positions where it ends. Appending a token adds `max_n` entries,
so the prompt is indexed once and each generated token costs O(max_n); a lookup costs O(max_n) dictionary
probes instead of rescanning a long RAG prompt every step. Memory grows as O(length × max_n).
"""

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

TieBreak = Literal["most_recent", "earliest"]


@dataclass(frozen=True)
class Match:
    """The query's last `length` tokens also occur in the indexed text, ending at position `end`."""

    end: int
    length: int


class NgramIndex:
    """End positions of every n-gram (1 ≤ n ≤ `max_n`) of the tokens appended so far, in increasing order."""

    def __init__(self, max_n: int) -> None:
        if max_n < 1:
            raise ValueError(f"max_n must be ≥ 1, got {max_n}")
        self.max_n = max_n
        self.tokens: list[int] = []
        self._ends: list[defaultdict[tuple[int, ...], list[int]]] = [defaultdict(list) for _ in range(max_n)]

    def __len__(self) -> int:
        return len(self.tokens)

    def extend(self, tokens: Iterable[int]) -> None:
        for token in tokens:
            self.tokens.append(token)
            end = len(self.tokens) - 1
            for n in range(1, min(self.max_n, end + 1) + 1):
                self._ends[n - 1][tuple(self.tokens[end - n + 1 :])].append(end)

    def ends(self, ngram: Sequence[int]) -> list[int]:
        """Positions (increasing) where `ngram` ends; empty if it is absent or longer than `max_n`."""
        if not 1 <= len(ngram) <= self.max_n:
            return []
        return self._ends[len(ngram) - 1].get(tuple(ngram), [])

    def longest_matches(
        self, query: Sequence[int], tie_break: TieBreak, exclude_end: int | None
    ) -> Iterator[Match]:
        """Occurrences of the query's suffixes, longest suffix first, each end position once.

        Among equally long matches `tie_break` decides the order: the most recent (highest end) or the earliest.
        `exclude_end` drops the trivial match of the query with itself at the end of the text.
        """
        seen: set[int] = set()
        for length in range(min(len(query), self.max_n), 0, -1):
            ends = self.ends(query[len(query) - length :])
            for end in reversed(ends) if tie_break == "most_recent" else ends:
                if end != exclude_end and end not in seen:
                    seen.add(end)
                    yield Match(end=end, length=length)
