"""Letter-spaced text read as words: "S U R V E I L L A N C E  V A N" is "SURVEILLANCE VAN".

Designers space out the letters of headers; extraction then returns single letters and fragments ("IN FE C TIE
Z IE K TE N M E NS"), with nothing to tell the word gaps from the letter gaps. A run of at least four such pieces
(letters only, at least half of them single letters) is joined and split again into words of the Dutch word list, the
fewest that cover it (of as many, the one with the longer words), of four letters on average; a run that cannot
be read that way ("bijlage A B C D") is left as it is.
"""

import re
from functools import cache

from ingest.vocabulary import dutch_words

MIN_PIECES = 4
MIN_SINGLE_SHARE = 0.5
MIN_MEAN_WORD = 4
LONGEST_WORD = 40
_RUN = re.compile(r"(?<!\S)(?:[^\W\d_]{1,4} ){3,}[^\W\d_]{1,4}(?!\S)")


def unspace_letters(line: str) -> str:
    """The line with every letter-spaced run that reads as Dutch words written as those words."""
    if not dutch_words():
        return line
    return _RUN.sub(_read_run, line)


def _read_run(match: re.Match[str]) -> str:
    pieces = match.group(0).split(" ")
    if len(pieces) < MIN_PIECES or sum(len(piece) == 1 for piece in pieces) < MIN_SINGLE_SHARE * len(pieces):
        return match.group(0)  # words, not letters: "is af en toe", "en t e doen wat je"
    letters = "".join(pieces)
    words = _segment(letters.casefold())
    if words is None or len(letters) < MIN_MEAN_WORD * len(words):
        return match.group(0)
    out, position = [], 0
    for word in words:
        out.append(letters[position : position + len(word)])
        position += len(word)
    return " ".join(out)


@cache
def _segment(letters: str) -> tuple[str, ...] | None:
    """The fewest words of the word list (two letters or more, plurals included) that spell `letters`, or
    None."""
    words = dutch_words()
    best: list[tuple[str, ...] | None] = [None] * (len(letters) + 1)
    best[0] = ()
    for end in range(1, len(letters) + 1):
        for start in range(max(0, end - LONGEST_WORD), end - 1):
            before = best[start]
            piece = letters[start:end]
            if before is not None and _is_word(piece, words):
                candidate = (*before, piece)
                current = best[end]
                if current is None or _better(candidate, current):
                    best[end] = candidate
    return best[len(letters)]


def _is_word(piece: str, words: frozenset[str]) -> bool:
    """In the word list, or a plural of a word in it (the list lacks many compounds' plurals)."""
    return (
        piece in words
        or (piece.endswith("s") and piece[:-1] in words)
        or (piece.endswith("en") and not piece.endswith("een") and piece[:-2] in words)
    )


def _better(candidate: tuple[str, ...], current: tuple[str, ...]) -> bool:
    """Fewer words; of as many, longer ones ("griepinfecties in", not "griepinfectie sin")."""
    if len(candidate) != len(current):
        return len(candidate) < len(current)
    return sum(len(word) ** 2 for word in candidate) > sum(len(word) ** 2 for word in current)
