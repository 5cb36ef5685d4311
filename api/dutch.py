"""Dutch word rules the chat's abstention and the answers' quote and support checks share: which words of a
question name what it is about (its content words), and whether some passages hold such a word whole, inside a
longer word or inflected."""

from collections.abc import Iterable

from ingest.search.tokens import DUTCH_STOPWORDS, tokenize

# Words that say what is asked rather than what it is about: a procedure answers "hoe vaak" without either word.
# Dutch interrogatives, the verbs and quantities of asking, and the shorthand of typed questions.
QUESTION_WORDS = frozenset(
    [
        "wie",
        "wat",
        "waar",
        "wanneer",
        "welke",
        "welk",
        "hoe",
        "hoeveel",
        "hoelang",
        "hoevaak",
        "waarom",
        "waarmee",
        "waarvoor",
        "mag",
        "mogen",
        "moet",
        "kan",
        "kunnen",
        "zal",
        "laten",
        "doen",
        "geven",
        "krijgen",
        "gebruiken",
        "nodig",
        "best",
        "lang",
        "lange",
        "vaak",
        "keer",
        "per",
        "max",
        "maximaal",
        "maximum",
        "min",
        "minimaal",
        "minimum",
        "tijd",
        "duur",
        "eerste",
        "vanaf",
        "ok",
        "ipv",
        "bv",
        "ja",
        "nee",
    ]
)
# A content word found inside a longer document word counts ("alcohol" in "handalcohol"); shorter ones must
# match whole. Two words sharing their first letters count as one inflected word ("masseren" and "masseer").
MIN_INSIDE = 4
SHARED_PREFIX = 5


def content_words(question: str) -> list[str]:
    """The words of the question that name what it is about, each once, in order."""
    words = dict.fromkeys(tokenize(question))
    return [w for w in words if len(w) > 1 and w not in DUTCH_STOPWORDS and w not in QUESTION_WORDS]


class Vocabulary:
    """The words of some passages, asked whether they hold a content word (whole, inside a longer word, or
    sharing its first letters) the way coverage counts it."""

    def __init__(self, passages: Iterable[str]) -> None:
        self.words = {word for passage in passages for word in tokenize(passage)}
        self._joined = " ".join(self.words)
        self._prefixes = {word[:SHARED_PREFIX] for word in self.words if len(word) >= SHARED_PREFIX}

    def holds(self, word: str) -> bool:
        return (
            word in self.words
            or (len(word) >= MIN_INSIDE and word in self._joined)
            or (len(word) >= SHARED_PREFIX and word[:SHARED_PREFIX] in self._prefixes)
        )
