"""CASD: draft what followed the longest matches of the last tokens in the context."""

import pytest
import torch

from speculative.drafters.casd import CasdConfig, CasdDrafter
from speculative.drafters.context_index import NgramIndex
from speculative.engine.drafter import DraftContext

NO_STOPS: frozenset[int] = frozenset()


def _branches(
    sequence: list[int],
    config: CasdConfig,
    prompt_length: int | None = None,
    stops: frozenset[int] = NO_STOPS,
) -> list[tuple[int, tuple[int, ...]]]:
    """(match length, drafted tokens) of each branch CASD chooses at the end of `sequence`."""
    drafter = CasdDrafter(config)
    chosen = drafter.branches(sequence, len(sequence) if prompt_length is None else prompt_length, stops)
    return [(branch.match.length, branch.tokens) for branch in chosen]


def test_the_two_longest_matches_win_and_their_continuations_become_branches() -> None:
    #            3-gram match      1-gram match    2-gram match     query (ends in 5, 6, 7)
    sequence = [5, 6, 7, 10, 11, 99, 7, 20, 21, 98, 6, 7, 30, 31, 97, 5, 6, 7]

    branches = _branches(sequence, CasdConfig(draft_tokens=2))

    assert branches == [(3, (10, 11)), (2, (30, 31))]


def test_equally_long_matches_are_ordered_by_the_tie_break() -> None:
    sequence = [1, 2, 40, 41, 1, 2, 50, 51, 1, 2, 60, 61, 9, 1, 2]

    most_recent = _branches(sequence, CasdConfig(draft_tokens=2, tie_break="most_recent"))
    earliest = _branches(sequence, CasdConfig(draft_tokens=2, tie_break="earliest"))

    assert [tokens for _, tokens in most_recent] == [(60, 61), (50, 51)]
    assert [tokens for _, tokens in earliest] == [(40, 41), (50, 51)]


def test_the_query_never_matches_itself_at_the_end_of_the_sequence() -> None:
    assert _branches([1, 2, 3, 4], CasdConfig()) == []


def test_a_branch_ends_just_after_a_stop_token() -> None:
    sequence = [1, 2, 3, 0, 8, 9, 1, 2]

    assert _branches(sequence, CasdConfig(), stops=frozenset({0})) == [(2, (3, 0))]


def test_a_branch_ends_at_the_end_of_the_sequence() -> None:
    # the match 4, 5 is followed by the query itself: 9, 4, 5 (a repetition is legitimately copied)
    sequence = [4, 5, 9, 4, 5]

    assert _branches(sequence, CasdConfig(draft_tokens=10)) == [(2, (9, 4, 5))]


def test_the_query_is_the_last_accepted_tokens_plus_the_root() -> None:
    repeated = list(range(100, 130))
    sequence = [*repeated, 7, *repeated]

    branches = _branches(sequence, CasdConfig(query_tokens=4, matches=1, draft_tokens=1))

    assert branches == [(5, (7,))]


def test_a_match_adding_no_new_node_is_skipped_for_the_next_one() -> None:
    # 1, 2 → 3, 4 occurs twice; the next best distinct continuation is 1, 2 → 8
    sequence = [1, 2, 3, 4, 1, 2, 3, 4, 0, 1, 2, 8, 0, 5, 1, 2]

    branches = _branches(sequence, CasdConfig(draft_tokens=2, tie_break="earliest"))

    assert [tokens for _, tokens in branches] == [(3, 4), (8, 0)]


def test_the_prompt_only_ablation_ignores_matches_in_the_generated_text() -> None:
    prompt = [1, 2, 3, 4, 5]
    generated = [8, 9, 60, 8, 9]

    context = _branches([*prompt, *generated], CasdConfig(), prompt_length=len(prompt))
    prompt_only = _branches([*prompt, *generated], CasdConfig(scope="prompt"), prompt_length=len(prompt))

    assert context == [(2, (60, 8, 9))]
    assert prompt_only == []


def test_the_index_grows_with_the_sequence_and_finds_what_a_fresh_index_finds() -> None:
    generator = torch.Generator().manual_seed(3)
    sequence = torch.randint(0, 12, (300,), generator=generator).tolist()
    growing = CasdDrafter(CasdConfig())

    for end in range(50, 300, 7):
        fresh = CasdDrafter(CasdConfig())
        assert growing.branches(sequence[:end], 50, NO_STOPS) == fresh.branches(sequence[:end], 50, NO_STOPS)


def test_the_index_lists_every_end_position_of_an_ngram_in_order() -> None:
    index = NgramIndex(max_n=3)
    index.extend([1, 2, 1, 2, 1])

    assert index.ends([1, 2]) == [1, 3]
    assert index.ends([2, 1]) == [2, 4]
    assert index.ends([1, 2, 1, 2]) == []


def test_the_proposed_tree_holds_the_branches_within_the_budget_and_depth() -> None:
    sequence = [1, 2, 10, 11, 12, 13, 0, 1, 2, 20, 21, 22, 0, 1, 2]
    context = DraftContext(
        sequence=sequence,
        prompt_length=len(sequence),
        new_hidden_states=torch.zeros(0, 4),
        max_nodes=5,
        max_depth=3,
        stop_token_ids=NO_STOPS,
    )

    tree = CasdDrafter(CasdConfig()).propose(context)

    assert tree.root_token == 2
    assert tree.tokens[1:] == [20, 21, 22, 10, 11]
    assert set(tree.sources[1:]) == {"casd"}


@pytest.mark.parametrize("bad", [{"matches": 0}, {"draft_tokens": 0}, {"query_tokens": -1}])
def test_invalid_parameters_are_refused(bad: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="invalid CASD parameters"):
        CasdConfig(**bad)  # type: ignore[arg-type]
