"""Labelled evaluation questions, read from the hospital's CSV or from JSONL.

The CSV is what clinicians' feedback sessions produced: `question,relevant_documents`, several documents (ids,
file names or titles) separated by `;`, none when no document answers the question; an optional `answer` column
holds a key phrase the right answer must contain (`python -m research.evaluate --answers`). Comma- and semicolon-separated
files are both read (Dutch Excel saves "CSV" with `;`; a cell holding several documents is then quoted). JSONL can
carry more: an `id` and chunk labels as answer spans.
Every problem names the line it is on, in Dutch (evaluators read them), so an evaluator can fix the file without
guessing.
"""

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator
from pydantic_core import ErrorDetails

from api.csvfile import restored
from api.question_set_format import CSV_COLUMNS, DOCUMENT_SEPARATOR, OPTIONAL_CSV_COLUMNS

CSV_DELIMITERS = (",", ";")

NonEmptyText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class AnswerSpan(BaseModel):
    """Where an answer lies in a document, as offsets in the text the index holds (the cleaned text, which chunk
    offsets refer to): a chunk is relevant when it holds this span (chunk labels)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    document: NonEmptyText
    start: int = Field(ge=0)
    end: int

    @model_validator(mode="after")
    def _end_after_start(self) -> "AnswerSpan":
        if self.end <= self.start:
            raise ValueError(
                f"een antwoordfragment moet eindigen na zijn begin (start {self.start}, end {self.end})"
            )
        return self


class EvalQuery(BaseModel):
    """One labelled question: which documents (and optionally which passages) hold its answer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: NonEmptyText
    question: NonEmptyText
    relevant_documents: tuple[NonEmptyText, ...] = Field(
        description="Empty: no document answers the question (it tests saying 'not found', not ranking)."
    )
    answer_spans: tuple[AnswerSpan, ...] = ()
    answer: NonEmptyText | None = Field(
        None, description="A key phrase the right answer must contain (e.g. '20 tot 30 seconden'); optional."
    )

    @model_validator(mode="after")
    def _spans_lie_in_relevant_documents(self) -> "EvalQuery":
        strays = sorted({span.document for span in self.answer_spans} - set(self.relevant_documents))
        if strays:
            raise ValueError(f"answer_spans noemen documenten die niet in relevant_documents staan: {strays}")
        return self


class QueryFileError(ValueError):
    """A query file cannot be read; `line` is the 1-based line the problem is on."""

    def __init__(self, source: str, line: int, reason: str) -> None:
        super().__init__(f"{source}, regel {line}: {reason}")
        self.source = source
        self.line = line
        self.reason = reason


def read_queries(path: Path) -> list[EvalQuery]:
    """Read a `.csv` or `.jsonl` query file; anything else is refused rather than guessed."""
    readers = {".csv": parse_csv, ".jsonl": parse_jsonl}
    reader = readers.get(path.suffix.lower())
    if reader is None:
        raise QueryFileError(str(path), 1, f"onbekend bestandstype {path.suffix!r}: gebruik .csv of .jsonl")
    return reader(_decode(path.read_bytes(), str(path)), str(path))


def parse_csv(text: str, source: str = "<csv>") -> list[EvalQuery]:
    """Parse `question,relevant_documents` rows (an `id` column is optional; line numbers are the default id);
    a cell our exports made inert for spreadsheets reads back as it was typed."""
    rows = _csv_rows(text, source, _delimiter(text))
    header_line, header = next(rows, (1, []))
    columns = _check_header([name.strip().lower() for name in header], header_line, source)
    queries = []
    for line, row in rows:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(columns):
            raise QueryFileError(
                source,
                line,
                f"verwacht {len(columns)} velden ({', '.join(columns)}), gevonden {len(row)}"
                " (zet een cel met meerdere documenten tussen aanhalingstekens)",
            )
        fields: dict[str, Any] = dict(zip(columns, map(restored, row), strict=True))
        fields.setdefault("id", f"line {line}")
        fields["relevant_documents"] = _split_documents(fields["relevant_documents"])
        if "answer" in fields and not fields["answer"].strip():
            fields["answer"] = None  # an empty cell: no key phrase for this question
        queries.append(_validated(fields, source, line))
    if not queries:
        raise QueryFileError(source, header_line, "het bestand heeft een kopregel maar geen vragen")
    return queries


def parse_jsonl(text: str, source: str = "<jsonl>") -> list[EvalQuery]:
    """Parse one JSON object per line with the fields of `EvalQuery` (`id` defaults to the line number)."""
    queries = []
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            fields = json.loads(raw)
        except json.JSONDecodeError as error:
            raise QueryFileError(
                source, line, f"geen geldige JSON: {error.msg} (kolom {error.colno})"
            ) from error
        if not isinstance(fields, dict):
            raise QueryFileError(source, line, f"verwacht een JSON-object, gevonden {type(fields).__name__}")
        fields.setdefault("id", f"line {line}")
        queries.append(_validated(fields, source, line))
    if not queries:
        raise QueryFileError(source, 1, "het bestand bevat geen vragen")
    return queries


def _decode(data: bytes, source: str) -> str:
    """UTF-8, with or without the byte-order mark that spreadsheet exports add."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise QueryFileError(source, line, "geen UTF-8-tekst (bewaar het bestand als CSV UTF-8)") from error


def _delimiter(text: str) -> str:
    """The separator that splits the header line into the most known columns (a comma when none does better)."""
    known = set(CSV_COLUMNS + OPTIONAL_CSV_COLUMNS)
    header = text.lstrip("\ufeff").partition("\n")[0]
    return max(
        CSV_DELIMITERS,
        key=lambda delimiter: sum(name.strip().lower() in known for name in header.split(delimiter)),
    )


def _csv_rows(text: str, source: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """Rows with the line each starts on (a quoted cell may span lines); strict quoting catches broken rows."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    while True:
        line = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise QueryFileError(source, line, f"ongeldige CSV: {error}") from error
        yield line, row


def _check_header(columns: list[str], line: int, source: str) -> list[str]:
    missing = [name for name in CSV_COLUMNS if name not in columns]
    unknown = [name for name in columns if name not in CSV_COLUMNS + OPTIONAL_CSV_COLUMNS]
    if missing or unknown or len(set(columns)) != len(columns):
        expected = ",".join(CSV_COLUMNS)
        optional = " of ".join(repr(name) for name in OPTIONAL_CSV_COLUMNS)
        raise QueryFileError(
            source,
            line,
            f"de kopregel moet {expected!r} zijn (eventueel met {optional}), gevonden: {', '.join(columns) or 'niets'}",
        )
    return columns


def _split_documents(cell: str) -> list[str]:
    return [reference.strip() for reference in cell.split(DOCUMENT_SEPARATOR) if reference.strip()]


def _validated(fields: dict[str, Any], source: str, line: int) -> EvalQuery:
    try:
        return EvalQuery.model_validate(fields)
    except ValidationError as error:
        problems = "; ".join(_describe(problem) for problem in error.errors())
        raise QueryFileError(source, line, problems) from error


def _describe(problem: ErrorDetails) -> str:
    location = ".".join(str(part) for part in problem["loc"]) or "rij"
    if problem["type"] == "string_too_short":
        return f"{location} is leeg"
    return f"{location}: {problem['msg']}"
