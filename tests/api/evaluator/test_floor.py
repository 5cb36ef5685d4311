"""The relevance-floor analysis groups the first results' scores by relevance, from labelled questions."""

import pytest

from api.evaluator.floor import GROUPS, distributions, score_groups
from api.evaluator.judgement import QueryOutcome, ScoredResult

RELEVANT, IRRELEVANT, UNANSWERABLE = GROUPS


def _outcome(answerable: bool, resolved: bool, *results: ScoredResult) -> QueryOutcome:
    return QueryOutcome(
        query_id="q",
        question="vraag",
        answerable=answerable,
        document_judged=resolved,
        document_rank=None,
        chunk_judged=False,
        chunk_rank=None,
        unresolved=() if resolved or not answerable else ("weg.pdf",),
        top_results=results,
    )


OUTCOMES = [
    _outcome(
        True,
        True,
        ScoredResult(1.0, 0.86, True),
        ScoredResult(0.7, 0.80, False),
        ScoredResult(0.3, None, True),
    ),
    _outcome(True, True, ScoredResult(0.9, 0.81, False)),
    _outcome(False, False, ScoredResult(0.95, 0.78, False), ScoredResult(0.5, 0.77, False)),
    _outcome(True, False, ScoredResult(0.99, 0.9, False)),  # unresolved: tells nothing about relevance
]


def test_results_are_grouped_by_relevance_and_unanswerable_questions_give_their_best_result() -> None:
    assert score_groups(OUTCOMES, "score") == {
        RELEVANT: [1.0, 0.3],
        IRRELEVANT: [0.7, 0.9],
        UNANSWERABLE: [0.95],
    }


def test_results_only_bm25_found_have_no_dense_similarity_and_are_left_out_of_the_dense_groups() -> None:
    assert score_groups(OUTCOMES, "dense_similarity") == {
        RELEVANT: [0.86],
        IRRELEVANT: [0.80, 0.81],
        UNANSWERABLE: [0.78],
    }


def test_distributions_give_counts_and_percentiles_and_nothing_for_an_empty_group() -> None:
    only_answerable = distributions(OUTCOMES[:2], "score")

    assert only_answerable[RELEVANT].count == 2
    assert only_answerable[RELEVANT].quantiles == pytest.approx((0.37, 0.65, 0.93))
    assert (only_answerable[UNANSWERABLE].count, only_answerable[UNANSWERABLE].quantiles) == (0, None)
