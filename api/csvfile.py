"""The one CSV writer of every export (feedback, feedback as an evaluation set, evaluation reports, the audit log).

Spreadsheets run a cell that starts with `=`, `+`, `-` or `@` (and, in some, a tab or carriage return) as a
formula, and these files carry text users typed (login names, questions) and PDF titles. Such text gets a `'`
(OWASP's advice), which spreadsheets show as text; numbers are written as numbers. A spreadsheet may also split a
line where our quoting keeps one cell: Excel in the Dutch locale splits on `;` and then reads our quotes and line
breaks out of step, a tab-separated import splits on tabs. So the `'` goes in front of every piece of a cell that
could start a cell after such a split: at the cell's start and after each `;`, tab and line break, wherever what
follows (after any spaces, quotes or `'`) starts like a formula. `restored` undoes exactly that where our own
export is read back (the evaluator's upload and `python -m research.evaluate` reading the feedback set):
`restored(inert(text)) == text` for every text.
"""

import csv
import io
import re
from collections.abc import Iterable, Sequence

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PIECE_START = r"(^|[;\t\r\n])"
_STARTS_LIKE_A_FORMULA = r"(?=['\s\"]*[=+\-@\t\r])"
_NEEDS_MARK = re.compile(_PIECE_START + _STARTS_LIKE_A_FORMULA)
_MARKED = re.compile(_PIECE_START + "'" + _STARTS_LIKE_A_FORMULA)


def inert(cell: object) -> object:
    """Text with a `'` in front of every piece that would start a cell like a formula; anything else as it is."""
    return _NEEDS_MARK.sub(r"\1'", cell) if isinstance(cell, str) else cell


def restored(cell: str) -> str:
    """The text `inert` was given."""
    return _MARKED.sub(r"\1", cell)


def csv_rows(rows: Iterable[Sequence[object]]) -> str:
    """Rows as CSV lines, formula-safe (no header: for a file written or streamed in parts)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows([inert(cell) for cell in row] for row in rows)
    return out.getvalue()


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    return csv_rows([header]) + csv_rows(rows)
