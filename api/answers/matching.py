"""What a sentence says, as the quote and the support check compare it: its content words (the word rules of
`api.dutch`, which the abstention applies too), its numbers, normalised so "1,5" and "1.5" are one number, and
whether it is negated ("Draag geen ringen" and "ring dragen" share their words but not their claim)."""

import re
from dataclasses import dataclass

from api.dutch import Vocabulary, content_words

# A number as procedures write it: "20", "0,5", "1.5", "3,9"; a range "20–30" is two numbers.
_NUMBER = re.compile(r"(?<![\w,.])\d+(?:[.,]\d+)?(?![\d])")
_NEGATION = re.compile(
    r"\b(?:geen|niet|nooit|niets|niemand|nergens|noch|zonder|no|not|never)\b", re.IGNORECASE
)


def negated(text: str) -> bool:
    return _NEGATION.search(text) is not None


def numbers(text: str) -> frozenset[str]:
    """The numbers in `text`, decimal comma as a point and without leading zeros ("0,50" → "0.5")."""
    found = set()
    for match in _NUMBER.finditer(text):
        value = match.group().replace(",", ".")
        if "." in value:
            value = value.rstrip("0").rstrip(".")
        found.add(value.lstrip("0") or "0" if "." not in value else value)
    return frozenset(found)


@dataclass(frozen=True)
class Claim:
    """The content words and numbers of one sentence (of a question or of an answer)."""

    words: tuple[str, ...]
    numbers: frozenset[str]
    negated: bool = False

    @classmethod
    def of(cls, text: str) -> "Claim":
        return cls(tuple(w for w in content_words(text) if not w.isdigit()), numbers(text), negated(text))

    @property
    def empty(self) -> bool:
        return not self.words and not self.numbers


@dataclass(frozen=True)
class Match:
    """How much of a claim one passage sentence holds: shares of its words and of its numbers, and whether both
    are negated or neither is."""

    words: float
    numbers: float
    score: float  # words and numbers together, each counted once
    same_polarity: bool = True

    @property
    def numbers_match(self) -> bool:
        return self.numbers == 1.0


def match(
    claim: Claim,
    passage_sentence: str,
    context: str = "",
    lead_in: str | None = None,
    question_negated: bool = False,
) -> Match:
    """The share of the claim's words that `passage_sentence` (or its `context`: the document's title) holds, and
    of its numbers that the sentence itself holds (exactly, after normalising), and whether they agree in polarity
    (`same_polarity`); `lead_in`: the line announcing the list `passage_sentence` is an item of."""
    vocabulary = Vocabulary([passage_sentence, context])
    held_words = sum(vocabulary.holds(word) for word in claim.words)
    held_numbers = len(claim.numbers & numbers(passage_sentence))
    total = len(claim.words) + len(claim.numbers)
    return Match(
        held_words / len(claim.words) if claim.words else 1.0,
        held_numbers / len(claim.numbers) if claim.numbers else 1.0,
        (held_words + held_numbers) / total if total else 0.0,
        _same_polarity(claim, passage_sentence, lead_in, question_negated),
    )


def negated_by_lead_in(item: str, lead_in: str | None) -> bool:
    """Whether the line announcing a list item negates what the item itself does not ("Waar niet prikken" over
    "in het geopereerde been;")."""
    return lead_in is not None and negated(lead_in) and not negated(item)


def _same_polarity(claim: Claim, passage_sentence: str, lead_in: str | None, question_negated: bool) -> bool:
    """Both negated or neither. An item negated by its lead-in is negated; an answer to a negated question ("waar
    mag je niet prikken?") says the items it lists are places not to inject as well, so against such an item it
    counts as negated too."""
    if negated_by_lead_in(passage_sentence, lead_in):
        return claim.negated or question_negated
    return claim.negated == negated(passage_sentence)
