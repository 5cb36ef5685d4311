"""Words split by layout-mode extraction are joined again where plain mode reads them whole; the rate of
split words is measured on the sample documents against plain extraction."""

from pathlib import Path

import pytest
from pypdf import PdfReader

from ingest.pdf_reader import open_pdf, page_texts
from ingest.split_words import rejoin_split_words
from ingest.vocabulary import dutch_words

SAMPLES = sorted((Path(__file__).resolve().parents[3] / "samples" / "documents").glob("*.pdf"))


@pytest.mark.parametrize(
    ("layout", "plain", "expected"),
    [
        (
            "De ontwikkel aar van het systeem",
            "De ontwikkelaar van het\nsysteem",
            "De ontwikkelaar van het systeem",
        ),
        ("zorg, b ijv. thuis", "zorg, bijv. thuis", "zorg, bijv. thuis"),
        ("in de implementatie -fase", "in de implementatie-fase", "in de implementatie-fase"),
    ],
)
def test_a_word_plain_mode_reads_whole_is_joined(layout: str, plain: str, expected: str) -> None:
    joined, joins = rejoin_split_words(layout, plain)

    assert (" ".join(joined.split()), joins) == (expected, 1)


@pytest.mark.parametrize(
    ("layout", "plain", "expected"),
    [
        (  # a real report: justified lines where layout mode widened letter gaps into runs of spaces
            "ten  die  gevolgde  wer              den  in de surveillance",
            "patienten die gevolgde werden in de surveillance",
            "ten die gevolgde werden in de surveillance",
        ),
        ("met de l          eeftijd: van 1%", "steeg met de leeftijd: van 1%", "met de leeftijd: van 1%"),
        (
            "zie paragraaf 5.3. 1a hieronder",
            "zie paragraaf 5.3.1a hieronder",
            "zie paragraaf 5.3.1a hieronder",
        ),
        ("de wet - en regelgeving", "de wet- en regelgeving", "de wet- en regelgeving"),
    ],
)
def test_pieces_split_by_wide_gaps_numbers_and_punctuation_are_joined(
    layout: str, plain: str, expected: str
) -> None:
    assert " ".join(rejoin_split_words(layout, plain)[0].split()) == expected


def test_a_joined_word_keeps_the_columns_after_it_in_place() -> None:
    layout = "de l          eeftijd van         Rechterkolom begint hier"

    joined, _ = rejoin_split_words(layout, "de leeftijd van\nRechterkolom begint hier")

    assert joined.index("Rechterkolom") == layout.index("Rechterkolom")


@pytest.mark.skipif(not dutch_words(), reason="the Dutch word list (Debian wdutch) is not installed")
def test_two_dutch_words_glued_by_plain_mode_stay_apart() -> None:
    assert rejoin_split_words("volg de voorschriften op", "volg devoorschriften op") == (
        "volg de voorschriften op",
        0,
    )


def test_a_real_pair_of_words_stays_apart_even_when_their_join_is_also_a_word() -> None:
    layout = "  Zie de  taak:  de n  en de taak  "
    plain = "Zie de taak: de n en de taak. Een dentaak staat elders; de taak ook."

    assert rejoin_split_words(layout, plain) == (layout, 0)


def test_the_layout_order_is_kept() -> None:
    layout = "Klik op de link hier om verder te gaan"
    plain = "Klik op de om verder te gaan link hier"

    assert rejoin_split_words(layout, plain) == (layout, 0)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda path: path.name)
def test_the_sample_documents_keep_no_split_word(sample: Path) -> None:
    """Measured against plain extraction: every word plain mode reads whole is whole in the ingested text."""
    with open_pdf(sample, 50_000_000) as pdf:
        ingested = list(page_texts(pdf))
    plain = [page.extract_text() for page in PdfReader(sample).pages]

    remaining = sum(rejoin_split_words(text, whole)[1] for text, whole in zip(ingested, plain, strict=True))

    assert remaining == 0
