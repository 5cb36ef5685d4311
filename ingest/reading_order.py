"""Repair the reading order of two-column pages in pypdf's fixed-width layout text.

Layout mode puts text where it is on the page, so two columns of prose come out interleaved line by line
("left line 1   right line 1"). Such a block is recognisable: a vertical river of spaces at one position
with prose on both sides. Tables and short side labels also have rivers, but their right-hand cells are short,
so they are left alone (a table row reads best as one line).
"""

import re
from collections import Counter
from collections.abc import Sequence

_GAP = re.compile(r"\S( {3,})(?=\S)")
MIN_COLUMN_LINES = 5
MIN_SHARE_OF_LINES = 0.3
MIN_PROSE_WIDTH = 20


def column_start(lines: Sequence[str]) -> int | None:
    """The position where a right-hand prose column starts, or None when the page has no such column."""
    starts: Counter[int] = Counter()
    for line in lines:
        for gap in _GAP.finditer(line):
            starts[gap.end(1)] += 1
    if not starts:
        return None
    position, _ = starts.most_common(1)[0]
    split = [line for line in lines if _has_text_both_sides(line, position)]
    text_lines = sum(1 for line in lines if line.strip())
    if len(split) < max(MIN_COLUMN_LINES, MIN_SHARE_OF_LINES * text_lines):
        return None
    left_width = sum(len(line[:position].strip()) for line in split) / len(split)
    right_width = sum(len(line[position:].strip()) for line in split) / len(split)
    return position if min(left_width, right_width) >= MIN_PROSE_WIDTH else None


def _has_text_both_sides(line: str, position: int) -> bool:
    return (
        _crosses_no_river(line, position) and bool(line[:position].strip()) and bool(line[position:].strip())
    )


def _crosses_no_river(line: str, position: int) -> bool:
    """True when nothing is written in the two characters left of the column start (the river)."""
    return not line[max(0, position - 2) : position].strip()


def in_reading_order(lines: Sequence[str]) -> list[str]:
    """Each two-column block as its left column followed by its right column; other lines unchanged."""
    position = column_start(lines)
    if position is None:
        return list(lines)
    ordered: list[str] = []
    left: list[str] = []
    right: list[str] = []
    for line in lines:
        if _crosses_no_river(line, position):
            left.append(line[:position].rstrip())
            right.append(line[position:].strip())
            continue
        ordered += _flush(left, right)
        ordered.append(line)
    ordered += _flush(left, right)
    return ordered


def _flush(left: list[str], right: list[str]) -> list[str]:
    """Emit a finished block (left column, a paragraph break, right column) and empty the buffers."""
    block = [*left, "", *right] if any(line.strip() for line in right) else list(left)
    left.clear()
    right.clear()
    return block
