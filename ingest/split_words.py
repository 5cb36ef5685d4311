"""Words that layout-mode extraction splits and plain mode reads whole, joined again.

pypdf's layout mode places text by position, which fixes the reading order of browser-printed pages, but in
justified Word text it turns wide letter gaps into spaces ("ontwikkel aar", "b ijv.", "implementatie -fase").
Split words break BM25, the embedding, the copy check and the highlight. Plain mode of the same page reads
these words whole, so a pair of neighbours in the layout text is joined when plain mode has the joined word
and never the pair: the layout's order is kept, only the bogus spaces go.
"""

import re

_PAIR = re.compile(r"(?<![\w-])([\w-]+) (?=(-?\w[\w-]*))")
_WORD = re.compile(r"[\w-]+")


def rejoin_split_words(layout: str, plain: str) -> tuple[str, int]:
    """The layout text with split words joined, and how many joins were made."""
    whole = set(_WORD.findall(plain))
    joins = 0

    def join(match: re.Match[str]) -> str:
        nonlocal joins
        first, second = match.group(1), match.group(2)
        if first + second in whole and f"{first} {second}" not in plain:
            joins += 1
            return first
        return match.group(0)

    return _PAIR.sub(join, layout), joins
