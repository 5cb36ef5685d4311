"""Dutch sentence splitting for procedure text: sentences as character spans, so a quote or a citation can point
at exactly that sentence in the stored passage (`passage[start:end] == text`).

A small rule set rather than a library: none is installed, `nltk`'s punkt needs a data download (the product runs
offline) and `pysbd` has no Dutch rules. Procedure text needs three things the generic splitters miss: Dutch
abbreviations ("bijv.", "ca.", "o.a.", "d.w.z.", "i.v.", "max.") and initials ("C. difficile") do not end a
sentence; numbered steps and list items ("1. Neem …", "- Draag …") each are one, even without a full stop; and a
PDF line break inside a paragraph is not a boundary, while one before a capitalised word (after a heading or table row) is.
"""

import itertools
import re
from dataclasses import dataclass

from ingest.text_format import CELL_SEPARATOR

# Lowercase, without their final dot; internal dots kept ("d.w.z").
ABBREVIATIONS = frozenset(
    [
        "bijv",
        "bv",
        "ca",
        "o.a",
        "d.w.z",
        "max",
        "min",
        "i.v",
        "i.m",
        "s.c",
        "i.c",
        "e.d",
        "enz",
        "evt",
        "resp",
        "incl",
        "excl",
        "nl",
        "m.b.v",
        "t.o.v",
        "t.a.v",
        "m.a.w",
        "z.n",
        "zgn",
        "ev",
        "vnl",
        "pt",
        "pat",
        "dr",
        "prof",
        "mevr",
        "dhr",
        "nr",
        "blz",
        "fig",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "a.u.b",
        "p.o",
        "i.p.v",
        "o.b.v",
        "n.a.v",
        "tel",
        "ong",
        "art",
        "gr",
        "mgr",
        "st",
        "vlg",
        "jl",
        "afb",
        "tab",
    ]
)
# A list item or numbered step at the start of a line: "- ", "• ", "1. ", "2) ", "a) ".
LIST_ITEM = re.compile(r"[ \t]*(?:[-–•*▪◦]|\d{1,2}[.)]|[a-z]\))[ \t]+")
# A full stop, question or exclamation mark (with closing quotes or brackets) followed by white space.
TERMINAL = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)")
# A line followed by one that starts with a capitalised word ("Zichtbaar", not "WHO") ends a heading or a table
# row: prose wrapped by the PDF goes on in lower case or with an acronym.
_CAPITALISED = re.compile(r"[^\W\d_][^\W\d_A-Z]")
# A table row at the start of a line: a value or range ("10–12", "< 0,6", "1,5–2,9", "2") with a capitalised word
# as one of the next two ("10–12 Hoog risico …", "1,5–2,9 mmol/L Risico op DKA …"); prose wrapped before a number
# goes on in lower case ("70 mg/dL (3,9 mmol/L).").
_ROW_VALUE = re.compile(r"[<>≤≥]?\s*\d[\d,.]*(?:\s*[–-]\s*\d[\d,.]*)?\s+")
_WORD_BEFORE = re.compile(r"([^\s(\[\"']+)$")
_NEXT_CHARACTER = re.compile(r"\s*(\S)")
WRAPPED_LINE_CHARS = 60  # a line ending in a lower-case word at least this long is wrapped prose
WORD_WINDOW = 40  # characters before a full stop searched for its word (longer words are no abbreviation)


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    text: str


def split_sentences(text: str) -> list[Sentence]:
    """The sentences of `text` as spans (white space trimmed), in order; none for blank text."""
    cuts = sorted(set(_line_cuts(text)) | set(_terminal_cuts(text)))
    sentences = []
    begin = 0
    for cut in [*cuts, len(text)]:
        sentence = _trimmed(text, begin, cut)
        if sentence is not None:
            sentences.append(sentence)
        begin = cut
    return sentences


def _trimmed(text: str, start: int, end: int) -> Sentence | None:
    piece = text[start:end]
    stripped = piece.strip()
    if not any(character.isalnum() for character in stripped):
        return None
    start += len(piece) - len(piece.lstrip())
    end = start + len(stripped)
    return Sentence(start, end, text[start:end])


def _line_cuts(text: str) -> list[int]:
    """Line breaks that end a sentence: a blank line, a list item next, or a line ending in a full stop before,
    or a capitalised word or a table row next; a table row as ingestion writes it (cells joined by
    `CELL_SEPARATOR`) is a sentence of its own."""
    cuts = []
    lines = text.split("\n")
    offset = 0
    for current, following in itertools.pairwise(lines):
        offset += len(current) + 1
        line = current.strip()
        if (
            not line
            or not following.strip()
            or LIST_ITEM.match(following)
            or _ends_sentence(line)
            or _capitalised(following.lstrip())
            or (_table_row(following.lstrip()) and not _wraps_on(line))
            or CELL_SEPARATOR in line
            or CELL_SEPARATOR in following
        ):
            cuts.append(offset)
    return cuts


def _capitalised(line: str) -> bool:
    return bool(_CAPITALISED.match(line)) and line[0].isupper()


def _wraps_on(line: str) -> bool:
    """A long line of prose ending in a lower-case word goes on on the next line ("… een INR van ongeveer" before
    "1.0 De INR-waarde …"), even when that line starts like a table row; a table row ends where it ends."""
    return len(line) >= WRAPPED_LINE_CHARS and line[-1].islower() and not _table_row(line)


def _table_row(line: str) -> bool:
    value = _ROW_VALUE.match(line)
    return value is not None and any(_capitalised(word) for word in line[value.end() :].split()[:2])


def _ends_sentence(line: str) -> bool:
    return line[-1] in ".!?:…" and not _abbreviated(line)


def _terminal_cuts(text: str) -> list[int]:
    """After a full stop (question mark…) and white space, unless the word is an abbreviation or initial, or what
    follows starts in lower case (a sentence does not)."""
    cuts = []
    for match in TERMINAL.finditer(text):
        following = _NEXT_CHARACTER.match(text, match.end())
        if following is None or following.group(1).islower():
            continue
        if match.group().startswith(".") and _abbreviated(
            text[max(0, match.start() - 200) : match.start() + 1]
        ):
            continue
        cuts.append(match.end())
    return cuts


def _abbreviated(before: str) -> bool:
    """Whether the full stop ending `before` closes an abbreviation, an initial ("C. difficile") or a step's number
    at the start of a line ("3. Wrijf") rather than a sentence."""
    window = max(0, len(before) - WORD_WINDOW)
    found = _WORD_BEFORE.search(before, window)
    if found is None:
        return False
    word = found.group(1).rstrip(".")
    if word.isdigit():
        line_start = before.rfind("\n", 0, found.start()) + 1
        return len(word) <= 2 and not before[line_start : found.start()].strip()
    return word.lower() in ABBREVIATIONS or (len(word) == 1 and word.isalpha()) or "." in word
