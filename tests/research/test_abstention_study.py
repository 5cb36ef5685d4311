"""How the abstention study picks the thresholds of the chat's "not found" rule, and the measures it records."""

import pytest

from api.chat.abstention import AbstentionRule
from api.evaluator.queries import EvalQuery
from research.abstention.study import (
    SIGNALS,
    LabelledSet,
    Observation,
    Signal,
    dense_gate,
    fold_indexes,
    outcome,
    refusals_by_wording,
    strictest_rule,
    wording,
)

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


def test_with_the_whole_index_every_question_is_asked_once_of_all_documents() -> None:
    groups = {"a.pdf": "a.pdf", "b.pdf": "b.pdf", "c.pdf": "c.pdf"}
    left_out = LabelledSet("real/dev", (), groups, (), folds=3)
    whole = LabelledSet("real/dev", (), groups, (), folds=3, leave_out=False)

    assert fold_indexes(whole) == [frozenset(groups)]
    assert sorted(map(sorted, fold_indexes(left_out))) == [
        ["a.pdf", "b.pdf"],
        ["a.pdf", "c.pdf"],
        ["b.pdf", "c.pdf"],
    ]


def test_a_question_is_paraphrased_when_its_id_says_so() -> None:
    def query(id: str, documents: tuple[str, ...] = ("a.pdf",)) -> EvalQuery:
        return EvalQuery(id=id, question="Vraag?", relevant_documents=documents)

    assert wording(query("dev.fact.para.anti-28")) == "paraphrased"
    assert wording(query("paraphrased-test.number.para.ms-70")) == "paraphrased"
    assert wording(query("dev.number.lit.anti-01")) == "literal"
    assert wording(query("7")) == "literal"
    assert wording(query("dev.none.lit.none-01", ())) == "unanswerable"


def test_refusals_are_counted_per_set_part_and_wording() -> None:
    def seen(name: str, query_id: str, group: str, dense: float) -> Observation:
        answerable = group != "unanswerable"
        return Observation(name, 0, "q", answerable, True, dense, None, 1.0, query_id=query_id, wording=group)

    observations = [
        seen("real/dev", "dev.fact.lit.a-1", "literal", 0.90),
        seen("real/dev", "dev.fact.lit.a-2", "literal", 0.80),
        seen("real/dev", "paraphrased-dev.fact.para.a-3", "paraphrased", 0.84),
        seen("real/dev", "dev.none.lit.n-1", "unanswerable", 0.81),
        seen("real/test", "7", "unanswerable", 0.86),
    ]

    refusals = refusals_by_wording(observations, AbstentionRule(min_dense=0.83, min_bm25=None))

    assert refusals == {
        ("real/dev", "dev", "literal"): (1, 2),
        ("real/dev", "paraphrased-dev", "paraphrased"): (0, 1),
        ("real/dev", "dev", "unanswerable"): (1, 1),
        ("real/test", "", "unanswerable"): (0, 1),
    }


def test_the_dense_gate_is_the_strictest_cosine_that_refuses_no_more_than_the_budget_of_the_answerable() -> (
    None
):
    answerable = [observation(True, 0.80 + i / 100) for i in range(20)]  # 0.80 … 0.99
    near_topic = [observation(False, 0.95) for _ in range(5)]  # the gate is for what is far, not for these

    gate = dense_gate(answerable + near_topic, budget=0.10)

    assert gate is not None and 0.81 < gate <= 0.82  # 0.80 and 0.81 refused: 2 of 20
    assert outcome(answerable, AbstentionRule(gate, None)).false_abstention == pytest.approx(0.10)
    assert dense_gate(answerable, budget=0.0) == 0.8  # the lowest cosine itself still passes
    assert dense_gate(near_topic, budget=0.05) is None  # no answerable question: nothing to calibrate on
