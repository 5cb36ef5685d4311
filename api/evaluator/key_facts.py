"""Whether a text holds a question's key fact (its `answer` key phrase), compared as a clinician would read it:
case, white space, dashes, the decimal sign, the way a range is written and the separator between a table row's
cells do not matter ("20–30" = "20 - 30" = "20 tot 30", "1.5" = "1,5", "20 mg | Dagelijks" = "20 mg dagelijks")."""

import re

_RANGE_WORD = re.compile(r"(?<=\d)\s+(?:tot|à)\s+(?=\d)")
_DASHES = re.compile(r"\s*[–—-]\s*")
_DECIMAL_POINT = re.compile(r"(?<=\d)\.(?=\d)")
_SPACE = re.compile(r"\s+")
_CELL_SEPARATOR = re.compile(r"\s+\|\s+")


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
