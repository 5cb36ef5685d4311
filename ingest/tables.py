"""Tables read row by row: each row one line, its cells in reading order, joined by `ingest.text_format.CELL_SEPARATOR`.

Layout-mode text runs a table's columns into each other: a cell of three lines comes out as three fragments on
three lines beside fragments of the other cells ("Hoe laat heeft u uw  Neem de 4e dosis" / "onderzoek?
Pleinvue/Eziclen in tussen"). pdfplumber's table finder (ruling lines and rectangles) gives the cells instead.
A page with a table (two rows and two columns at least; a single column is a text frame, not a table) is read
with pdfplumber: the text above, between and below its tables in layout mode, each table as rows. The page is
read after its hidden text was removed (`hidden_text.py`): the cleaned page is written to a one-page PDF first.
Finding tables costs a pdfminer pass over every page, so the pages that may hold one are found first, on the
file as it is, and only those are read again.
"""

import io
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO, cast

import pdfplumber
from pdfplumber.page import Page
from pdfplumber.table import Table
from pypdf import PageObject, PdfWriter

MIN_ROWS = 2
MIN_COLUMNS = 2
MIN_WORDS_HELD = 0.9
_UNKNOWN_GLYPH = re.compile(r"\(cid:\d+\)")


@dataclass(frozen=True)
class TableRow:
    """One row of a table: its cells in reading order (an empty cell has no lines), each cell's lines as
    extracted."""

    cells: tuple[tuple[str, ...], ...]


Block = str | TableRow
"""A page's content in reading order: layout-mode text, or a table row."""


def pages_with_tables(handle: BinaryIO) -> set[int]:
    """The pages (1-based) of the file that hold a table."""
    found = set()
    handle.seek(0)
    with pdfplumber.open(cast(io.BufferedReader, handle)) as document:
        for number, page in enumerate(document.pages, start=1):
            if _tables(page):
                found.add(number)
            page.close()
    handle.seek(0)
    return found


def read_with_tables(page: PageObject) -> list[Block]:
    """The page (its hidden text already removed) as layout text around its tables' rows, top to bottom."""
    writer = PdfWriter()
    writer.add_page(page)
    buffer = io.BytesIO()
    writer.write(buffer)
    buffer.seek(0)
    with pdfplumber.open(buffer) as document:
        return list(_blocks(document.pages[0]))


def _tables(page: Page) -> list[Table]:
    """The page's tables: two rows and two columns at least, a row with two filled cells, and cells that hold the
    words drawn inside them (a shaded text box the finder takes for a table leaves words out of its cells or fills
    one cell a row: it is read as text)."""
    found = [
        table
        for table in page.find_tables()
        if len(table.rows) >= MIN_ROWS and len(table.columns) >= MIN_COLUMNS
    ]
    if not found:
        return []
    words = page.extract_words()
    return [table for table in found if _has_a_row_of_cells(table) and _cells_hold_the_words(table, words)]


def _has_a_row_of_cells(table: Table) -> bool:
    """Whether some row has two cells with text: a shaded text box the finder takes for a table has one filled
    cell per row (its lines), and read as rows its sentences would break at every line."""
    return any(sum(1 for cell in row if cell and cell.strip()) >= 2 for row in table.extract())


def _cells_hold_the_words(table: Table, words: Sequence[dict[str, object]]) -> bool:
    x0, top, x1, bottom = table.bbox
    inside = [
        word
        for word in words
        if x0 <= (float(word["x0"]) + float(word["x1"])) / 2 <= x1  # type: ignore[arg-type]
        and top <= (float(word["top"]) + float(word["bottom"])) / 2 <= bottom  # type: ignore[arg-type]
    ]
    held = sum(len((cell or "").split()) for row in table.extract() for cell in row)
    return held >= MIN_WORDS_HELD * len(inside)


def _blocks(page: Page) -> Iterator[Block]:
    tables = sorted(_tables(page), key=lambda table: table.bbox[1])
    top = 0.0
    for table in tables:
        yield _text_between(page, top, table.bbox[1], tables)
        yield from _rows(table)
        top = max(top, table.bbox[3])
    yield _text_between(page, top, float(page.height), tables)


def _text_between(page: Page, top: float, bottom: float, tables: Sequence[Table]) -> str:
    """The layout text of the band from `top` to `bottom` outside every table; an object belongs where its
    centre is (as a table's cells take their characters), so a line touching a table's edge is not lost."""
    if bottom <= top:
        return ""

    def in_band(item: dict[str, object]) -> bool:
        x = (float(item.get("x0", 0)) + float(item.get("x1", 0))) / 2  # type: ignore[arg-type]
        y = (float(item.get("top", 0)) + float(item.get("bottom", 0))) / 2  # type: ignore[arg-type]
        inside = any(t.bbox[0] <= x <= t.bbox[2] and t.bbox[1] <= y <= t.bbox[3] for t in tables)
        return top <= y < bottom and not inside

    band = page.filter(in_band)
    return str(band.extract_text(layout=True) or "")


def _rows(table: Table) -> Iterator[TableRow]:
    """The table's rows; a row whose first cell is part of the one above (a cell spanning rows) continues that
    row, column by column, leaving out what that row already says."""
    merged: list[list[str]] = []
    for row in table.extract():
        cells = [_UNKNOWN_GLYPH.sub("", cell or "") for cell in row]
        if merged and row and row[0] is None:
            said = "\n".join(merged[-1])
            for column, cell in enumerate(cells):
                if cell.strip() and " ".join(cell.split()) not in " ".join(said.split()):
                    merged[-1][column] = f"{merged[-1][column]}\n{cell}".strip()
        else:
            merged.append(cells)
    for cells in merged:
        kept = tuple(tuple(line for line in cell.split("\n") if line.strip()) for cell in cells)
        if any(kept):
            yield TableRow(kept)
