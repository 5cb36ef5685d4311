"""Words split by layout-mode extraction are joined again where plain mode reads them whole; the rate of
split words is measured on the sample documents against plain extraction."""

from pathlib import Path

import pytest
from pypdf import PdfReader

from ingest.pdf_reader import open_pdf, page_texts
from ingest.split_words import rejoin_split_words

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples" / "documents").glob("*.pdf"))


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
    assert rejoin_split_words(layout, plain) == (expected, 1)


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
