"""Invisible text inside form XObjects (stamps, watermarks, content some producers wrap in a form) never
reaches the index, while the visible text drawn by forms stays exactly as pypdf extracts it.

pypdf's layout mode, which the pipeline reads, does not enter forms; its plain mode, the fallback for pages
layout mode cannot handle, extracts form text like page text. The tests therefore read pages the way that
fallback does, after `remove_hidden_text`, and once through `page_texts` with layout mode failing.
"""

import hashlib
from pathlib import Path
from typing import Any

import pytest
from pypdf import PageObject, PdfReader
from pypdf.errors import PdfReadError

from ingest.hidden_text import remove_hidden_text
from ingest.pdf_reader import open_pdf, page_texts
from tests.ingest.ingest_pdfs import form_pdf, hidden_text_pdf

STAMP = {"stempel": [("text", "Gecontroleerd document"), ("invisible", "ONZICHTBAAR trefwoord")]}


def _cleaned(pdf: Path) -> list[str]:
    """Each page's text as the plain-mode fallback extracts it after invisible text is removed."""
    pages = PdfReader(pdf).pages
    for page in pages:
        remove_hidden_text(page)
    return [page.extract_text() for page in pages]


def test_plain_mode_reads_text_inside_forms_and_layout_mode_does_not(tmp_path: Path) -> None:
    pdf = form_pdf(tmp_path / "a.pdf", STAMP, [[("text", "Tekst van de pagina"), ("form", "stempel")]])
    page = PdfReader(pdf).pages[0]

    assert "ONZICHTBAAR trefwoord" in page.extract_text()
    layout = page.extract_text(extraction_mode="layout")
    assert "Tekst van de pagina" in layout
    assert "Gecontroleerd document" not in layout and "ONZICHTBAAR" not in layout


def test_invisible_text_in_a_form_is_removed_and_its_visible_text_stays(tmp_path: Path) -> None:
    pdf = form_pdf(tmp_path / "a.pdf", STAMP, [[("text", "Tekst van de pagina"), ("form", "stempel")]])

    [text] = _cleaned(pdf)

    assert "Tekst van de pagina" in text and "Gecontroleerd document" in text
    assert "ONZICHTBAAR" not in text


def test_white_text_in_a_form_is_removed(tmp_path: Path) -> None:
    forms = {"watermerk": [("text", "Concept"), ("white", "WITTE trefwoorden")]}
    pdf = form_pdf(tmp_path / "a.pdf", forms, [[("form", "watermerk"), ("text", "Tekst van de pagina")]])

    [text] = _cleaned(pdf)

    assert "Concept" in text and "Tekst van de pagina" in text
    assert "WITTE" not in text


def test_a_form_drawn_twice_shows_its_visible_text_twice(tmp_path: Path) -> None:
    forms = {"kop": [("text", "Afdeling Kindergeneeskunde")]}
    clean = form_pdf(tmp_path / "schoon.pdf", forms, [[("form", "kop"), ("text", "Midden"), ("form", "kop")]])
    stamped = form_pdf(tmp_path / "stempel.pdf", STAMP, [[("form", "stempel"), ("form", "stempel")]])

    [clean_text] = _cleaned(clean)
    [stamped_text] = _cleaned(stamped)

    assert clean_text.count("Afdeling Kindergeneeskunde") == 2
    assert stamped_text.count("Gecontroleerd document") == 2
    assert "ONZICHTBAAR" not in stamped_text


def test_a_form_inside_a_form_is_cleaned_too(tmp_path: Path) -> None:
    forms = {
        "binnen": [("text", "Binnenste regel"), ("invisible", "ONZICHTBAAR binnenin")],
        "buiten": [("text", "Buitenste regel"), ("form", "binnen"), ("white", "WIT buiten")],
    }
    pdf = form_pdf(tmp_path / "a.pdf", forms, [[("form", "buiten")]])

    [text] = _cleaned(pdf)

    assert "Buitenste regel" in text and "Binnenste regel" in text
    assert "ONZICHTBAAR" not in text and "WIT" not in text


@pytest.mark.parametrize("hiding", ["invisible form", "white form"])
def test_a_form_drawn_where_the_page_hides_text_is_hidden_there_only(tmp_path: Path, hiding: str) -> None:
    forms = {"kop": [("text", "Afdeling Kindergeneeskunde")]}
    pdf = form_pdf(
        tmp_path / "a.pdf", forms, [[(hiding, "kop"), ("text", "Tekst van de pagina"), ("form", "kop")]]
    )

    [text] = _cleaned(pdf)

    assert text.count("Afdeling Kindergeneeskunde") == 1
    assert "Tekst van de pagina" in text


def test_what_a_form_leaves_set_does_not_hide_the_text_drawn_after_it(tmp_path: Path) -> None:
    forms = {"onzichtbaar": [("invisible", "ONZICHTBAAR")], "wit": [("white", "WIT")]}
    page = [("form", "onzichtbaar"), ("form", "wit"), ("text", "Tekst na de formulieren")]
    pdf = form_pdf(tmp_path / "a.pdf", forms, [page])

    [text] = _cleaned(pdf)

    assert "Tekst na de formulieren" in text
    assert "ONZICHTBAAR" not in text and "WIT" not in text


def test_a_form_shared_by_two_pages_is_judged_on_each_page(tmp_path: Path) -> None:
    forms = {"kop": [("text", "Afdeling Kindergeneeskunde")]}
    pages = [
        [("invisible form", "kop"), ("text", "Eerste pagina")],
        [("form", "kop"), ("text", "Tweede pagina")],
    ]
    pdf = form_pdf(tmp_path / "a.pdf", forms, pages)

    first, second = _cleaned(pdf)

    assert "Afdeling" not in first and "Eerste pagina" in first
    assert "Afdeling Kindergeneeskunde" in second


def test_a_form_that_draws_itself_is_read_once_and_cleaned(tmp_path: Path) -> None:
    forms = {"lus": [("text", "Regel in de lus"), ("form", "lus"), ("invisible", "ONZICHTBAAR")]}
    pdf = form_pdf(tmp_path / "a.pdf", forms, [[("form", "lus")]])

    [text] = _cleaned(pdf)

    assert text.count("Regel in de lus") == 1
    assert "ONZICHTBAAR" not in text


def test_only_the_page_in_memory_changes_not_the_file(tmp_path: Path) -> None:
    pdf = form_pdf(tmp_path / "a.pdf", STAMP, [[("form", "stempel")]])
    before = hashlib.sha256(pdf.read_bytes()).hexdigest()

    _cleaned(pdf)

    assert hashlib.sha256(pdf.read_bytes()).hexdigest() == before
    assert "ONZICHTBAAR" in PdfReader(pdf).pages[0].extract_text()


def test_hidden_text_on_the_page_itself_is_still_removed_in_both_modes(tmp_path: Path) -> None:
    pdf = hidden_text_pdf(tmp_path / "a.pdf", ["Eerste regel.", "Laatste regel."], "ONZICHTBAAR", "WIT")
    page = PdfReader(pdf).pages[0]

    assert remove_hidden_text(page) == 2
    for text in (page.extract_text(), page.extract_text(extraction_mode="layout")):
        assert "Eerste regel." in text and "Laatste regel." in text
        assert "ONZICHTBAAR" not in text and "WIT" not in text


def test_when_layout_mode_fails_the_fallback_gets_no_hidden_form_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extract_text = PageObject.extract_text

    def layout_fails(page: PageObject, *args: Any, **kwargs: Any) -> str:
        if kwargs.get("extraction_mode") == "layout":
            raise PdfReadError("font not set: is PDF missing a Tf operator?")
        return extract_text(page, *args, **kwargs)

    monkeypatch.setattr(PageObject, "extract_text", layout_fails)
    pdf = form_pdf(tmp_path / "a.pdf", STAMP, [[("text", "Tekst van de pagina"), ("form", "stempel")]])

    with open_pdf(pdf, 10_000_000) as opened:
        text = next(page_texts(opened))

    assert "Tekst van de pagina" in text and "Gecontroleerd document" in text
    assert "ONZICHTBAAR" not in text


def test_a_page_whose_whole_text_lies_in_a_form_is_read_without_its_hidden_text(tmp_path: Path) -> None:
    forms = {"pagina": [("text", "Verwissel het verband dagelijks."), ("invisible", "ONZICHTBAAR trefwoord")]}
    pdf = form_pdf(tmp_path / "a.pdf", forms, [[("form", "pagina")]])

    with open_pdf(pdf, 10_000_000) as opened:
        [text] = list(page_texts(opened))

    assert "Verwissel het verband dagelijks." in text
    assert "ONZICHTBAAR" not in text
