"""The quote: the sentence(s) of the retrieved passages that best answer the question, verbatim, sent before any
generated text (docs/api.md, event `quote`).

Each sentence of each retrieved passage is scored by the question's content words it holds, each word weighed by
how few of the candidate sentences hold it (a rare word such as "stuwband" or "MRI" says more than "handen"), in
the sentence itself and with its section heading and document title as context, the words compared by their Dutch
stems ("wrijven" = "Wrijf", `api.answers.stems`). Bonuses: the question asks for a duration, a frequency, an
amount, a distance or a telephone number ("hoe lang", "hoe snel", "hoe vaak", "hoeveel keer", "hoeveel", "afstand",
"tel.nr") and the sentence states one; the sentence holds a number the question names ("ketonen 1,5"); a "wanneer"
question and a sentence that announces a list (":"); a small one for the passage's retrieval rank. A sentence
ending in ":" is quoted with the list items that follow it (the marked ones when the first is marked, else the short
ones; as many as fit in `max_chars`, at least the first); so is a heading or a question that announces a list
(`ingest.lists`: "Waar niet prikken" over its items). An item of a list whose heading negates it is quoted from that
heading on. A sentence is quoted with the next one of its paragraph when that one adds question words it lacks (the
answer often follows its topic sentence). Any other heading, a table or figure caption ("Tab. 1 Detectie …") and a
table-of-contents line are context, never a quote. Nothing is quoted when no sentence reaches `min_score`, or the
best is longer than `max_chars` (a table or list without sentence boundaries): no quote rather than a wrong one. How the weights are chosen:
docs/evaluation.md "Can a clinician check the answer?".
"""

import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from api.answers.matching import Claim, negated_by_lead_in, numbers
from api.answers.sentences import LIST_ITEM, Sentence, split_sentences
from api.answers.source import Source
from api.answers.stems import StemVocabulary
from api.dutch import Vocabulary
from ingest.lists import ListedText, TextList

# What the question asks for, and how a sentence states it: a number with a unit of time, a repetition, an amount,
# a distance, a telephone number.
QUESTION_UNITS = (
    (
        re.compile(
            r"\b(hoe\s*lang|hoelang|hoe\s*snel|duur\w*|tijd|max\w*|min\w*|houdbaar\w*|wanneer)\b",
            re.IGNORECASE,
        ),
        re.compile(
            r"\d\s*(seconden|sec|s|minuten|minuut|min|uur|uren|u|dagen|dag|weken|week|maanden|maand|jaar)\b",
            re.IGNORECASE,
        ),
    ),
    (
        re.compile(
            r"\b(hoe\s*vaak|hoevaak|hoeveel\s+(keer|maal)|frequentie|interval|om\s+de)\b", re.IGNORECASE
        ),
        re.compile(r"\b(elke|iedere|om de|per (dag|uur|week)|\d+\s*(x|keer|maal))\b", re.IGNORECASE),
    ),
    (
        re.compile(r"\b(hoeveel|dosis|dosering|startdosis|ml|mg|gram)\b", re.IGNORECASE),
        re.compile(
            r"\d\s*(ml|mg|g|gram|µg|mcg|eenheden|e|ie|druppels|mmol|l|cc|pompslagen|tabletten|tablet)\b",
            re.IGNORECASE,
        ),
    ),
    (
        re.compile(r"\b(afstand|hoe\s*ver|hoe\s*diep)\b", re.IGNORECASE),
        re.compile(r"(\d\s*(mm|cm|m|meter|km)|\b(een|anderhalve|twee|drie)\s+meter)\b", re.IGNORECASE),
    ),
    (
        re.compile(r"\b(tel(efoon)?(\.|\s)*(nr|nummer)\w*|telefoon\w*|tel)\b", re.IGNORECASE),
        re.compile(r"(?<!\d)(\(0\d{1,3}\)|0\d{1,3}[-\s]?)\s?\d{2,4}(?:[\s-]?\d{2,4}){0,2}(?!\d)"),
    ),
)
WHEN_QUESTION = re.compile(r"\b(wanneer|in welke gevallen)\b", re.IGNORECASE)


@dataclass(frozen=True)
class QuoteRule:
    min_score: float = 0.4
    unit_bonus: float = 0.25  # the sentence states the kind of quantity the question asks for
    number_bonus: float = 0.3  # the sentence holds a number the question names
    lead_in_bonus: float = 0.3  # a "wanneer" question and a sentence announcing a list
    rank_bonus: float = 0.05
    own_weight: float = 0.5  # the words the sentence itself holds, against those its heading and title add
    rare_words: bool = True  # weigh each question word by how few candidate sentences hold it
    word_forms: bool = True  # compare words by their stems (api.answers.stems)
    max_chars: int = 400
    heading_lists: bool = True  # a heading or question over a list is quoted with its items
    # The next sentence is quoted too when it adds this share of the question's words' weight.
    completing_share: float = 0.2


HEADING_MAX_WORDS = 6
LIST_ITEM_MAX_CHARS = 120  # a following sentence longer than this (without a list marker) ends a quoted list
_TERMINAL = re.compile(r"[.!?:;]$")
_CAPTION = re.compile(r"^(?:tab(?:el)?|fig(?:uur)?|figure|table|grafiek)\.?\s*\d", re.IGNORECASE)
_CONTENTS_LINE = re.compile(r"(?:\.{4,}|(?:\. ){3,}|…{2,})\s*\d{0,4}$")


def is_heading(sentence: str) -> bool:
    """A short line without a number or a full stop: a section heading or a table's header row, context for the
    sentences under it, never a quote of its own ("6. Spoelen", "EWS Risico Meten Actie")."""
    body = re.sub(r"^\d{1,2}[.)]\s*", "", sentence)
    return (
        len(body.split()) <= HEADING_MAX_WORDS
        and not _TERMINAL.search(body)
        and not any(character.isdigit() for character in body)
    )


def is_label(sentence: str) -> bool:
    """A table or figure caption or a table-of-contents line: it names what is elsewhere, it answers nothing."""
    return bool(_CAPTION.match(sentence) or _CONTENTS_LINE.search(sentence))


# Scores a caller adds to the candidate sentences of a question (the quote study's other signals).
Bonus = Callable[[str, Sequence[str]], Sequence[float]]


class _Holds(Protocol):
    def holds(self, word: str) -> bool: ...


@dataclass(frozen=True)
class _Candidate:
    source_index: int
    sentence: Sentence
    following: tuple[Sentence, ...]  # the sentences after it in its passage
    announced: TextList | None  # the list its line announces (a heading or question over items), if any
    own: _Holds  # the words of the sentence itself
    held: _Holds  # … of the sentence, its heading and its document's title
    rank: float


def select_quote(
    question: str,
    sources: Sequence[Source],
    rule: QuoteRule = QuoteRule(),
    bonus: Bonus | None = None,
) -> dict[str, Any] | None:
    """The quote for `question` from the message's `sources` (docs/api.md `Quote`), or None. With `bonus`, what it
    gives each candidate sentence is added to that sentence's score."""
    claim = Claim.of(question)
    if not claim.words:
        return None
    candidates = list(_candidates(sources, rule))
    weights = _word_weights(claim.words, candidates, rule.rare_words)
    added: Sequence[float] = [0.0] * len(candidates)
    if bonus is not None and candidates:
        added = bonus(question, [candidate.sentence.text for candidate in candidates])
    cues = _Cues.of(question, claim)
    scored = [
        (_score(candidate, weights, cues, rule) + extra, candidate)
        for candidate, extra in zip(candidates, added, strict=True)
        if any(candidate.own.holds(word) for word in claim.words)
    ]
    if not scored:
        return None
    score, best = max(scored, key=lambda pair: pair[0])
    if score < rule.min_score:
        return None
    completing = _completing_sentence(best, sources[best.source_index], weights, rule)
    return _quote(score, best, sources[best.source_index], rule, completing)


@dataclass(frozen=True)
class _Cues:
    """What the question asks for, beyond its words."""

    units: tuple[re.Pattern[str], ...]  # how a sentence states the quantity asked for
    numbers: frozenset[str]
    when: bool

    @classmethod
    def of(cls, question: str, claim: Claim) -> "_Cues":
        units = tuple(unit for asks, unit in QUESTION_UNITS if asks.search(question))
        return cls(units, claim.numbers, bool(WHEN_QUESTION.search(question)))


def _score(candidate: _Candidate, weights: dict[str, float], cues: _Cues, rule: QuoteRule) -> float:
    total = sum(weights.values())
    own = sum(weight for word, weight in weights.items() if candidate.own.holds(word)) / total
    held = sum(weight for word, weight in weights.items() if candidate.held.holds(word)) / total
    text = candidate.sentence.text
    stated = numbers(text)
    score = rule.own_weight * own + (1 - rule.own_weight) * held + candidate.rank
    if any(unit.search(text) for unit in cues.units):
        score += rule.unit_bonus
    if cues.numbers & stated:
        score += rule.number_bonus
    if cues.when and text.endswith(":"):
        score += rule.lead_in_bonus
    return score


def _word_weights(
    words: Sequence[str], candidates: Sequence[_Candidate], rare_words: bool
) -> dict[str, float]:
    """Each question word's weight: log(1 + n / (1 + sentences holding it)) over the n candidate sentences (as
    BM25's inverse document frequency), or 1 for every word. A word no sentence holds weighs most: it still counts
    against every sentence, so a question the passages barely touch scores low."""
    if not rare_words:
        return dict.fromkeys(words, 1.0)
    count = len(candidates)
    return {
        word: math.log(1 + count / (1 + sum(c.own.holds(word) for c in candidates))) or 1.0 for word in words
    }


def _candidates(sources: Sequence[Source], rule: QuoteRule) -> Iterator[_Candidate]:
    """Every sentence of every passage, headings excepted (they are context for the sentences under them) unless
    a heading announces a list ("Waar niet prikken" over its items): then it is quoted with the items."""
    vocabulary = StemVocabulary if rule.word_forms else Vocabulary
    for index, source in enumerate(sources):
        passage = str(source.get("passage") or "")
        sentences = split_sentences(passage)
        listed = ListedText(passage)
        title = str(source.get("title") or "")
        rank = rule.rank_bonus * (1 - index / len(sources))
        heading = ""
        for position, sentence in enumerate(sentences):
            announced = listed.announced_at(sentence.end) if rule.heading_lists else None
            if is_heading(sentence.text):
                heading = sentence.text
                if announced is None:
                    continue
            if is_label(sentence.text):
                continue
            following = tuple(sentences[position + 1 :])
            own = vocabulary([sentence.text])
            held = vocabulary([sentence.text, f"{title}\n{heading}"])
            yield _Candidate(index, sentence, following, announced, own, held, rank)


def _completing_sentence(
    candidate: _Candidate, source: Source, weights: dict[str, float], rule: QuoteRule
) -> Sentence | None:
    """The sentence after a plain `candidate` in its paragraph when it holds question words the candidate lacks
    (at least `rule.completing_share` of their weight) and both fit in `max_chars`: "Vitamine K druppels werken na
    een aantal uren." goes on "Pas na 6 uur daalt de INR …" for "hoe snel daalt INR na vitamine K druppels". A list
    item or a table row stands alone (the next is another step or row), and a question is the next topic's
    heading."""
    if not rule.completing_share or not candidate.following or candidate.announced is not None:
        return None
    following = candidate.following[0]
    passage = str(source.get("passage") or "")
    if (
        candidate.sentence.text.endswith(":")
        or "\n\n" in passage[candidate.sentence.end : following.start]
        or is_heading(following.text)
        or is_label(following.text)
        or following.text.endswith((":", "?"))
        or any(_is_step_or_row(sentence.text) for sentence in (candidate.sentence, following))
        or following.end - candidate.sentence.start > rule.max_chars
    ):
        return None
    words = StemVocabulary([following.text]) if rule.word_forms else Vocabulary([following.text])
    added = sum(
        weight for word, weight in weights.items() if words.holds(word) and not candidate.own.holds(word)
    )
    return following if added >= rule.completing_share * sum(weights.values()) else None


def _is_step_or_row(sentence: str) -> bool:
    return bool(LIST_ITEM.match(sentence)) or " | " in sentence


def _quote(
    score: float, candidate: _Candidate, source: Source, rule: QuoteRule, completing: Sentence | None = None
) -> dict[str, Any] | None:
    start, end = candidate.sentence.start, candidate.sentence.end
    if completing is not None:
        end = completing.end
    elif candidate.sentence.text.endswith(":") and candidate.following:
        first, *rest = candidate.following
        end = first.end  # the lead-in and its first item, whatever their length
        marked = bool(LIST_ITEM.match(first.text))  # then the list's items are those marked as it is
        for item in rest:
            if not _is_item(item.text, marked) or item.end - start > rule.max_chars:
                break
            end = item.end
    elif candidate.announced is not None:
        end = _end_of_items(candidate.announced, start, rule.max_chars)
    passage = str(source["passage"])
    start = _with_negating_lead_in(passage, candidate.sentence)
    if end - start > rule.max_chars:
        return None
    return {
        "text": passage[start:end],
        "source_index": candidate.source_index,
        "document_id": source.get("document_id"),
        "title": source.get("title"),
        "page_start": source.get("page_start"),
        "page_end": source.get("page_end"),
        "start": start,
        "end": end,
        "score": round(min(1.0, score), 4),
    }


def _with_negating_lead_in(passage: str, sentence: Sentence) -> int:
    """Where the quote of `sentence` starts: at the line announcing its list when that line negates it ("Waar niet
    prikken" over "in het geopereerde been;": the item alone reads as where to inject), else at the sentence."""
    listed = ListedText(passage).list_of(sentence.start)
    if listed is None:
        return sentence.start
    lead_in = passage[listed.lead_in.start : listed.lead_in.end]
    return listed.lead_in.start if negated_by_lead_in(sentence.text, lead_in) else sentence.start


def _end_of_items(listed: TextList, start: int, max_chars: int) -> int:
    """Where the quote of a list's heading from `start` ends: after as many of its items as fit in `max_chars`, at
    least the first."""
    end = listed.items[0].end
    for item in listed.items[1:]:
        if item.end - start > max_chars:
            break
        end = item.end
    return end


def _is_item(sentence: str, marked: bool) -> bool:
    if marked:
        return bool(LIST_ITEM.match(sentence))
    return len(sentence) <= LIST_ITEM_MAX_CHARS and not sentence.endswith(":")
