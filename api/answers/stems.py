"""Dutch word forms for the quote: a question says "wrijven", "vullen", "wassen", the procedure's step says "Wrijf",
"Vul", "Was"; the question says "wisselhouding", the sentence "houding".

A light stemmer of Dutch spelling rules rather than a library (none is installed; Snowball's Dutch stemmer keeps
"wrijv" and "wrijf" apart): drop an inflection ending (-en, -e, -s, -t), write a final v/z as f/s, and collapse
doubled letters (so "geven" → "gef" = "geef" → "gef"). A compound question word also matches its last part
("wisselhouding" → "houding"): in Dutch the head of a compound comes last.
"""

import re
from collections.abc import Iterable

from api.dutch import Vocabulary
from ingest.search.tokens import tokenize

_ENDING = re.compile(r"(?:en|e|s|t)$")
_DOUBLED = re.compile(r"(.)\1")
MIN_STEMMED = 5  # shorter words keep their ending ("kind", "pen", "uur")
MIN_HEAD = 5  # the shortest last part of a compound that counts as a match ("houding", not "ing")
MIN_INSIDE = 4


def stem(word: str) -> str:
    """The word's form without inflection, as the quote compares words ("wrijven", "wrijf" → "wrijf")."""
    word = word.lower()
    if len(word) >= MIN_STEMMED:
        word = _ENDING.sub("", word)
    if word.endswith("v"):
        word = word[:-1] + "f"
    elif word.endswith("z"):
        word = word[:-1] + "s"
    return _DOUBLED.sub(r"\1", word)


class StemVocabulary:
    """The words of some texts, asked whether they hold a question's word: as the abstention's `Vocabulary` does,
    or as the same stem, or as the last part of a compound question word. A word with a digit (a code, a dose
    such as "p01487" or "5mg") is held only whole: "p01480" shares its first letters, not its meaning."""

    def __init__(self, texts: Iterable[str]) -> None:
        texts = list(texts)
        self._plain = Vocabulary(texts)
        self._stems = {stem(word) for text in texts for word in tokenize(text)}
        self._joined = " ".join(self._stems)

    def holds(self, word: str) -> bool:
        if any(character.isdigit() for character in word):
            return word in self._plain.words
        stemmed = stem(word)
        return (
            self._plain.holds(word)
            or stemmed in self._stems
            or (len(stemmed) >= MIN_INSIDE and stemmed in self._joined)
            or any(len(head) >= MIN_HEAD and stemmed.endswith(head) for head in self._stems)
        )
