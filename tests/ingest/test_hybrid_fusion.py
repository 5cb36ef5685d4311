"""relativeScoreFusion reproduces Weaviate's: per-leg min-max, α-weighted sum, a missing leg gives 0."""

import pytest

from ingest.search.fusion import normalised_leg, relative_score_fusion

# The worked example of Weaviate's blog post "Unlocking the Power of Hybrid Search" (2023-08-29): document id, score.
KEYWORD = [(1, 5.0), (0, 2.6), (2, 2.3), (4, 0.2), (3, 0.09)]
VECTOR = [(2, 0.6), (4, 0.598), (0, 0.596), (1, 0.594), (3, 0.009)]
UUIDS = {key: f"00000000-0000-0000-0000-00000000000{key}" for key in range(5)}


def _by_hand(key: int, alpha: float) -> float:
    keyword = dict(KEYWORD)
    vector = dict(VECTOR)
    keyword_norm = (keyword[key] - 0.09) / (5.0 - 0.09)
    vector_norm = (vector[key] - 0.009) / (0.6 - 0.009)
    return alpha * vector_norm + (1 - alpha) * keyword_norm


def test_the_worked_example_from_weaviates_documentation() -> None:
    fused = relative_score_fusion(VECTOR, KEYWORD, 0.5, UUIDS)

    assert [result.key for result in fused] == [1, 0, 2, 4, 3]
    for result in fused:
        assert result.score == pytest.approx(_by_hand(result.key, 0.5), abs=1e-6)
    assert fused[0].score == pytest.approx(0.5 * (1.0 + 0.585 / 0.591), abs=1e-6)


def test_alpha_weights_the_vector_leg() -> None:
    fused = relative_score_fusion(VECTOR, KEYWORD, 0.7, UUIDS)

    assert [result.key for result in fused] == sorted(range(5), key=lambda key: -_by_hand(key, 0.7))
    assert {r.key: r.score for r in fused} == pytest.approx(
        {key: _by_hand(key, 0.7) for key in range(5)}, abs=1e-6
    )


def test_an_object_missing_from_a_leg_gets_zero_from_it() -> None:
    fused = relative_score_fusion(
        [("a", 0.9), ("b", 0.5)], [("b", 3.0), ("c", 1.0)], 0.7, {"a": "1", "b": "2", "c": "3"}
    )

    scores = {result.key: result.score for result in fused}
    assert scores["a"] == pytest.approx(0.7 * 1.0)
    assert scores["b"] == pytest.approx(0.7 * 0.0 + 0.3 * 1.0)
    assert scores["c"] == pytest.approx(0.3 * 0.0)
    assert {r.key: r.vector is None for r in fused} == {"a": False, "b": False, "c": True}


def test_a_single_hit_or_equal_scores_normalise_to_one() -> None:
    assert normalised_leg([("only", 0.42)])["only"].normalised == 1.0
    assert {leg.normalised for leg in normalised_leg([("a", 2.0), ("b", 2.0)]).values()} == {1.0}


def test_ties_go_to_the_higher_keyword_score_then_the_smaller_uuid() -> None:
    vector = [("x", 0.8), ("y", 0.8), ("z", 0.8)]
    keyword = [("x", 1.0), ("y", 2.0), ("z", 1.0)]
    uuids = {"x": "b-uuid", "y": "c-uuid", "z": "a-uuid"}

    fused = relative_score_fusion(vector, keyword, 1.0, uuids)

    assert [result.key for result in fused] == ["y", "z", "x"]


def test_the_limit_cuts_after_ordering() -> None:
    assert [r.key for r in relative_score_fusion(VECTOR, KEYWORD, 0.5, UUIDS, limit=2)] == [1, 0]
