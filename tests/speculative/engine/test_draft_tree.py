"""The draft tree: a trie below the root whose order, masks and positions drive one verification forward."""

import pytest
import torch

from speculative.engine.tree import ROOT, ROOT_SOURCE, DraftTree


def _two_branch_tree() -> DraftTree:
    """root(7) → 1 → 2 → 3 and root → 1 → 4, then root → 5."""
    tree = DraftTree(root_token=7)
    tree.add_path([1, 2, 3], "eagle2")
    tree.add_path([1, 4], "casd")
    tree.add_path([5], "casd")
    return tree


def test_a_new_tree_holds_only_the_root() -> None:
    tree = DraftTree(root_token=7)

    assert (tree.tokens, tree.parents, tree.depths, tree.sources) == ([7], [-1], [0], [ROOT_SOURCE])
    assert (tree.num_drafted, tree.num_rows) == (0, 1)


def test_paths_with_a_shared_prefix_reuse_its_nodes() -> None:
    tree = _two_branch_tree()

    assert tree.tokens == [7, 1, 2, 3, 4, 5]
    assert tree.parents == [-1, 0, 1, 2, 1, 0]
    assert tree.depths == [0, 1, 2, 3, 2, 1]
    assert tree.child(1, 4) == 4 and tree.child(1, 9) is None
    assert sorted(tree.children(1)) == [2, 4]


def test_each_node_keeps_the_source_that_proposed_it_first() -> None:
    tree = _two_branch_tree()

    assert tree.sources == [ROOT_SOURCE, "eagle2", "eagle2", "eagle2", "casd", "casd"]
    assert tree.source_counts() == {"eagle2": 3, "casd": 2}


def test_every_parent_precedes_its_children() -> None:
    tree = _two_branch_tree()

    assert all(tree.parents[node] < node for node in range(1, tree.num_rows))


def test_the_ancestor_mask_is_each_nodes_path_from_the_root_and_nothing_else() -> None:
    mask = _two_branch_tree().ancestor_mask()

    expected = torch.tensor(
        [
            [1, 0, 0, 0, 0, 0],  # root
            [1, 1, 0, 0, 0, 0],  # 1
            [1, 1, 1, 0, 0, 0],  # 1 → 2
            [1, 1, 1, 1, 0, 0],  # 1 → 2 → 3
            [1, 1, 0, 0, 1, 0],  # 1 → 4: not its sibling 2 or 2's child 3
            [1, 0, 0, 0, 0, 1],  # 5
        ],
        dtype=torch.bool,
    )
    assert torch.equal(mask, expected)


def test_positions_are_depths_so_an_accepted_node_needs_no_position_fix_up() -> None:
    assert _two_branch_tree().position_offsets().tolist() == [0, 1, 2, 3, 2, 1]


def test_the_path_to_a_node_runs_from_the_roots_child_down() -> None:
    tree = _two_branch_tree()

    assert tree.path_to(3) == [1, 2, 3]
    assert tree.path_to(ROOT) == []


def test_the_budget_stops_new_nodes_but_still_reuses_existing_ones() -> None:
    tree = DraftTree(root_token=7, max_nodes=3)

    assert tree.add_path([1, 2], "a") == [1, 2]
    assert tree.add_path([1, 2, 3, 4], "b") == [1, 2, 3]
    assert tree.is_full
    assert tree.add(ROOT, 9, "b") is None
    assert tree.add(ROOT, 1, "b") == 1


def test_merging_inserts_the_other_tree_as_a_trie_and_keeps_its_sources() -> None:
    tree = DraftTree(root_token=7)
    tree.add_path([1, 2], "eagle2")
    other = DraftTree(root_token=7)
    other.add_path([1, 2, 3], "casd")
    other.add_path([6], "casd")

    mapped = tree.merge(other)

    assert tree.tokens == [7, 1, 2, 3, 6]
    assert mapped == [1, 2, 3, 4]
    assert tree.sources[1:] == ["eagle2", "eagle2", "casd", "casd"]


def test_merging_trees_with_different_roots_is_refused() -> None:
    with pytest.raises(ValueError, match="different roots"):
        DraftTree(root_token=7).merge(DraftTree(root_token=8))


def test_pruning_drops_nodes_deeper_than_allowed_and_keeps_the_rest() -> None:
    pruned = _two_branch_tree().pruned_to_depth(1)

    assert pruned.tokens == [7, 1, 5]
    assert pruned.depths == [0, 1, 1]


def test_a_parent_outside_the_tree_is_refused() -> None:
    with pytest.raises(IndexError, match="not a node"):
        DraftTree(root_token=7).add(3, 1, "a")
