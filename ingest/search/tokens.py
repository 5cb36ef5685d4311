"""Weaviate's `word` tokenization and the stopwords applied to queries.

`word` keeps runs of letters and digits and lowercases them; there is no stemming and no compound splitting
(`infectie` ≠ `infecties`: only the dense leg bridges those). Stopwords are removed from the query only, never
from the index, exactly as Weaviate does. Weaviate's default `en` preset would drop the Dutch words "in", "is",
"was", "no" by accident, so the collection uses the preset `none` plus this Dutch list.
"""

import re
from collections import Counter

_WORD = re.compile(r"[^\W_]+")

DUTCH_STOPWORDS = frozenset(
    [
        "aan",
        "al",
        "als",
        "bij",
        "dan",
        "dat",
        "de",
        "der",
        "des",
        "deze",
        "die",
        "dit",
        "door",
        "een",
        "en",
        "er",
        "had",
        "hadden",
        "heb",
        "hebben",
        "heeft",
        "hem",
        "het",
        "hier",
        "hij",
        "hoe",
        "hun",
        "ik",
        "in",
        "is",
        "je",
        "jij",
        "jou",
        "jouw",
        "kan",
        "kon",
        "kunnen",
        "maar",
        "me",
        "men",
        "met",
        "mij",
        "mijn",
        "moet",
        "moeten",
        "na",
        "naar",
        "niet",
        "nog",
        "nu",
        "of",
        "om",
        "onder",
        "ons",
        "onze",
        "ook",
        "op",
        "over",
        "te",
        "tegen",
        "toch",
        "tot",
        "u",
        "uit",
        "uw",
        "van",
        "veel",
        "voor",
        "want",
        "waren",
        "was",
        "wat",
        "we",
        "wel",
        "werd",
        "werden",
        "wie",
        "wij",
        "wil",
        "worden",
        "wordt",
        "zal",
        "ze",
        "zelf",
        "zich",
        "zij",
        "zijn",
        "zo",
        "zou",
        "zouden",
    ]
)


def tokenize(text: str) -> list[str]:
    """Lowercased runs of letters and digits, in order (what Weaviate's `word` tokenization yields)."""
    return [token.lower() for token in _WORD.findall(text)]


def query_terms(query: str, stopwords: frozenset[str] = DUTCH_STOPWORDS) -> Counter[str]:
    """The query's terms without stopwords; a word repeated in the query counts that many times."""
    return Counter(token for token in tokenize(query) if token not in stopwords)
