"""The signals the abstention study measured in coverage's place (the chat's rule does not use them): how specific
a question word is in the collection, and coverage weighted by it."""

import pytest

from api.chat.abstention import coverage
from api.dutch import Vocabulary
from research.abstention.candidates import (
    document_frequencies,
    idf_weights,
    most_specific_found,
    weighted_coverage,
)

CHUNKS = [
    Vocabulary(["Titel: Transfusie bij neonaten\nTekst: Bij neonaten geldt de kruisproef 72 uur."]),
    Vocabulary(["Titel: Transfusie bij volwassenen\nTekst: De kruisproef van de patiënt geldt 72 uur."]),
    Vocabulary(["Titel: Valpreventie\nTekst: Zet de bedrails omhoog bij de patiënt."]),
]


def test_a_word_is_as_frequent_as_the_chunks_that_hold_it_the_way_coverage_matches() -> None:
    frequencies = document_frequencies(["kruisproef", "neonaat", "patiënt", "pcm"], CHUNKS)

    assert frequencies == {"kruisproef": 2, "neonaat": 1, "patiënt": 2, "pcm": 0}  # "neonaat" ~ "neonaten"


def test_a_rare_word_weighs_more_than_a_common_one_and_an_unknown_word_most() -> None:
    weights = idf_weights({"kruisproef": 2, "neonaat": 1, "pcm": 0}, chunks=3)

    assert weights["pcm"] > weights["neonaat"] > weights["kruisproef"] > 0


def test_weighted_coverage_counts_a_missing_specific_word_more_than_a_found_common_one() -> None:
    adult = "Titel: Transfusie bij volwassenen\nTekst: De kruisproef van de patiënt geldt 72 uur."
    weights = {"kruisproef": 0.5, "patiënt": 0.5, "neonaat": 2.0}

    assert coverage("kruisproef patiënt neonaat", [adult]) == pytest.approx(2 / 3)
    assert weighted_coverage("kruisproef patiënt neonaat", [adult], weights) == pytest.approx(1 / 3)
    assert weighted_coverage("kruisproef patiënt neonaat", [adult], {}) == pytest.approx(2 / 3)  # unweighted
    assert weighted_coverage("hoe vaak?", [adult], weights) is None
    assert weighted_coverage("pcm", [adult], {"pcm": 0.0}) is None  # no weight: nothing to cover


def test_the_most_specific_word_is_the_heaviest_and_the_first_of_equals() -> None:
    adult = "Titel: Transfusie bij volwassenen\nTekst: De kruisproef van de patiënt geldt 72 uur."

    assert most_specific_found("kruisproef neonaat", [adult], {"kruisproef": 0.5, "neonaat": 2.0}) is False
    assert most_specific_found("kruisproef neonaat", [adult], {"kruisproef": 2.0, "neonaat": 0.5}) is True
    assert most_specific_found("kruisproef neonaat", [adult], {}) is True  # equals: the first
    assert most_specific_found("hoe vaak?", [adult], {}) is None
