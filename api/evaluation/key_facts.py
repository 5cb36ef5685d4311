"""Whether a text holds a question's key fact (its `answer` key phrase), compared as a clinician would read it:
case, white space, dashes and the decimal sign do not matter ("20–30" = "20 - 30", "1.5" = "1,5")."""

import importlib.util
import re
import sys
from pathlib import Path

_DASHES = re.compile(r"\s*[–—-]\s*")
_DECIMAL_POINT = re.compile(r"(?<=\d)\.(?=\d)")
_SPACE = re.compile(r"\s+")


def normalised(text: str) -> str:
    text = _DASHES.sub("-", text.lower())
    text = _DECIMAL_POINT.sub(",", text)
    return _SPACE.sub(" ", text).strip()


def holds_key_fact(text: str | None, key_phrases: str | tuple[str, ...]) -> bool:
    """Whether `text` holds the key phrase (any of them, when a question has one per answering document)."""
    phrases = (key_phrases,) if isinstance(key_phrases, str) else key_phrases
    return text is not None and any(normalised(phrase) in normalised(text) for phrase in phrases)


def sample_key_phrases(make_samples: Path) -> dict[str, tuple[str, ...]]:
    """Question → key phrases from the samples' generator (`samples/make_samples.py`: each question's answer
    snippet per answering document), for question files without an `answer` column."""
    spec = importlib.util.spec_from_file_location("vraagbaak_make_samples", make_samples)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"{make_samples}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return {
        question.text: tuple(question.evidence.values())
        for question in (*module.QUESTIONS, *module.HELDOUT_QUESTIONS)
        if question.evidence
    }
