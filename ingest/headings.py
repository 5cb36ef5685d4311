"""The section a chunk stands in: the headings above its start, named in its indexed text beside the document's
title (`Titel: {title} › {section}`), so that a passage from the middle of a long leaflet or module still says
what it is about ("Liesbreukoperatie › Gebruik je bloedverdunners?", "MODULE 4 › 2.4 Relaps › 2.4.5 Behandeling
van een relaps").

A heading is a line of its own after a blank line: it starts with a capital or a section number, holds no table
cell separator and ends in no sentence punctuation but "?"; unnumbered, it has at most `MAX_WORDS` words (a longer
line is a sentence that lost its full stop); numbered, no other number (a numbered list item: "2. INR 2.5 - 3.5"). A numbered heading ("2.4.5 …") keeps the numbered ones above it
whose number starts its own ("2.4", "2") and replaces the rest; an unnumbered one is the sub-heading of the
numbered ones above it and replaces the previous unnumbered one.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ingest.text_format import CELL_SEPARATOR, SECTION_SEPARATOR

MAX_CHARS = 80
MAX_WORDS = 8
MAX_DEPTH = 2  # the innermost headings named; a deeper path adds words without telling more

_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2})*)\.?\s+\S")
_STARTS_LIKE_HEADING = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})*\.?\s+)?[A-ZÀ-Ý]")
_LETTER = re.compile(r"[^\W\d_]")


@dataclass(frozen=True)
class _Heading:
    start: int
    text: str
    number: str | None  # its section number ("2.4.5"); None: unnumbered


def section_paths(text: str, starts: Sequence[int], title: str = "") -> list[str]:
    """For each offset in `starts`, the path of headings above it (at most MAX_DEPTH, innermost last), "" where
    none; a heading that repeats `title` is left out (the title is named already)."""
    headings = [heading for heading in _headings(text) if heading.text.casefold() != title.strip().casefold()]
    paths = []
    for start in starts:
        path: list[_Heading] = []
        for heading in headings:
            if heading.start > start:
                break
            path = _entered(path, heading)
        paths.append(SECTION_SEPARATOR.join(heading.text for heading in path[-MAX_DEPTH:]))
    return paths


def _entered(path: list[_Heading], heading: _Heading) -> list[_Heading]:
    """The path once `heading` begins a section."""
    numbered = [step for step in path if step.number is not None]
    if heading.number is None:
        return [*numbered, heading]
    return [*(step for step in numbered if heading.number.startswith(f"{step.number}.")), heading]


def _headings(text: str) -> list[_Heading]:
    headings = []
    offset = 0
    previous_blank = True
    for line in text.split("\n"):
        stripped = line.strip()
        if previous_blank and _is_heading(stripped):
            numbered = _NUMBERED.match(stripped)
            number = numbered.group(1) if numbered else None
            headings.append(_Heading(offset + line.index(stripped), stripped, number))
        previous_blank = not stripped
        offset += len(line) + 1
    return headings


def _is_heading(line: str) -> bool:
    if not 0 < len(line) <= MAX_CHARS or CELL_SEPARATOR in line or line.endswith((".", ",", ";", ":", "!")):
        return False
    if not _STARTS_LIKE_HEADING.match(line) or len(_LETTER.findall(line)) < 3:
        return False
    numbered = _NUMBERED.match(line)
    if numbered:  # "2.4 Relaps", not the list item "2. INR 2.5 - 3.5"
        return not any(character.isdigit() for character in line[numbered.end() - 1 :])
    return len(line.split()) <= MAX_WORDS
