"""Cleaning keeps the natural language and removes what PDF extraction adds."""

import pytest

from ingest.cleaning import clean_line, continues_word, is_soft_break, join_lines, normalise_characters


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
