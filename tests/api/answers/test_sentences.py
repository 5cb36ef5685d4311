"""Dutch sentence splitting on the sample procedures' own text (parsed from their PDFs as ingestion parses them)."""

import itertools
from pathlib import Path

import pytest

from api.answers.sentences import split_sentences
from ingest.pdf_reader import open_pdf
from ingest.pipeline import parse_pdf
from tests.conftest import REPO_ROOT

SAMPLES = REPO_ROOT / "samples" / "documents"


def text_of(name: str) -> str:
    with open_pdf(SAMPLES / name, 50_000_000) as pdf:
        return parse_pdf(pdf).text.text


@pytest.fixture(scope="module")
def handhygiene() -> list[str]:
    return [sentence.text for sentence in split_sentences(text_of("handhygiene.pdf"))]


def test_numbered_steps_are_sentences_of_their_own(handhygiene: list[str]) -> None:
    assert "3. Wrijf de handen 20 tot 30 seconden in tot ze volledig droog zijn." in handhygiene
    assert "4. Raak pas daarna de patiënt of het steriele materiaal aan." in handhygiene


def test_list_items_without_a_full_stop_are_sentences_and_initials_do_not_cut(handhygiene: list[str]) -> None:
    assert "- als de handen zichtbaar vuil of nat zijn;" in handhygiene
    assert "- na contact met een patiënt met (vermoeden van) C. difficile of norovirus;" in handhygiene


def test_abbreviations_do_not_end_a_sentence(handhygiene: list[str]) -> None:
    assert (
        "2. Vóór een schone of aseptische handeling, bv. het aanprikken van een poortkatheter of het manipuleren "
        "van een i.v.-lijn." in handhygiene
    )


def test_headings_and_a_pdf_line_break_inside_a_sentence(handhygiene: list[str]) -> None:
    assert "6. Handen wassen met water en zeep" in handhygiene
    assert (
        "De procedure volgt de richtlijn van de\nWHO en de aanbevelingen van het team ziekenhuishygiëne."
        in (handhygiene)
    )


@pytest.mark.parametrize("name", sorted(path.name for path in SAMPLES.glob("*.pdf")))
def test_every_sentence_is_its_span_and_none_is_a_whole_section(name: str) -> None:
    text = text_of(name)
    sentences = split_sentences(text)
    assert all(text[s.start : s.end] == s.text for s in sentences)
    assert all(a.end <= b.start for a, b in itertools.pairwise(sentences))
    assert max(len(s.text) for s in sentences) < 300


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Geef bijv. 15 g suiker. Meet ca. 15 min. later opnieuw, o.a. bij kinderen, d.w.z. jonger dan 18 jaar.",
            [
                "Geef bijv. 15 g suiker.",
                "Meet ca. 15 min. later opnieuw, o.a. bij kinderen, d.w.z. jonger dan 18 jaar.",
            ],
        ),
        ("Geef max. 4 g per dag. Stop dan.", ["Geef max. 4 g per dag.", "Stop dan."]),
        ("1. Neem de pen.\n2. Prik s.c. in de buik.", ["1. Neem de pen.", "2. Prik s.c. in de buik."]),
        ("", []),
        ("   \n\n  ", []),
    ],
)
def test_dutch_abbreviations_and_steps(text: str, expected: list[str]) -> None:
    assert [sentence.text for sentence in split_sentences(text)] == expected


def test_a_very_long_text_without_boundaries_is_one_sentence_and_quick(tmp_path: Path) -> None:
    text = " ".join(f"kolom{i} 12 mg" for i in range(20_000))
    [sentence] = split_sentences(text)
    assert sentence.text == text


def test_each_table_row_that_starts_with_a_value_is_a_sentence_and_wrapped_prose_is_not() -> None:
    table = (
        "Bradenscore Risico Beleid\n19–23 Geen verhoogd risico Huidinspectie bij de dagelijkse zorg\n"
        "1,5–2,9 mmol/L Risico op DKA Zoals hierboven\nHypoglycemie is een glycemie lager dan\n70 mg/dL (3,9 mmol/L)."
    )

    assert [sentence.text for sentence in split_sentences(table)] == [
        "Bradenscore Risico Beleid",
        "19–23 Geen verhoogd risico Huidinspectie bij de dagelijkse zorg",
        "1,5–2,9 mmol/L Risico op DKA Zoals hierboven",
        "Hypoglycemie is een glycemie lager dan\n70 mg/dL (3,9 mmol/L).",
    ]


def test_a_long_line_of_prose_goes_on_into_a_next_line_that_starts_like_a_table_row() -> None:
    """The real anticoagulation leaflet wraps "… een INR van ongeveer" before "1.0 De INR-waarde …" (its full stop
    lost): the value belongs to the sentence, which was quoted without it."""
    text = (
        "Iemand die geen antistollingsmiddelen gebruik heeft een INR van ongeveer\n"
        "1.0 De INR-waarde wordt hoger wanneer er meer antistollingsmiddelen worden gebruikt."
    )

    assert [sentence.text for sentence in split_sentences(text)] == [text]
