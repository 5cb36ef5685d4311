"""Cleaning keeps the natural language and removes what PDF extraction adds."""

import pytest

from ingest.cleaning import clean_line, continues_word, is_soft_break, join_lines, normalise_characters
from ingest.document_text import RowLine, clean_page_blocks
from ingest.tables import TableRow
from ingest.vocabulary import dutch_words


def test_ligatures_and_compatibility_forms_become_plain_letters() -> None:
    assert normalise_characters("Aﬂeiding van de ﬁxatie") == "Afleiding van de fixatie"


def test_invisible_and_control_characters_are_removed_and_odd_spaces_become_plain() -> None:
    assert clean_line("sep\u00adsis\u200b bij\u00a0kin\x07deren\ufeff") == "sepsis bij kinderen"


@pytest.mark.parametrize("bullet", ["\uf0b7", "\uf0a7", "•", "▪", "◦", "-", "➢"])
def test_symbol_font_bullets_become_a_plain_dash(bullet: str) -> None:
    assert clean_line(f"  {bullet}   Controleer de temperatuur") == "- Controleer de temperatuur"


def test_a_minus_sign_before_a_number_is_not_a_bullet() -> None:
    assert clean_line("-5 graden onder nul") == "-5 graden onder nul"


def test_stray_backslashes_go_but_paths_keep_theirs() -> None:
    assert clean_line(r"Dien \ het medicijn toe \ ") == "Dien het medicijn toe"
    assert clean_line(r"zie G:\Procedures\koorts") == r"zie G:\Procedures\koorts"


def test_runs_of_spaces_collapse() -> None:
    assert clean_line("Paracetamol      500 mg\t\toraal") == "Paracetamol 500 mg oraal"


def test_a_word_hyphenated_at_a_line_end_is_rejoined() -> None:
    assert join_lines(["De behan-", "deling van koorts."]) == "De behandeling van koorts."


@pytest.mark.parametrize(
    ("before", "after"),
    [("hart-", "en vaatziekten"), ("COVID-", "19 vaccinatie"), ("Anti-", "Stollingsdienst")],
)
def test_hyphens_that_belong_to_the_text_stay(before: str, after: str) -> None:
    assert not continues_word(before, after)


def test_lines_broken_inside_a_sentence_are_joined_with_a_space() -> None:
    assert join_lines(["Geef paracetamol bij koorts", "boven 38,5 graden."]) == (
        "Geef paracetamol bij koorts boven 38,5 graden."
    )


def test_headings_list_items_and_sentence_ends_keep_their_line_break() -> None:
    lines = ["Doel", "Deze procedure beschrijft de zorg.", "Meet de temperatuur:", "- oraal", "- rectaal"]

    assert (
        join_lines(lines)
        == "Doel\nDeze procedure beschrijft de zorg.\nMeet de temperatuur:\n- oraal\n- rectaal"
    )


def test_blank_lines_separate_paragraphs_once() -> None:
    assert join_lines(["Eerste alinea.", "", "", "", "Tweede alinea."]) == "Eerste alinea.\n\nTweede alinea."


def test_a_soft_break_needs_a_lowercase_continuation() -> None:
    assert is_soft_break("bij patiënten met", "ernstige pijn")
    assert not is_soft_break("bij patiënten met", "Ernstige pijn")
    assert not is_soft_break("Einde van de zin.", "volgende")


needs_word_list = pytest.mark.skipif(
    not dutch_words(), reason="the Dutch word list (Debian wdutch) is not installed"
)


@needs_word_list
@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["ook wel micro-", "organismen genoemd"], "ook wel micro-organismen genoemd"),
        (["bij de meeste MS-", "patiënten nu en dan"], "bij de meeste MS-patiënten nu en dan"),
        (["na een auto-", "ongeluk"], "na een auto-ongeluk"),
        (["De behan-", "deling van koorts."], "De behandeling van koorts."),
        (["de ziekenhuis-", "opname duurt"], "de ziekenhuisopname duurt"),
    ],
)
def test_a_line_end_hyphen_stays_only_where_the_word_is_written_with_it(
    lines: list[str], expected: str
) -> None:
    assert join_lines(lines) == expected


@needs_word_list
@pytest.mark.parametrize(
    ("line", "expected"),
    [  # the letter-spaced title page of a real Sciensano report, as pypdf extracts it
        (
            "IN FE C TIE Z IE K TE N M E NS - VIR AL E Z IE K T E NE P I DE M I O L O GIE V AN I NFE C T IE Z IE K T E N",
            "INFECTIEZIEKTEN MENS - VIRALE ZIEKTEN EPIDEMIOLOGIE VAN INFECTIEZIEKTEN",
        ),
        ("S U R V E I L L A N C E V A N", "SURVEILLANCE VAN"),
        ("G R I E P I N F E C T I E S I N S EI Z O E N", "GRIEPINFECTIES IN SEIZOEN"),
        ("zie de bijlagen A B C D", "zie de bijlagen A B C D"),
        ("Stap a b c d van het plan", "Stap a b c d van het plan"),
        ("hierbij is af en toe hulp nodig", "hierbij is af en toe hulp nodig"),  # short words, not letters
        ("weer te bewegen en t e doen wat je kunt", "weer te bewegen en t e doen wat je kunt"),
    ],
)
def test_letter_spaced_headers_read_as_words_and_letter_lists_stay(line: str, expected: str) -> None:
    assert clean_line(line) == expected


@needs_word_list
def test_a_table_row_is_one_line_whose_cells_read_as_written() -> None:
    row = TableRow(
        (
            ("Totaal voor het seizoen (weken 40-", "2017 – 18-", "2018)"),  # a real report's narrow cells
            ("nega", "tief"),
            (),
            ("Hoe laat heeft u uw", "onderzoek?"),
        )
    )

    lines = clean_page_blocks(["Tabel 1", row])

    assert (
        lines[-1]
        == "Totaal voor het seizoen (weken 40-2017 – 18-2018) | negatief | Hoe laat heeft u uw onderzoek?"
    )
    assert isinstance(lines[-1], RowLine)
