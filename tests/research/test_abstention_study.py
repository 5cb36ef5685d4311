"""How the abstention study picks the thresholds of the chat's "not found" rule, and the measures it records."""

import pytest

from research.abstention.study import SIGNALS, Observation, Signal, outcome, strictest_rule

DENSE_ONLY = Signal("dense", dense=True, bm25=False)


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
