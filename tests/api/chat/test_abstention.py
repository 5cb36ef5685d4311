"""Knowing when it does not know: the signals (raw leg scores, coverage of the question's content words) and the rule
on them."""

import pytest

from api.chat.abstention import AbstentionRule, Confidence, coverage
from api.dutch import content_words
from ingest.search.types import LegScores


def legs(dense: float | None, bm25: float | None) -> tuple[LegScores | None, LegScores | None]:
    return (
        None if dense is None else LegScores(raw=dense, normalised=1.0),
        None if bm25 is None else LegScores(raw=bm25, normalised=0.0),
    )


def test_confidence_is_the_best_raw_score_of_each_leg_not_the_rescaled_one() -> None:
    confidence = Confidence.of([legs(0.81, None), legs(0.86, 2.5), legs(None, 4.0)])

    assert confidence == Confidence(dense=0.86, bm25=4.0)
    assert Confidence.of([]) == Confidence(None, None)


def test_content_words_leave_out_stopwords_question_words_and_single_letters() -> None:
    assert content_words("Hoe lang moet ik de handen wrijven met handalcohol? Hoe lang?") == [
        "handen",
        "wrijven",
        "handalcohol",
    ]
    assert content_words("insuline s.c. waar prikken") == ["insuline", "prikken"]


def test_coverage_finds_words_whole_inside_a_compound_or_inflected() -> None:
    passage = "Titel: Handhygiëne\nTekst: Wrijf de handalcohol in. Masseer rode huid nooit."

    assert coverage("alcohol", [passage]) == 1.0  # inside "handalcohol"
    assert coverage("wrijven", [passage]) == 0.0  # "wrijf": a stem whose spelling changes is not bridged
    assert coverage("rode huid masseren?", [passage]) == 1.0  # "masseren" and "masseer" share "masse"
    assert coverage("rode huid kind", [passage]) == pytest.approx(2 / 3)
    assert coverage("hoe vaak?", [passage]) is None  # nothing but question words: nothing to cover


def test_a_sibling_procedure_covers_all_but_the_patient_group() -> None:
    adult = "Titel: Glucagon bij volwassenen\nTekst: De dosis glucagon is 1 mg i.m. bij een ernstige hypo."

    assert coverage("glucagon dosis volwassene", [adult]) == 1.0
    assert coverage("glucagon dosis kind", [adult]) == pytest.approx(2 / 3)
    assert coverage("glucagon dosis kind", []) == 0.0


def test_short_words_match_only_whole() -> None:
    assert coverage("inr", ["Titel: Hartklep\nTekst: Controleer de INR wekelijks."]) == 1.0
    assert (
        coverage("inr", ["Titel: Insuline\nTekst: De pen is persoonsgebonden en binnen 4 weken op."]) == 0.0
    )


@pytest.mark.parametrize(
    ("dense", "bm25", "abstains"),
    [
        (0.90, None, False),  # the dense leg vouches
        (0.80, 2.5, False),  # BM25 vouches for the documents' exact words
        (0.80, 1.0, True),  # neither
        (None, None, True),  # nothing retrieved
    ],
)
def test_either_leg_may_vouch_for_the_best_chunk(
    dense: float | None, bm25: float | None, abstains: bool
) -> None:
    assert AbstentionRule(min_dense=0.88, min_bm25=2.0).abstains(Confidence(dense, bm25)) is abstains


def test_without_thresholds_the_chat_never_abstains() -> None:
    assert AbstentionRule(None, None).abstains(Confidence(None, None)) is False
    assert AbstentionRule(None, None, None).abstains(Confidence(0.1, 0.1, 0.0)) is False


@pytest.mark.parametrize(
    ("dense", "covered", "abstains"),
    [
        (0.90, 1.0, False),  # the dense leg vouches and the passages hold the question's words
        (0.90, 0.5, True),  # close in meaning, but half of what is asked about is not there (a sibling)
        (0.80, 1.0, True),  # every word is there, yet far in meaning
        (0.90, None, False),  # a question of question words only is not refused for coverage
    ],
)
def test_coverage_is_required_besides_a_vouching_leg(
    dense: float, covered: float | None, abstains: bool
) -> None:
    rule = AbstentionRule(min_dense=0.85, min_bm25=None, min_coverage=0.6)

    assert rule.abstains(Confidence(dense, None, covered)) is abstains


def test_coverage_alone_can_decide() -> None:
    rule = AbstentionRule(None, None, min_coverage=0.6)

    assert rule.abstains(Confidence(None, None, 0.5)) is True
    assert rule.abstains(Confidence(None, None, 0.7)) is False
