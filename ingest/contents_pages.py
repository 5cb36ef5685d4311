"""Table-of-contents and index lines kept out of the passages.

A contents line is a heading followed by a dotted leader and a page number ("I. EPIDEMIOLOGISCHE SURVEILLANCE
...... 5"); between the first such line (or a "Inhoud"/"Inhoudsopgave"/"Inhoudstafel" heading) and the last one
on a page, the lines that end in a page number of the document ("A. INTENSITEIT EN DUUR 5") are contents lines
too, and so is the first line of an entry wrapped over two. On a page headed "Index" or "(Trefwoorden)register", lines that end in page numbers ("aambeien 12, 45") are
index entries. Searching them would find the chapter's name instead of its text, and a quote would cite a page
number. Other text on the page (a foreword above the contents) stays.
"""

import re
from collections.abc import Sequence

MIN_LEADER_LINES = 1
_LEADER = re.compile(r"(?:\.{4,}|(?:\. ){3,}\.?|…{2,}|_{4,}|·{4,})\s*\d{1,4}$")
_CONTENTS_HEADING = re.compile(
    r"^(?:inhoud|inhoudsopgave|inhoudstafel|inhoudsoverzicht|table of contents|contents)\s*:?$", re.IGNORECASE
)
_INDEX_HEADING = re.compile(r"^(?:index|register|trefwoordenregister|trefwoordenlijst)\s*:?$", re.IGNORECASE)
_ENDS_IN_PAGE = re.compile(r"\D\s(\d{1,4})$")
_INDEX_ENTRY = re.compile(r"[^\W\d_].*?\s\d{1,4}(?:\s*[,–-]\s*\d{1,4})*$")


def without_contents(lines: Sequence[str], page_count: int) -> list[str]:
    """The page's lines without its table-of-contents or index lines."""
    filled = [index for index, line in enumerate(lines) if line]
    headings = [index for index in filled if _CONTENTS_HEADING.match(lines[index])]
    leaders = [index for index in filled if _LEADER.search(lines[index])]
    if _is_index_page(lines, filled):
        return [line for line in lines if not (_INDEX_ENTRY.fullmatch(line) or _INDEX_HEADING.match(line))]
    if len(leaders) < MIN_LEADER_LINES:
        return list(lines)
    start, end = min(headings + leaders), max(leaders)
    contents = {
        index for index in filled if start <= index <= end and _is_contents_line(lines[index], page_count)
    }
    for position in range(len(filled) - 2, -1, -1):  # an entry wrapped over two lines: its first line too
        index, following = filled[position], filled[position + 1]
        if (
            start <= index <= end
            and following in contents
            and not lines[index].endswith((".", "!", "?", ":"))
        ):
            contents.add(index)
    return [line for index, line in enumerate(lines) if index not in contents and index not in headings]


def _is_contents_line(line: str, page_count: int) -> bool:
    if _LEADER.search(line) or _CONTENTS_HEADING.match(line):
        return True
    number = _ENDS_IN_PAGE.search(line)
    return number is not None and 0 < int(number.group(1)) <= page_count


def _is_index_page(lines: Sequence[str], filled: Sequence[int]) -> bool:
    return bool(filled) and _INDEX_HEADING.match(lines[filled[0]]) is not None
