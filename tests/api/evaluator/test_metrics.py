"""Hit@k and MRR from returned order: hand-computed cases, ties, misses, and a cross-check against ranx."""

import random

import pytest
from ranx import Qrels, Run, evaluate

from api.evaluator.metrics import (
    CUTOFFS,
    DEPTH,
    first_relevant_rank,
    hit_at,
    mean_reciprocal_rank,
    plotted_rank,
    reciprocal_rank,
    summarise,
)


def test_the_rank_is_the_position_of_the_first_relevant_result() -> None:
    assert first_relevant_rank([False, False, True, True]) == 3
    assert first_relevant_rank([True]) == 1


def test_a_relevant_result_beyond_the_depth_is_a_miss_with_reciprocal_rank_zero_plotted_at_fifty() -> None:
    at_fifty = [False] * 49 + [True]
    at_fifty_one = [False] * 50 + [True]

    assert first_relevant_rank(at_fifty) == 50
    assert first_relevant_rank(at_fifty_one) is None
    assert first_relevant_rank([]) is None
    assert (reciprocal_rank(None), plotted_rank(None)) == (0.0, DEPTH)
    assert plotted_rank(7) == 7


def test_hand_computed_hits_and_mrr_over_four_questions() -> None:
    ranks = [1, 3, None, 8]

    assert hit_at(ranks, 1) == 0.25
    assert hit_at(ranks, 3) == 0.5
    assert hit_at(ranks, 7) == 0.5
    assert hit_at(ranks, 10) == 0.75
    assert mean_reciprocal_rank(ranks) == pytest.approx((1 + 1 / 3 + 0 + 1 / 8) / 4)


def test_summary_reports_every_cutoff_and_none_when_nothing_could_be_judged() -> None:
    summary = summarise([2, None])

    assert summary is not None
    assert summary.metrics() == {
        "Hit@1": 0.0,
        "Hit@3": 0.5,
        "Hit@5": 0.5,
        "Hit@7": 0.5,
        "Hit@10": 0.5,
        "Hit@50": 0.5,
        "MRR": 0.25,
    }
    assert summary.questions == 2
    assert summarise([]) is None
    with pytest.raises(ValueError, match="zero questions"):
        hit_at([], 3)


def test_metrics_agree_with_ranx_on_strictly_decreasing_scores() -> None:
    generator = random.Random(4)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    ranks: list[int | None] = []
    for number in range(300):
        query = f"q{number}"
        retrieved = [f"{query}-d{position}" for position in range(60)]
        relevant = set(generator.sample(retrieved, generator.choice([0, 1, 1, 2, 3])))
        relevant.add(f"{query}-never-retrieved")
        qrels[query] = dict.fromkeys(relevant, 1)
        run[query] = {doc: 1.0 - position / 100 for position, doc in enumerate(retrieved)}
        ranks.append(first_relevant_rank([doc in relevant for doc in retrieved]))

    expected = evaluate(Qrels(qrels), Run(run), [f"hit_rate@{k}" for k in CUTOFFS] + [f"mrr@{DEPTH}"])

    assert None in ranks and any(rank is not None and rank > 10 for rank in ranks)
    for k in CUTOFFS:
        assert hit_at(ranks, k) == pytest.approx(expected[f"hit_rate@{k}"])
    assert mean_reciprocal_rank(ranks) == pytest.approx(expected[f"mrr@{DEPTH}"])
