"""EAGLE-2's tree policy: which grown candidates are verified, and how far the tree is grown."""

import math

import pytest

from speculative.eagle.dynamic_tree import (
    ROOT_PARENT,
    CandidateLevel,
    DynamicTreeConfig,
    select_nodes,
)


def _levels() -> list[CandidateLevel]:
    """Root children a (−0.1), b (−1.0), c (−3.0); a's children d (−0.5), e (−2.0); d's child f (−0.7)."""
    return [
        CandidateLevel(tokens=[10, 11, 12], parents=[ROOT_PARENT] * 3, scores=[-0.1, -1.0, -3.0]),
        CandidateLevel(tokens=[13, 14], parents=[0, 0], scores=[-0.5, -2.0]),
        CandidateLevel(tokens=[15], parents=[0], scores=[-0.7]),
    ]


def test_the_best_candidates_by_cumulative_score_are_kept() -> None:
    selected = select_nodes(_levels(), count=4)

    assert {node.token for node in selected} == {10, 13, 15, 11}


def test_parents_precede_children_and_point_into_the_selection() -> None:
    selected = select_nodes(_levels(), count=6)

    assert [(node.token, node.parent) for node in selected] == [
        (10, ROOT_PARENT),
        (11, ROOT_PARENT),
        (12, ROOT_PARENT),
        (13, 0),
        (14, 0),
        (15, 3),
    ]


def test_each_node_carries_the_heads_probability_of_its_token_given_its_parent() -> None:
    selected = select_nodes(_levels(), count=6)

    probabilities = {node.token: node.probability for node in selected}
    assert probabilities[10] == pytest.approx(math.exp(-0.1))
    assert probabilities[13] == pytest.approx(math.exp(-0.5 - -0.1))
    assert probabilities[15] == pytest.approx(math.exp(-0.7 - -0.5))


@pytest.mark.parametrize("count", [0, 1, 2, 3])
def test_the_count_caps_the_selection(count: int) -> None:
    assert len(select_nodes(_levels(), count)) == count


def test_asking_for_more_than_was_grown_selects_everything() -> None:
    assert len(select_nodes(_levels(), count=100)) == 6


def test_a_child_tied_with_its_parent_never_enters_without_it() -> None:
    """A child whose log-probability rounds to 0 ties its parent; the cut falls between them."""
    levels = [
        CandidateLevel(tokens=[10, 11], parents=[ROOT_PARENT] * 2, scores=[-1.0, -0.2]),
        CandidateLevel(tokens=[12, 13], parents=[0, 1], scores=[-1.0, -0.2]),
    ]

    for count in range(5):
        selected = select_nodes(levels, count)
        assert all(node.parent < index for index, node in enumerate(selected)), f"count {count}"
    assert [node.token for node in select_nodes(levels, 3)] == [10, 11, 13]


def test_a_child_ranked_above_its_parent_waits_for_it() -> None:
    """Scores are cumulative log-probabilities, so this cannot happen; the selection stays a tree anyway."""
    levels = [
        CandidateLevel(tokens=[10, 11], parents=[ROOT_PARENT] * 2, scores=[-0.1, -5.0]),
        CandidateLevel(tokens=[12], parents=[1], scores=[-0.05]),
    ]

    assert [(node.token, node.parent) for node in select_nodes(levels, count=2)] == [
        (10, ROOT_PARENT),
        (11, ROOT_PARENT),
    ]


def test_the_reference_configuration_is_the_default() -> None:
    assert DynamicTreeConfig() == DynamicTreeConfig(total_tokens=60, depth=5, top_k=10)


@pytest.mark.parametrize(("max_nodes", "nodes"), [(0, 0), (1, 1), (16, 16), (59, 59), (60, 59), (500, 59)])
def test_the_step_budget_caps_the_tree_below_total_tokens(max_nodes: int, nodes: int) -> None:
    assert DynamicTreeConfig(total_tokens=60).nodes(max_nodes) == nodes


@pytest.mark.parametrize(
    ("nodes", "max_depth", "rounds"),
    [(59, 100, 5), (59, 6, 5), (59, 3, 2), (59, 1, 0), (59, 0, 0), (3, 100, 2), (1, 100, 0), (0, 100, 0)],
)
def test_rounds_stop_at_the_depth_the_tree_may_reach(nodes: int, max_depth: int, rounds: int) -> None:
    assert DynamicTreeConfig(depth=5).rounds(nodes, max_depth) == rounds


@pytest.mark.parametrize(
    "values", [{"total_tokens": 0}, {"depth": -1}, {"top_k": 0}], ids=["total_tokens", "depth", "top_k"]
)
def test_invalid_parameters_are_refused(values: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="invalid EAGLE-2 tree parameters"):
        DynamicTreeConfig(**values)
