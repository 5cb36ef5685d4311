"""Knowing when it does not know: the rule on raw leg scores, and how the study picks its thresholds."""

import pytest

from api.chat.abstention import AbstentionRule, Confidence
from api.chat.abstention_study import Observation, outcome, strictest_rule
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


def observation(answerable: bool, dense: float, bm25: float | None = None) -> Observation:
    return Observation("set", 0, "q", answerable, answerable, dense, bm25, 1.0)


def test_the_study_picks_the_strictest_threshold_whose_false_abstention_stays_within_budget() -> None:
    answerable = [observation(True, 0.80 + i / 100) for i in range(10)]  # 0.80 … 0.89
    unanswerable = [observation(False, 0.75 + i / 100) for i in range(10)]  # 0.75 … 0.84
    observations = answerable + unanswerable

    rule = strictest_rule(observations, budget=0.10, use_dense=True, use_bm25=False)
    rates = outcome(observations, rule)

    assert rule.min_dense is not None
    assert 0.80 < rule.min_dense <= 0.81  # higher would refuse two answerable questions of ten
    assert rates.false_abstention == pytest.approx(0.10)
    assert rates.abstention == pytest.approx(0.60)
