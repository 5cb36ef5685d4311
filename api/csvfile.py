"""The one CSV writer of every export (feedback, feedback as an evaluation set, evaluation reports).

Spreadsheets run a cell that starts with `=`, `+`, `-` or `@` (and, in some, a tab or carriage return) as a
formula, and these files carry text users typed and PDF titles. Such text cells get a leading `'` (OWASP's advice),
which spreadsheets show as text; numbers are written as numbers. `restored` undoes it where our own export is
read back (`python -m research.evaluate` reading the feedback set).
"""

import csv
import io
from collections.abc import Iterable, Sequence

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert(cell: object) -> object:
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell


def restored(cell: str) -> str:
    return cell[1:] if cell.startswith("'") and cell[1:].startswith(FORMULA_STARTS) else cell


def csv_rows(rows: Iterable[Sequence[object]]) -> str:
    """Rows as CSV lines, formula-safe (no header: for a file written or streamed in parts)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows([inert(cell) for cell in row] for row in rows)
    return out.getvalue()


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    return csv_rows([header]) + csv_rows(rows)
