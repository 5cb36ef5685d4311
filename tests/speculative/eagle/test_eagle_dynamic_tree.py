"""EAGLE-2's tree policy: which grown candidates are verified, and how far the tree is grown.

The selection runs on the candidates' device (TEST_DEVICE) and is read back in one copy; `host_selection`, the same
policy written plainly on host lists, is its oracle.
"""

import math
from collections.abc import Sequence

import pytest
import torch

from speculative.eagle.dynamic_tree import (
    ROOT_PARENT,
    DynamicTreeConfig,
    SelectedNode,
    select_on_device,
    selected_nodes,
)
from tests.speculative.conftest import TEST_DEVICE
from tests.speculative.eagle_selection import HostLevel, host_selection


def select(levels: Sequence[HostLevel], count: int) -> list[SelectedNode]:
    """The device selection of host-written levels, moved to TEST_DEVICE."""
    return selected_nodes(select_on_device([level.on(TEST_DEVICE) for level in levels], count))


def _levels() -> list[HostLevel]:
    """Root children a (−0.1), b (−1.0), c (−3.0); a's children d (−0.5), e (−2.0); d's child f (−0.7)."""
    return [
        HostLevel(tokens=[10, 11, 12], parents=[ROOT_PARENT] * 3, scores=[-0.1, -1.0, -3.0]),
        HostLevel(tokens=[13, 14], parents=[0, 0], scores=[-0.5, -2.0]),
        HostLevel(tokens=[15], parents=[0], scores=[-0.7]),
    ]


def test_the_best_candidates_by_cumulative_score_are_kept() -> None:
    selected = select(_levels(), count=4)

    assert {node.token for node in selected} == {10, 13, 15, 11}


def test_parents_precede_children_and_point_into_the_selection() -> None:
    selected = select(_levels(), count=6)

    assert [(node.token, node.parent) for node in selected] == [
        (10, ROOT_PARENT),
        (11, ROOT_PARENT),
        (12, ROOT_PARENT),
        (13, 0),
        (14, 0),
        (15, 3),
    ]


def test_each_node_carries_the_heads_probability_of_its_token_given_its_parent() -> None:
    selected = select(_levels(), count=6)

    probabilities = {node.token: node.probability for node in selected}
    assert probabilities[10] == pytest.approx(math.exp(-0.1))
    assert probabilities[13] == pytest.approx(math.exp(-0.5 - -0.1))
    assert probabilities[15] == pytest.approx(math.exp(-0.7 - -0.5))


@pytest.mark.parametrize("count", [0, 1, 2, 3])
def test_the_count_caps_the_selection(count: int) -> None:
    assert len(select(_levels(), count)) == count


def test_asking_for_more_than_was_grown_selects_everything() -> None:
    assert len(select(_levels(), count=100)) == 6


def test_a_child_tied_with_its_parent_never_enters_without_it() -> None:
    """A child whose log-probability rounds to 0 ties its parent; the cut falls between them."""
    levels = [
        HostLevel(tokens=[10, 11], parents=[ROOT_PARENT] * 2, scores=[-1.0, -0.2]),
        HostLevel(tokens=[12, 13], parents=[0, 1], scores=[-1.0, -0.2]),
    ]

    for count in range(5):
        selected = select(levels, count)
        assert all(node.parent < index for index, node in enumerate(selected)), f"count {count}"
    assert [node.token for node in select(levels, 3)] == [10, 11, 13]


def test_a_child_ranked_above_its_parent_waits_for_it() -> None:
    """Scores are cumulative log-probabilities, so this cannot happen; the selection stays a tree anyway.

    The child ranks by its parent's score, so it follows its parent: with room for all three it is taken too
    (the host walk, which passes over a child met before its parent, leaves it out)."""
    levels = [
        HostLevel(tokens=[10, 11], parents=[ROOT_PARENT] * 2, scores=[-0.1, -5.0]),
        HostLevel(tokens=[12], parents=[1], scores=[-0.05]),
    ]

    assert [(node.token, node.parent) for node in select(levels, count=2)] == [
        (10, ROOT_PARENT),
        (11, ROOT_PARENT),
    ]
    assert [(node.token, node.parent) for node in select(levels, count=3)] == [
        (10, ROOT_PARENT),
        (11, ROOT_PARENT),
        (12, 1),
    ]


def _grown_levels(generator: torch.Generator, top_k: int, rounds: int, vocab: int = 50) -> list[HostLevel]:
    """Levels as EAGLE-2 grows them, from random log_softmax children, with ties: scores are rounded to steps of
    1/8, and each round's first child and about a tenth of the others copy their parent's score (a log-probability
    that rounds to 0)."""

    def children(count: int) -> tuple[torch.Tensor, torch.Tensor]:
        log_probs = torch.log_softmax(torch.randn(count, vocab, generator=generator), dim=-1)
        scores, tokens = (torch.round(log_probs * 8) / 8).topk(top_k, dim=-1)
        scores[torch.rand(count, top_k, generator=generator) < 0.1] = 0.0
        scores[0, 0] = 0.0
        return scores, tokens

    root_scores, root_tokens = children(1)
    scores, tokens = root_scores[0] - 0.5, root_tokens[0]
    levels = [HostLevel(tokens.tolist(), [ROOT_PARENT] * top_k, scores.tolist())]
    for _ in range(rounds):
        frontier = scores.topk(top_k).indices
        child_scores, child_tokens = children(top_k)
        scores = (scores[frontier, None] + child_scores).flatten()
        tokens = child_tokens.flatten()
        levels.append(HostLevel(tokens.tolist(), frontier.repeat_interleave(top_k).tolist(), scores.tolist()))
    return levels


@pytest.mark.parametrize(
    ("seed", "top_k", "rounds"),
    [(0, 10, 5), (1, 1, 5), (2, 2, 3), (3, 3, 5), (4, 4, 2), (5, 10, 1), (6, 6, 0)],
)
def test_the_device_selection_equals_the_host_walk_on_grown_levels(
    seed: int, top_k: int, rounds: int
) -> None:
    """On trees grown like EAGLE-2's (cumulative log-probabilities, with ties within and across levels), for every
    count up to all candidates and beyond."""
    levels = _grown_levels(torch.Generator().manual_seed(seed), top_k, rounds)
    candidates = sum(len(level.scores) for level in levels)

    for count in range(candidates + 2):
        expected = host_selection(levels, count)
        selected = select(levels, count)
        assert [(node.token, node.parent) for node in selected] == [
            (node.token, node.parent) for node in expected
        ], f"count {count}"
        assert [node.probability for node in selected] == pytest.approx(
            [node.probability for node in expected], rel=1e-12
        )


def test_the_selection_stays_on_the_levels_device() -> None:
    levels = [level.on(TEST_DEVICE) for level in _levels()]

    assert select_on_device(levels, count=4).device == levels[0].tokens.device


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
