"""Knowing when it does not know: the signals (raw leg scores, coverage of the question's content words), the rule
on them, and how the study picks its thresholds."""

import pytest

from api.chat.abstention import AbstentionRule, Confidence, content_words, coverage
from api.chat.abstention_study import SIGNALS, Observation, Signal, outcome, strictest_rule
from ingest.search.types import LegScores

DENSE_ONLY = Signal("dense", dense=True, bm25=False)


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


def observation(
    answerable: bool, dense: float, bm25: float | None = None, covered: float | None = None
) -> Observation:
    return Observation("set", 0, "q", answerable, answerable, dense, bm25, 1.0, covered)


def test_the_study_picks_the_strictest_threshold_whose_false_abstention_stays_within_budget() -> None:
    answerable = [observation(True, 0.80 + i / 100) for i in range(10)]  # 0.80 … 0.89
    unanswerable = [observation(False, 0.75 + i / 100) for i in range(10)]  # 0.75 … 0.84
    observations = answerable + unanswerable

    rule = strictest_rule(observations, budget=0.10, signal=DENSE_ONLY)
    rates = outcome(observations, rule)

    assert rule.min_dense is not None
    assert 0.80 < rule.min_dense <= 0.81  # higher would refuse two answerable questions of ten
    assert rates.false_abstention == pytest.approx(0.10)
    assert rates.abstention == pytest.approx(0.60)


def test_the_study_adds_a_coverage_threshold_where_it_refuses_what_the_legs_let_through() -> None:
    answerable = [observation(True, 0.90, covered=1.0) for _ in range(9)] + [
        observation(True, 0.90, covered=0.5)
    ]
    siblings = [observation(False, 0.90, covered=0.5) for _ in range(5)]  # close in meaning, a word missing
    far = [observation(False, 0.80, covered=1.0) for _ in range(5)]
    observations = answerable + siblings + far
    with_coverage = next(signal for signal in SIGNALS if signal.dense and signal.coverage and not signal.bm25)

    legs_only = strictest_rule(observations, budget=0.10, signal=DENSE_ONLY)
    both = strictest_rule(observations, budget=0.10, signal=with_coverage)

    assert outcome(observations, legs_only).abstention == pytest.approx(0.5)  # only the far ones
    assert both.min_coverage is not None and 0.5 < both.min_coverage <= 1.0
    assert outcome(observations, both).abstention == pytest.approx(1.0)
    assert outcome(observations, both).false_abstention == pytest.approx(0.1)


def test_a_threshold_taken_at_an_observed_share_is_reached_by_it() -> None:
    answerable = [observation(True, 0.9, covered=2 / 3) for _ in range(10)]
    unanswerable = [observation(False, 0.9, covered=1 / 3) for _ in range(10)]
    coverage_only = next(
        signal for signal in SIGNALS if signal.coverage and not (signal.dense or signal.bm25)
    )

    rule = strictest_rule(answerable + unanswerable, budget=0.0, signal=coverage_only)

    assert outcome(answerable + unanswerable, rule).false_abstention == 0.0
    assert outcome(answerable + unanswerable, rule).abstention == 1.0


def test_a_signal_may_threshold_another_measure_in_coverages_place() -> None:
    def seen(answerable: bool, covered: float, weighted: float) -> Observation:
        return Observation(
            "set", 0, "q", answerable, answerable, 0.9, None, 1.0, covered, idf_coverage=weighted
        )

    answerable = [seen(True, 2 / 3, 0.9) for _ in range(10)]
    siblings = [seen(False, 2 / 3, 0.3) for _ in range(10)]  # the same share of words, the rare one missing
    weighted = Signal("idf", dense=False, bm25=False, coverage=True, measure="idf_coverage")
    plain = Signal("plain", dense=False, bm25=False, coverage=True)

    rule = strictest_rule(answerable + siblings, budget=0.0, signal=weighted)

    assert outcome(answerable + siblings, rule, "idf_coverage").abstention == 1.0
    assert outcome(answerable + siblings, strictest_rule(answerable + siblings, 0.0, plain)).abstention == 0.0


def test_coverage_with_the_most_specific_word_is_nothing_when_that_word_is_missing() -> None:
    def seen(covered: float | None, specific: float | None) -> Observation:
        return Observation("set", 0, "q", True, True, 0.9, None, 1.0, covered, specific_found=specific)

    assert seen(0.8, 1.0).coverage_and_specific == 0.8
    assert seen(0.8, 0.0).coverage_and_specific == 0.0
    assert seen(None, None).coverage_and_specific is None


def test_a_signal_names_a_measure_the_study_records() -> None:
    with pytest.raises(ValueError, match="unknown measure"):
        Signal("typo", dense=False, bm25=False, coverage=True, measure="idf_covrage")
