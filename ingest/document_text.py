"""A document's cleaned text with a map from character offsets back to pages.

Pages are cleaned one by one as they stream in; running headers and footers can only be recognised across
pages, so they are removed once all pages are in (and so are table-of-contents and index lines,
`contents_pages.py`). A running line is one of the first or last few lines of a page
that is also among them on at least half the pages (and at least 3), the same but for one number that runs with
the page number, however the printed numbering is offset: "CIZ | Beleidsregels indicatiestelling Wlz 2025 19" on
the PDF's page 3, "… 2025 20" on page 4. Numbered headings ("Artikel 7" atop page 3, "Artikel 9" atop page 4) do
not run with the page and stay. A lone page number ("3", "Pagina 3 van 12") at a page's top or bottom goes too. The pages are then joined: a sentence or a hyphenated word that runs over a page break is
joined as it would be within a page, else pages are separate paragraphs. `page_starts[i]` is the offset in
`text` where page i + 1 begins, so any chunk's page range follows from its offsets.
"""

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ingest.cleaning import clean_line, continues_word, is_soft_break, join_lines, keeps_hyphen
from ingest.contents_pages import without_contents
from ingest.reading_order import in_reading_order
from ingest.tables import Block
from ingest.text_format import CELL_SEPARATOR
from ingest.vocabulary import Vocabulary

EDGE_LINES = 2
MIN_REPEATS = 3
MIN_SHARE_OF_PAGES = 0.5
PAGE_NUMBER_SLACK = 2
_DIGITS = re.compile(r"\d+")
_LAST_LETTERS = re.compile(r"[^\W\d_]+$")
_FIRST_LETTERS = re.compile(r"[^\W\d_]+")
_PAGE_NUMBER = re.compile(r"^[-–\s]*(?:(?:pagina|page|blz\.?|p\.)\s*)?#(?:\s*(?:van|of|/)\s*#)?[-–\s]*$")


class RowLine(str):
    """A table row as one line (cells in reading order, `CELL_SEPARATOR` between them): never joined with the
    lines around it. `columns` keeps every cell, empty ones too, to continue a row a page break cut."""

    columns: tuple[str, ...]

    @classmethod
    def of(cls, columns: Sequence[str]) -> "RowLine":
        row = cls(CELL_SEPARATOR.join(column for column in columns if column))
        row.columns = tuple(columns)
        return row


@dataclass(frozen=True)
class DocumentText:
    """Cleaned text of a whole document; `page_starts` has one offset per page (1-based pages); `table_rows`:
    where each table row is in `text` (start, end), a unit that chunks and quotes do not cut."""

    text: str
    page_starts: tuple[int, ...]
    table_rows: tuple[tuple[int, int], ...] = ()

    @property
    def page_count(self) -> int:
        return len(self.page_starts)

    def page_at(self, offset: int) -> int:
        """The 1-based page that holds the character at `offset` (empty pages hold nothing)."""
        if not self.page_starts:
            raise ValueError("a document without pages has no page numbers")
        return max(1, bisect_right(self.page_starts, offset))

    def page_range(self, start: int, end: int) -> tuple[int, int]:
        """First and last page of the characters `text[start:end]`."""
        return self.page_at(start), self.page_at(max(start, end - 1))

    def page_text(self, page: int) -> str:
        """The cleaned text that came from one page (used to find a chunk again on its page)."""
        start = self.page_starts[page - 1]
        end = self.page_starts[page] if page < self.page_count else len(self.text)
        return self.text[start:end]


def clean_page_lines(raw_page: str) -> list[str]:
    """One page's extracted text as cleaned lines, in reading order, blank lines kept as paragraph marks."""
    return [clean_line(line) for line in in_reading_order(raw_page.split("\n"))]


def clean_page_blocks(blocks: Iterable[Block]) -> list[str]:
    """A page's text blocks and table rows as cleaned lines; a table is a paragraph of `RowLine`s."""
    lines: list[str] = []
    for block in blocks:
        if isinstance(block, str):
            lines += clean_page_lines(block)
            continue
        row = RowLine.of([_cell_text(cell) for cell in block.cells])
        if row:
            lines += ([""] if not lines or not isinstance(lines[-1], RowLine) else []) + [row]
    return lines


def _cell_text(lines: Sequence[str]) -> str:
    """A cell's lines as one line: wrapped words rejoined as in running text, line breaks read as spaces; a
    narrow cell breaks words without a hyphen ("nega" / "tief") and numbers after one ("40-" / "2017"), so those
    are joined too."""
    vocabulary = Vocabulary()
    text = ""
    for line in (clean_line(line) for line in lines):
        if not line or not text:
            text = text or line
        elif (text.endswith("-") and text[-2:-1].isdigit() and line[:1].isdigit()) or _broken_word(
            text, line, vocabulary
        ):
            text += line
        else:
            text = join_lines([text, line], vocabulary)
    return " ".join(text.split())


def _broken_word(before: str, after: str, vocabulary: Vocabulary) -> bool:
    """Whether the last word before a cell's line break and the first after it are one known word that neither
    piece is."""
    head, tail = _LAST_LETTERS.search(before), _FIRST_LETTERS.match(after)
    if head is None or tail is None:
        return False
    first, second = head.group(0), tail.group(0)
    return (
        vocabulary.in_list(first + second)
        and not vocabulary.in_list(first)
        and not vocabulary.in_list(second)
    )


def assemble(pages: Iterable[list[str]]) -> DocumentText:
    """Cleaned lines per page → one text with page offsets, without running headers, footers, page numbers."""
    all_pages = _rows_continued(list(pages))
    repeated = _running_lines(all_pages)
    vocabulary = Vocabulary(line for lines in all_pages for line in lines)
    text = ""
    starts: list[int] = []
    rows: list[str] = []
    for number, lines in enumerate(all_pages, start=1):
        kept = without_contents(
            _without_running_lines(lines, repeated, number, len(all_pages)), len(all_pages)
        )
        rows += [line for line in kept if isinstance(line, RowLine)]
        page = join_lines(kept, vocabulary)
        text, start = _append_page(text, page, vocabulary, starts_with_row=_first_is_row(kept))
        starts.append(start)
    return DocumentText(text=text, page_starts=tuple(starts), table_rows=_row_spans(text, rows))


def _rows_continued(pages: list[list[str]]) -> list[list[str]]:
    """A table row that a page break cut (the next page starts with a row whose first cell is empty, of as many
    columns) is one row again, on the page where it started."""
    for number in range(1, len(pages)):
        before = [index for index, line in enumerate(pages[number - 1]) if line]
        after = [index for index, line in enumerate(pages[number]) if line]
        if not before or not after:
            continue
        last, first = pages[number - 1][before[-1]], pages[number][after[0]]
        if (
            isinstance(last, RowLine)
            and isinstance(first, RowLine)
            and len(first.columns) == len(last.columns)
            and not first.columns[0]
        ):
            merged = [
                f"{top} {bottom}".strip() for top, bottom in zip(last.columns, first.columns, strict=True)
            ]
            pages[number - 1][before[-1]] = RowLine.of(merged)
            del pages[number][after[0]]
    return pages


def _first_is_row(lines: Sequence[str]) -> bool:
    return isinstance(next((line for line in lines if line), None), RowLine)


def _row_spans(text: str, rows: Sequence[str]) -> tuple[tuple[int, int], ...]:
    """Where each row is in the text: found in order, each after the one before (rows are whole lines)."""
    spans = []
    position = 0
    for row in rows:
        start = text.find(row, position)
        if start >= 0:
            spans.append((start, start + len(row)))
            position = start + len(row)
    return tuple(spans)


def single_page(text: str) -> DocumentText:
    """A text that never was a PDF (evaluation corpora) as a one-page document, cleaned the same way."""
    return assemble([[clean_line(line) for line in text.split("\n")]])


def _append_page(
    text: str, page: str, vocabulary: Vocabulary, *, starts_with_row: bool = False
) -> tuple[str, int]:
    """Join a page onto the text so far; return the new text and where the page starts in it."""
    if not page:
        return text, len(text)
    if not text:
        return page, 0
    if starts_with_row:
        return text + "\n\n" + page, len(text) + 2
    if continues_word(text, page):
        if keeps_hyphen(text, page, vocabulary):
            return text + page, len(text)
        return text[:-1] + page, len(text) - 1
    separator = " " if is_soft_break(text, page) else "\n\n"
    return text + separator + page, len(text) + len(separator)


def _edge_keys(lines: Sequence[str], page: int) -> set[str]:
    """Keys of the first and last few non-blank lines of a page."""
    filled = [line for line in lines if line]
    return {key for line in filled[:EDGE_LINES] + filled[-EDGE_LINES:] for key in _keys(line, page)}


def _keys(line: str, page: int) -> set[str]:
    """The forms a running line repeats in: the line as it is, and for each number in it, the line with that
    number as `#` and its offset from the page number (printed page 19 on the PDF's page 3 is `#@16`)."""
    literal = line.lower()
    keys = {literal}
    for number in _DIGITS.finditer(literal):
        offset = int(number.group(0)) - page
        keys.add(f"{literal[: number.start()]}#{literal[number.end() :]}@{offset}")
    return keys


def _page_numbered(line: str, page: int, pages: int) -> str:
    """The line with its page number (or a neighbour, for offset numbering) and the page count as `#`, other
    numbers kept: a bare page number line looks the same on every page."""
    page_numbers = {str(number) for number in range(page - PAGE_NUMBER_SLACK, page + PAGE_NUMBER_SLACK + 1)}
    page_numbers.add(str(pages))

    def placeholder(match: re.Match[str]) -> str:
        return "#" if match.group(0).lstrip("0") in page_numbers else match.group(0)

    return _DIGITS.sub(placeholder, line.lower())


def _running_lines(pages: Sequence[Sequence[str]]) -> set[str]:
    """Keys of lines found near the top or bottom of at least half the pages (and at least 3 of them)."""
    counts: Counter[str] = Counter()
    for number, lines in enumerate(pages, start=1):
        counts.update(_edge_keys(lines, number))
    needed = max(MIN_REPEATS, MIN_SHARE_OF_PAGES * len(pages))
    return {key for key, count in counts.items() if count >= needed}


def _without_running_lines(lines: Sequence[str], repeated: set[str], page: int, pages: int) -> list[str]:
    """The page's lines without running headers/footers and bare page numbers at its top or bottom."""
    filled = [index for index, line in enumerate(lines) if line]
    edges = set(filled[:EDGE_LINES] + filled[-EDGE_LINES:])
    return [
        line
        for index, line in enumerate(lines)
        if index not in edges or not _is_running(line, repeated, page, pages)
    ]


def _is_running(line: str, repeated: set[str], page: int, pages: int) -> bool:
    if _keys(line, page) & repeated:
        return True
    return _PAGE_NUMBER.match(_page_numbered(line, page, pages)) is not None
