"""Which words exist: the document's own words and a Dutch word list, to read text as it is on the page.

Used where extraction leaves a choice: a word hyphenated at a line end is "behandeling" or "micro-organismen";
two pieces layout mode set apart are one word ("wer den") or two ("de voorschriften"). The word list is Debian's
`wdutch` (/usr/share/dict/dutch, 400,000 words, inflections and compounds included); where it is not installed
only the document's own words count (`make system-packages` and the ingest image install it).
"""

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

WORD_LIST = Path("/usr/share/dict/dutch")
_WORD = re.compile(r"[^\W\d_](?:[\w'’-]*[^\W_])?")


@cache
def dutch_words(path: Path = WORD_LIST) -> frozenset[str]:
    """The word list, case-folded (empty when it is not installed)."""
    try:
        return frozenset(line.strip().casefold() for line in path.read_text(encoding="utf-8").splitlines())
    except OSError:
        return frozenset()


class Vocabulary:
    """The Dutch word list and the words of one document (`texts`), case aside."""

    def __init__(self, texts: Iterable[str] = ()) -> None:
        self._own = frozenset(word.casefold() for text in texts for word in _WORD.findall(text))
        self._dutch = dutch_words()

    def knows(self, word: str) -> bool:
        folded = word.casefold()
        return folded in self._own or folded in self._dutch

    def in_list(self, word: str) -> bool:
        """In the Dutch word list itself (a document's own words may be broken ones)."""
        return word.casefold() in self._dutch
