"""Greedy verification accepts the longest drafted path the target agrees with, plus the target's bonus token."""

import pytest

from speculative.engine.tree import ROOT, DraftTree
from speculative.engine.verify import NO_DRAFT_SOURCE, verify_greedy


def _tree() -> DraftTree:
    """root(7) → 1 → 2 → 3 (eagle2) and root → 1 → 4 → 8 (casd)."""
    tree = DraftTree(root_token=7)
    tree.add_path([1, 2, 3], "eagle2")
    tree.add_path([1, 4, 8], "casd")
    return tree


def _target_choices(tree: DraftTree, after: dict[int, int]) -> list[int]:
    """The target's argmax per row; rows not given choose token 99, which no node holds."""
    return [after.get(node, 99) for node in range(tree.num_rows)]


def test_the_path_the_target_agrees_with_is_accepted_with_the_bonus_after_it() -> None:
    tree = _tree()
    # after root: 1; after node 1: 4 (the casd branch); after node 4 (token 4): 8; after node 5 (token 8): 42
    result = verify_greedy(tree, _target_choices(tree, {ROOT: 1, 1: 4, 4: 8, 5: 42}))

    assert result.accepted_nodes == (1, 4, 5)
    assert result.accepted_tokens == (1, 4, 8)
    assert result.bonus_token == 42
    assert result.new_tokens == (1, 4, 8, 42)
    assert result.acceptance_length == 4
    assert result.committed_rows == (ROOT, 1, 4, 5)


def test_acceptance_stops_at_the_first_disagreement() -> None:
    tree = _tree()
    result = verify_greedy(tree, _target_choices(tree, {ROOT: 1, 1: 2, 2: 5}))

    assert result.accepted_tokens == (1, 2)
    assert result.bonus_token == 5


def test_when_no_draft_matches_the_step_still_yields_the_bonus_token() -> None:
    tree = _tree()
    result = verify_greedy(tree, _target_choices(tree, {ROOT: 6}))

    assert result.accepted_nodes == ()
    assert result.new_tokens == (6,)
    assert result.acceptance_length == 1
    assert result.accepted_source == NO_DRAFT_SOURCE


def test_the_step_is_credited_to_the_source_of_the_deepest_accepted_node() -> None:
    tree = _tree()

    shared = verify_greedy(tree, _target_choices(tree, {ROOT: 1, 1: 9}))
    copied = verify_greedy(tree, _target_choices(tree, {ROOT: 1, 1: 4, 4: 9}))

    assert shared.accepted_source == "eagle2"  # node 1 was eagle2's first
    assert copied.accepted_source == "casd"


def test_one_target_choice_per_row_is_required() -> None:
    with pytest.raises(ValueError, match="one target token per tree row"):
        verify_greedy(_tree(), [1, 2])
