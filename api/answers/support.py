"""Support: each sentence of a generated answer traced to the passage sentence that says the same, or flagged
(docs/api.md, event `support`).

A sentence's support score is the share of its content words (the abstention's word rules) and numbers that one
passage sentence holds (the document's title counts as context for the words). Numbers must match exactly: a
sentence is supported only when the passage sentence holds every number it states, so "20 tot 30 seconden" is
not supported by "40 tot 60 seconden" however many words they share. A sentence with neither content words nor
numbers ("Ja.") is not supported: there is nothing in it to check. The answer gets a warning when more than half
of its sentences are unsupported.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from api.answers.matching import Claim, match
from api.answers.sentences import Sentence, split_sentences

MIN_SUPPORT = 0.6  # share of a sentence's content words and numbers one passage sentence must hold


@dataclass(frozen=True)
class _PassageSentence:
    source_index: int
    sentence: Sentence
    title: str


@dataclass(frozen=True)
class Support:
    sentences: list[dict[str, Any]]
    warning: bool


def support(answer: str, sources: Sequence[dict[str, Any]], min_support: float = MIN_SUPPORT) -> Support:
    """The answer's sentences (docs/api.md `AnswerSentence`) and whether most of them are unsupported."""
    passages = [
        _PassageSentence(index, sentence, str(source.get("title") or ""))
        for index, source in enumerate(sources)
        for sentence in split_sentences(str(source.get("passage") or ""))
    ]
    sentences = [_aligned(sentence, passages, min_support) for sentence in split_sentences(answer)]
    unsupported = sum(not sentence["supported"] for sentence in sentences)
    return Support(sentences, unsupported * 2 > len(sentences))


def _aligned(sentence: Sentence, passages: Sequence[_PassageSentence], min_support: float) -> dict[str, Any]:
    claim = Claim.of(sentence.text)
    best: tuple[float, bool, _PassageSentence] | None = None
    if not claim.empty:
        for passage in passages:
            found = match(claim, passage.sentence.text, passage.title)
            candidate = (found.score, found.numbers_match, passage)
            if best is None or (found.numbers_match, found.score) > (best[1], best[0]):
                best = candidate
    score = best[0] if best is not None else 0.0
    supported = best is not None and best[1] and score >= min_support
    cited = best[2] if supported and best is not None else None
    return {
        "text": sentence.text,
        "start": sentence.start,
        "end": sentence.end,
        "score": round(score, 4),
        "supported": supported,
        "citation": cited.source_index + 1 if cited is not None else None,
        "source_start": cited.sentence.start if cited is not None else None,
        "source_end": cited.sentence.end if cited is not None else None,
    }
