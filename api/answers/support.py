"""Support: each sentence of a generated answer traced to the passage sentence that says the same, or flagged
(docs/api.md, event `support`).

A sentence's support score is the share of its content words (the abstention's word rules) and numbers that one
passage sentence holds (the document's title counts as context for the words). It is supported when that passage
sentence holds at least MIN_SUPPORT of its content words and every number it states, exactly: "20 tot 30
seconden" is not supported by "40 tot 60 seconden" however many words they share, and the right numbers in a
sentence about something else ("Handen wassen duurt 40 tot 60 seconden." for rubbing) do not support it either.
Nor does a sentence negated where the answer is not, or the other way round ("Ja, ring dragen tijdens zorg." next
to "Draag geen ringen tijdens de zorg."); a list item is read with the line announcing it (`ingest.lists`), so
"Spuit in het geopereerde been." is not supported by the item "in het geopereerde been;" under "Waar niet
prikken", while the bare item is, answering "waar mag je niet prikken?". A sentence with neither content words
nor numbers ("Ja.") is not supported: there is nothing in it to check; nor is a question, or a sentence that only
repeats the question's words (a citation would vouch for a claim that was never made). Numbers are compared with
their units, in digits or in words (`api.answers.quantities`): "binnen zes weken" needs six weeks in its source.
A sentence that states another quantity in a unit the chat's quote states ("zes weken" where the quote, the
document's sentence that answers the question, says "twee weken") is flagged as contradicting the quote, even
where another passage sentence (about another case) holds it. The answer gets a warning when more than half of
its sentences are unsupported.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from api.answers.matching import Claim, Match, match
from api.answers.quantities import Quantity, contradicted, quantities, unstated
from api.answers.sentences import Sentence, split_sentences
from api.answers.source import Source
from ingest.lists import ListedText

MIN_SUPPORT = 0.6  # share of a sentence's content words one passage sentence must hold (and all its numbers)


@dataclass(frozen=True)
class _PassageSentence:
    source_index: int
    sentence: Sentence
    title: str
    lead_in: str | None  # the line announcing the list this sentence is an item of
    quantities: frozenset[Quantity]


@dataclass(frozen=True)
class Support:
    sentences: list[dict[str, Any]]
    warning: bool


def support(
    answer: str,
    sources: Sequence[Source],
    min_support: float = MIN_SUPPORT,
    question: str = "",
    quote: str | None = None,
) -> Support:
    """The answer's sentences (docs/api.md `AnswerSentence`) and whether most of them are unsupported; with the
    chat's `quote`, a sentence stating another quantity in a unit the quote states is flagged as contradicting it."""
    passages = [
        sentence for index, source in enumerate(sources) for sentence in _passage_sentences(index, source)
    ]
    asked = Claim.of(question)
    quoted = quantities(quote or "")
    sentences = [
        _aligned(sentence, passages, min_support, asked, quoted) for sentence in split_sentences(answer)
    ]
    unsupported = sum(not sentence["supported"] for sentence in sentences)
    return Support(sentences, unsupported * 2 > len(sentences))


def _passage_sentences(index: int, source: Source) -> list[_PassageSentence]:
    passage = ListedText(str(source.get("passage") or ""))
    title = str(source.get("title") or "")
    return [
        _PassageSentence(
            index, sentence, title, passage.lead_in_of(sentence.start), quantities(sentence.text)
        )
        for sentence in split_sentences(passage.text)
    ]


def _holds(found: Match, stated: bool, min_support: float) -> bool:
    return stated and found.same_polarity and found.words >= min_support


def _rank(found: Match, stated: bool) -> tuple[bool, float, float]:
    return (stated and found.same_polarity and found.words > 0, found.words, found.score)


def _claims_nothing(sentence: str, claim: Claim, asked: Claim) -> bool:
    repeats_question = not claim.numbers and set(claim.words) <= set(asked.words)
    return claim.empty or sentence.rstrip().endswith("?") or repeats_question


def _aligned(
    sentence: Sentence,
    passages: Sequence[_PassageSentence],
    min_support: float,
    asked: Claim,
    quoted: frozenset[Quantity],
) -> dict[str, Any]:
    claim = Claim.of(sentence.text)
    claimed = quantities(sentence.text)
    best: tuple[Match, bool, _PassageSentence] | None = None
    if not _claims_nothing(sentence.text, claim, asked):
        for passage in passages:
            found = match(claim, passage.sentence.text, passage.title, passage.lead_in, asked.negated)
            stated = not unstated(claimed, passage.quantities)
            if best is None or _rank(found, stated) > _rank(best[0], best[1]):
                best = (found, stated, passage)
    score = best[0].score if best is not None else 0.0
    contradicts_quote = bool(contradicted(claimed, quoted))
    supported = best is not None and _holds(best[0], best[1], min_support) and not contradicts_quote
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
        "contradicts_quote": contradicts_quote,
    }
