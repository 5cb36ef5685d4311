"""Whether a text holds a question's key fact (its `answer` key phrase), compared as a clinician would read it:
case, white space, dashes, the decimal sign, the way a range is written and the separator between a table row's
cells do not matter ("20–30" = "20 - 30" = "20 tot 30", "1.5" = "1,5", "20 mg | Dagelijks" = "20 mg dagelijks").
Passages and quotes must hold it verbatim (they are the document's words); a generated answer may give it in its
own words (`answer_holds_key_fact`)."""

import re

from api.answers.quantities import contradicted, quantities, unstated
from api.dutch import Vocabulary, content_words

_RANGE_WORD = re.compile(r"(?<=\d)\s+(?:tot|à)\s+(?=\d)")
_DASHES = re.compile(r"\s*[–—-]\s*")
_DECIMAL_POINT = re.compile(r"(?<=\d)\.(?=\d)")
_SPACE = re.compile(r"\s+")
_CELL_SEPARATOR = re.compile(r"\s+\|\s+")
MIN_WORD_SHARE = 0.6  # of a key phrase without quantities: the share of its content words an answer must hold


def normalised(text: str) -> str:
    text = _CELL_SEPARATOR.sub(" ", text)
    text = _RANGE_WORD.sub("-", text.lower())
    text = _DASHES.sub("-", text)
    text = _DECIMAL_POINT.sub(",", text)
    return _SPACE.sub(" ", text).strip()


def holds_key_fact(text: str | None, key_phrases: str | tuple[str, ...]) -> bool:
    """Whether `text` holds the key phrase (any of them, when a question has one per answering document)."""
    phrases = (key_phrases,) if isinstance(key_phrases, str) else key_phrases
    return text is not None and any(normalised(phrase) in normalised(text) for phrase in phrases)


def answer_holds_key_fact(answer: str | None, key_phrases: str | tuple[str, ...]) -> bool:
    """Whether a generated answer gives the key fact, in its own words: the key phrase verbatim (as
    `holds_key_fact`); or, when the key phrase states quantities, at least one of them in any wording or unit
    ("2 dagen" for "na 2 dagen volledig uit het lichaam verdwenen", "48 uur" for "2 dagen") and none in another value
    ("1x per jaar" for "1 x per week"); or else most of its content words (inflected, in compounds). Agreement with
    a hand judgement: docs/evaluation.md, "Right in other words"."""
    phrases = (key_phrases,) if isinstance(key_phrases, str) else key_phrases
    return answer is not None and any(_gives(answer, phrase) for phrase in phrases)


def _gives(answer: str, phrase: str) -> bool:
    if holds_key_fact(answer, phrase):
        return True
    key, stated = quantities(phrase), quantities(answer)
    if key:
        return bool(key - unstated(key, stated)) and not contradicted(stated, key)
    words = content_words(phrase)
    vocabulary = Vocabulary([answer])
    return bool(words) and sum(vocabulary.holds(word) for word in words) >= MIN_WORD_SHARE * len(words)
