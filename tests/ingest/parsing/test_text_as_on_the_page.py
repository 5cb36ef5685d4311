"""Text as it is on the page, checked on PDFs made by a real producer (LibreOffice from Word files): tables as rows
with their cells in reading order, rows never cut by chunking, contents pages out of the passages, two justified
columns one after the other with whole words."""

import shutil
from pathlib import Path

import pytest

from ingest.chunking import split_into_chunks
from ingest.pipeline import Reading, read_pdf
from ingest.text_format import CELL_SEPARATOR
from ingest.vocabulary import dutch_words
from tests.ingest.real_files import (
    TABLE,
    contents_and_table_word_file,
    text_box_word_file,
    two_column_word_file,
    word_procedure,
)

pytestmark = pytest.mark.skipif(
    shutil.which("soffice") is None, reason="LibreOffice is not installed: `make system-packages` installs it"
)
CHAPTERS = [
    ("Inleiding", "Deze richtlijn beschrijft de zorg rond een subcutane injectie op de verpleegafdeling."),
    (
        "Voorbereiding",
        "Controleer het voorschrift, de patiënt en het tijdstip voordat je de injectie klaarmaakt.",
    ),
    ("Tijdschema", "Het schema hieronder geeft per tijdstip van het onderzoek de laatste dosis."),
]
LEFT = [
    "Bij patiënten met een verhoogd risico op trombose wordt laagmoleculaire heparine subcutaan toegediend. "
    "De verpleegkundige controleert vooraf de nierfunctie, het lichaamsgewicht en de trombocytenwaarde, "
    "en noteert de gegevens zorgvuldig in het elektronisch patiëntendossier van het ziekenhuis."
]
RIGHT = [
    "Na de toediening observeert de verpleegkundige de injectieplaats op bloedingen en hematomen. "
    "Bij afwijkingen wordt de behandelend arts onmiddellijk geïnformeerd en wordt de volgende dosis "
    "uitgesteld totdat de arts een beslissing heeft genomen over het vervolg van de behandeling."
]


def _read(path: Path, tmp_path: Path) -> str:
    parsed = read_pdf(path, 10**8, 100, None, frozenset(), None, Reading(tmp_path / "scratch"))
    return parsed.text.text


def test_a_tables_rows_are_lines_with_their_cells_in_reading_order(tmp_path: Path) -> None:
    text = _read(word_procedure(tmp_path / "procedure.docx"), tmp_path)

    for row in TABLE:
        assert CELL_SEPARATOR.join(row) in text.split("\n")


def test_a_framed_text_box_with_one_filled_cell_a_row_reads_as_text(tmp_path: Path) -> None:
    """The MS module's "snel ontwikkelende RRMS" box came out as rows, its sentence cut at each line."""
    lines = [
        "Snel ontwikkelende RRMS wordt gedefinieerd als 2 of meer invaliderende relapsen, met 1 of",
        "meer Gadolinium-aankleurende laesies op de MRI.",
    ]
    path = text_box_word_file(tmp_path / "kader.docx", "De behandeling hangt af van het verloop.", lines)

    text = _read(path, tmp_path)

    assert " ".join(lines) in text.split("\n")
    assert CELL_SEPARATOR not in text


def test_chunking_never_cuts_a_table_row(tmp_path: Path) -> None:
    rows = [
        [f"Tijdstip {n}:00", f"Geef {n} ml oplossing langzaam", f"Controleer na {n + 1} uur"]
        for n in range(40)
    ]
    path = contents_and_table_word_file(
        tmp_path / "schema.docx", CHAPTERS, [["Tijd", "Actie", "Controle"], *rows]
    )
    parsed = read_pdf(path, 10**8, 100, None, frozenset(), None, Reading(tmp_path / "scratch"))

    chunks = split_into_chunks(parsed.text, 300, 60)

    assert len(parsed.text.table_rows) == len(rows) + 1
    for start, end in parsed.text.table_rows:
        holding = [chunk for chunk in chunks if chunk.start <= start and end <= chunk.end]
        cutting = [chunk for chunk in chunks if start < chunk.start < end or start < chunk.end < end]
        assert holding and not cutting, parsed.text.text[start:end]


def test_contents_lines_stay_out_of_the_passages(tmp_path: Path) -> None:
    path = contents_and_table_word_file(tmp_path / "richtlijn.docx", CHAPTERS, [["a", "b"], ["c", "d"]])

    text = _read(path, tmp_path)

    assert "Inhoudsopgave" not in text
    assert "...." not in text
    for title, body in CHAPTERS:
        assert text.count(title) == 1  # the chapter's own heading, not its contents line
        assert body in text


@pytest.mark.skipif(not dutch_words(), reason="the Dutch word list (Debian wdutch) is not installed")
def test_two_justified_columns_read_one_after_the_other_in_whole_words(tmp_path: Path) -> None:
    path = two_column_word_file(tmp_path / "twee-kolommen.docx", LEFT, RIGHT)

    text = " ".join(_read(path, tmp_path).split())

    assert text == " ".join([*LEFT, *RIGHT])
