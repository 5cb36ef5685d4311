"""Lists in cleaned document text: the line that announces a list and the item lines under it.

Two kinds of line announce a list:
- a lead-in ending in ":" ("Neem contact op bij de volgende situaties:"), whose items are numbered or bulleted
  lines, or short lines;
- a heading (a short line that starts with a capital and ends in no punctuation but "?"), whose items are
  numbered or bulleted lines, or short lines in lower case ("in de buurt van een wond of litteken;"); a heading
  announces a list only when at least two such lines follow it, so a heading over prose is no list.
Blank lines between the lines are fine. Chunking keeps a list in one chunk with what announces it
(`ingest.chunking`), and the answer's support check reads an item together with its heading ("Waar niet prikken"
makes each item under it a place not to inject).
"""

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

MAX_ITEM_CHARS = 200  # a line without a list marker longer than this is running text, not a list item
MAX_HEADING_CHARS = 80  # a line longer than this is not a heading
LIST_MARKER = re.compile(r"^(?:\d{1,2}[.)]|[a-z][.)]|[-–•*·▪◦o])\s", re.IGNORECASE)


@dataclass(frozen=True)
class Span:
    """`text[start:end]`: one line, without its line break."""

    start: int
    end: int


@dataclass(frozen=True)
class TextList:
    """A line announcing a list and the item lines under it, in order."""

    lead_in: Span
    items: tuple[Span, ...]

    @property
    def end(self) -> int:
        return self.items[-1].end


def lists(text: str, room: int | None = None) -> list[TextList]:
    """The lists in `text`, each with the items that fit within `room` characters from the start of its lead-in
    (None: all its items); a list none of whose items fits is left out."""
    lines = _lines(text)
    found: list[TextList] = []
    position = 0
    while position < len(lines):
        listed, last = _list_at(text, lines, position, room)
        if listed is not None:
            found.append(listed)
        position = max(last, position + 1)  # the last item may announce a list itself
    return found


class ListedText:
    """A text with its lists found once, to ask which lead-in a character's line is an item of."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lists = lists(text)

    def list_of(self, offset: int) -> TextList | None:
        """The list one of whose items holds character `offset`, or None when no list item holds it."""
        for listed in self.lists:
            if any(item.start <= offset < item.end for item in listed.items):
                return listed
        return None

    def announced_at(self, end: int) -> TextList | None:
        """The list announced by the line that ends at character `end` (trailing white space aside), or None."""
        for listed in self.lists:
            if (
                listed.lead_in.start < end <= listed.lead_in.end
                and not self.text[end : listed.lead_in.end].strip()
            ):
                return listed
        return None

    def lead_in_of(self, offset: int) -> str | None:
        """The line announcing the list whose item holds character `offset`, or None when no list item holds
        it."""
        listed = self.list_of(offset)
        return None if listed is None else self.text[listed.lead_in.start : listed.lead_in.end].strip()


def _lines(text: str) -> list[Span]:
    breaks = [index for index, character in enumerate(text) if character == "\n"]
    return [
        Span(start, end)
        for start, end in zip([0, *(b + 1 for b in breaks)], [*breaks, len(text)], strict=True)
    ]


def _list_at(text: str, lines: list[Span], lead_in: int, room: int | None) -> tuple[TextList | None, int]:
    """The list that line `lead_in` announces (None: it announces none) and the index of its last line."""
    first = lines[lead_in]
    line = text[first.start : first.end].strip()
    is_item: Callable[[str], bool]
    if line.endswith(":"):
        is_item, fewest = _is_item, 1
    elif _is_heading(line):
        is_item, fewest = _is_item_under_heading, 2
    else:
        return None, lead_in
    limit = None if room is None else first.start + room
    items = list(_items(text, lines, lead_in + 1, is_item, limit))
    if len(items) < fewest:
        return None, lead_in
    return TextList(first, tuple(lines[index] for index in items)), items[-1]


def _items(
    text: str, lines: list[Span], start: int, is_item: Callable[[str], bool], limit: int | None
) -> Iterator[int]:
    """The indices of the item lines from line `start` on, skipping blank lines, until a line that is no item or
    ends past `limit`."""
    for index in range(start, len(lines)):
        line = lines[index]
        item = text[line.start : line.end].strip()
        if not item:
            continue
        if not is_item(item) or (limit is not None and line.end > limit):
            return
        yield index


def _is_item(line: str) -> bool:
    return bool(LIST_MARKER.match(line)) or len(line) <= MAX_ITEM_CHARS


def _is_heading(line: str) -> bool:
    return (
        0 < len(line) <= MAX_HEADING_CHARS
        and line[0].isupper()
        and not line.endswith((".", ",", ";", ":", "!"))
    )


def _is_item_under_heading(line: str) -> bool:
    return bool(LIST_MARKER.match(line)) or (len(line) <= MAX_ITEM_CHARS and line[0].islower())
