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


def test_an_object_in_both_legs_is_ranked_among_ties_by_its_keyword_score() -> None:
    """hybrid_fusion.go keeps the last result set's entry, and Explorer.Hybrid puts keyword last: a tie
    between two objects found by both legs goes to the higher BM25 score, not the higher cosine similarity."""
    vector = [("a", 0.9), ("b", 0.5)]  # a: normalised 1, b: 0
    keyword = [("a", 1.0), ("b", 3.0)]  # a: normalised 0, b: 1

    fused = relative_score_fusion(vector, keyword, 0.5, {"a": "1-uuid", "b": "2-uuid"})

    assert [result.score for result in fused] == [0.5, 0.5]
    assert [(result.key, result.secondary) for result in fused] == [("b", 3.0), ("a", 1.0)]


def test_an_object_in_one_leg_only_is_ranked_among_ties_by_that_legs_raw_score() -> None:
    """The server compares the kept raw scores as they are, a cosine similarity against a BM25 score."""
    vector = [("alleen-vector", 0.95), ("beide", 0.2)]
    keyword = [("beide", 0.6), ("alleen-bm25", 0.1)]

    fused = relative_score_fusion(
        vector, keyword, 0.5, {"alleen-vector": "c", "beide": "b", "alleen-bm25": "a"}
    )

    assert [(result.key, result.score) for result in fused] == [
        ("alleen-vector", 0.5),
        ("beide", 0.5),
        ("alleen-bm25", 0.0),
    ]


def test_equal_scores_and_equal_raw_scores_fall_back_to_the_uuid_string_ascending() -> None:
    vector = [(key, 0.8) for key in "xyz"]
    uuids = {"x": "b0000000-0000-0000-0000-000000000000", "y": "a0000000-0000-0000-0000-000000000000"}
    uuids["z"] = "00000000-0000-0000-0000-00000000000f"

    fused = relative_score_fusion(vector, [], 1.0, uuids)

    assert [result.key for result in fused] == ["z", "y", "x"]


def test_with_alpha_one_the_keyword_leg_does_not_exist() -> None:
    """Explorer.Hybrid runs the keyword leg only when 1 − α > 0: its scores cannot break ties at α = 1."""
    vector = [("x", 0.8), ("y", 0.8)]
    keyword = [("y", 2.0), ("bm25-only", 5.0)]

    fused = relative_score_fusion(vector, keyword, 1.0, {"x": "a", "y": "b", "bm25-only": "c"})

    assert [(result.key, result.keyword) for result in fused] == [("x", None), ("y", None)]


def test_scores_closer_than_1e_7_are_ties_broken_by_the_raw_score() -> None:
    """B's fused score is one float32 step (6e-8) above A's: a tie for the server, which A wins on BM25."""
    vector = [("A", 0.5), ("B", 1.0), ("Z", 0.0)]
    keyword = [("A", 10.0), ("B", 5.000001), ("Z", 0.0)]

    fused = relative_score_fusion(vector, keyword, 0.5, {"A": "a", "B": "b", "Z": "z"})

    assert 0 < fused[1].score - fused[0].score < 1e-7
    assert [result.key for result in fused] == ["A", "B", "Z"]


def test_the_limit_cuts_after_ordering() -> None:
    assert [r.key for r in relative_score_fusion(VECTOR, KEYWORD, 0.5, UUIDS, limit=2)] == [1, 0]
