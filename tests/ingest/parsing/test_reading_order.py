"""Layout text is read in reading order: two prose columns one after the other, table rows intact."""

from pathlib import Path

from ingest.pdf_reader import open_pdf, page_texts
from ingest.reading_order import column_start, in_reading_order
from tests.ingest.ingest_pdfs import displaced_link_pdf, two_column_pdf

LEFT = [f"Linkerkolom regel {n} over de zorg voor patiënten." for n in range(1, 9)]
RIGHT = [f"Rechterkolom regel {n} over de nazorg thuis bij ontslag." for n in range(1, 9)]


def _page_text(path: Path) -> str:
    with open_pdf(path, 10**8) as pdf:
        return next(page_texts(pdf))


def test_two_prose_columns_come_out_left_column_first(tmp_path: Path) -> None:
    pdf = two_column_pdf(tmp_path / "kolommen.pdf", "Ontslagprocedure", LEFT, RIGHT)

    lines = [line.strip() for line in in_reading_order(_page_text(pdf).split("\n")) if line.strip()]

    assert lines == ["Ontslagprocedure", *LEFT, *RIGHT]


def test_a_table_with_short_cells_is_not_taken_for_columns() -> None:
    rows = [f"VV Beschermd wonen met intensieve zorg variant {n}              {n} VV" for n in range(8)]

    assert column_start(rows) is None
    assert in_reading_order(rows) == rows


def test_link_text_drawn_after_its_line_is_read_in_place(tmp_path: Path) -> None:
    pdf = displaced_link_pdf(
        tmp_path / "links.pdf", "Bijlage A bij", "artikel 2.1", "van de Regeling langdurige zorg"
    )

    first_line = " ".join(_page_text(pdf).split("\n")[0].split())

    assert first_line == "Bijlage A bij artikel 2.1 van de Regeling langdurige zorg"
