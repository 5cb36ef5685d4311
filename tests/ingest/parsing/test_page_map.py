"""The cleaned text keeps a map back to pages: a sentence known to be on page N maps to page N."""

import re
from pathlib import Path

import pytest

from ingest.document_text import DocumentText, assemble, clean_page_lines, single_page
from ingest.metadata import DocumentTags
from ingest.pdf_reader import open_pdf, page_texts
from ingest.pipeline import ParsedDocument, chunk_records, parse_pdf
from tests.ingest.ingest_pdfs import text_pdf

PAGES = [
    ["Doel", "Deze procedure beschrijft de zorg bij koorts.", "Meet de temperatuur elke vier uur."],
    ["Werkwijze", "Geef paracetamol volgens het schema.", "Bij koorts boven 40 graden verwittig je de arts."],
    ["Nazorg", "Noteer elke meting in het elektronisch dossier.", "Evalueer de pijn dagelijks."],
]


def _document(path: Path) -> DocumentText:
    with open_pdf(path, 10**8) as pdf:
        return assemble(clean_page_lines(page) for page in page_texts(pdf))


@pytest.fixture
def protocol(tmp_path: Path) -> DocumentText:
    pdf = text_pdf(
        tmp_path / "koorts.pdf",
        PAGES,
        header="UZ Voorbeeld – Procedure koorts – versie 2",
        footer="Voorbeelddocument – Pagina {page} van {pages}",
    )
    return _document(pdf)


@pytest.mark.parametrize(("page", "sentence"), [(p + 1, lines[1]) for p, lines in enumerate(PAGES)])
def test_each_known_sentence_maps_to_its_page(protocol: DocumentText, page: int, sentence: str) -> None:
    offset = protocol.text.index(sentence)

    assert protocol.page_at(offset) == page
    assert sentence in protocol.page_text(page)


def test_running_header_and_footer_are_removed(protocol: DocumentText) -> None:
    assert "UZ Voorbeeld" not in protocol.text
    assert "Pagina" not in protocol.text


def test_page_ranges_of_a_span_over_a_page_break(protocol: DocumentText) -> None:
    start = protocol.text.index("Evalueer") - 40

    assert protocol.page_range(start - 60, protocol.text.index("Evalueer") + 5) == (2, 3)


def test_a_sentence_running_over_a_page_break_is_joined(tmp_path: Path) -> None:
    pdf = text_pdf(
        tmp_path / "over.pdf",
        [["Eerste pagina.", "De pijn wordt gemeten bij"], ["elke wisseling van dienst."]],
    )

    document = _document(pdf)

    offset = document.text.index("bij elke wisseling")
    assert document.page_at(offset) == 1
    assert document.page_at(offset + len("bij ")) == 2


def test_empty_pages_keep_their_place_in_the_map(tmp_path: Path) -> None:
    pdf = text_pdf(tmp_path / "leeg.pdf", [["Eerste pagina met tekst."], [], ["Derde pagina met tekst."]])

    document = _document(pdf)

    assert document.page_count == 3
    assert document.page_at(document.text.index("Derde")) == 3


def test_a_plain_text_is_one_page() -> None:
    document = single_page("Regel een\nloopt door.\n\nTweede alinea.")

    assert document.text == "Regel een loopt door.\n\nTweede alinea."
    assert document.page_starts == (0,)


CIZ_FOOTER = "CIZ | Beleidsregels indicatiestelling Wlz 2025 {page}"
PROFILES = "ABCDEF"
CHAPTER = [
    [
        f"Artikel {page * 2 + 1}",
        f"Bij de indicatie voor zorgprofiel {PROFILES[page - 1]} weegt het CIZ de beperkingen van de cliënt.",
    ]
    for page in range(1, 7)
]


@pytest.fixture
def chapter(tmp_path: Path) -> ParsedDocument:
    """Six pages of a report printed from page 19 on, with a running footer that carries the printed number."""
    path = text_pdf(tmp_path / "beleidsregels.pdf", CHAPTER, footer=CIZ_FOOTER, numbered_from=19)
    with open_pdf(path, 10**8) as pdf:
        return parse_pdf(pdf)


def test_a_running_footer_with_an_offset_page_number_is_removed(chapter: ParsedDocument) -> None:
    records = chunk_records(chapter, DocumentTags(), chunk_size=200, chunk_overlap=40)

    assert "Beleidsregels" not in chapter.text.text
    assert not [record for record in records if "Beleidsregels" in record.chunk]
    assert "Artikel 13" in chapter.text.text  # numbered headings do not run with the page number: they stay


def test_removing_a_running_footer_keeps_every_chunk_on_its_page(chapter: ParsedDocument) -> None:
    records = chunk_records(chapter, DocumentTags(), chunk_size=200, chunk_overlap=40)

    for record in records:
        assert chapter.text.text[record.char_start : record.char_end] == record.chunk
        for profile in re.findall(r"zorgprofiel ([A-F])", record.chunk):  # a sentence drawn on one page
            assert record.page_start <= PROFILES.index(profile) + 1 <= record.page_end
    for page in range(1, 7):
        assert chapter.text.page_text(page).startswith(f"Artikel {page * 2 + 1}\nBij de indicatie")


def test_a_line_on_fewer_than_half_the_pages_is_kept(tmp_path: Path) -> None:
    ten_pages = [*CHAPTER, *CHAPTER[:4]]
    pages = [
        [*lines, "Let op: dubbele controle 2"] if number < 4 else lines
        for number, lines in enumerate(ten_pages)
    ]
    path = text_pdf(tmp_path / "deels.pdf", pages)

    assert _document(path).text.count("Let op: dubbele controle 2") == 4
