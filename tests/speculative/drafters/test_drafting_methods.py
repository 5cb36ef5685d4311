"""Drafting methods by name, and merged trees: the primary drafter's tree with the others' branches as a trie."""

from collections.abc import Sequence
from dataclasses import replace

import pytest
import torch

from speculative.drafters.casd import CasdConfig, CasdDrafter
from speculative.drafters.merged import MergedDrafter
from speculative.drafters.registry import Method, UnknownMethodError, drafter_factory
from speculative.drafters.vanilla import VanillaDrafter
from speculative.engine.drafter import DraftContext, Drafter
from speculative.engine.target import TargetModel
from speculative.engine.tree import DraftTree
from speculative.engine.verify import VerificationResult, verify_greedy
from speculative.settings import SpeculativeSettings

SETTINGS = SpeculativeSettings(_env_file=None)


class ChainDrafter(Drafter):
    """Drafts fixed chains below the root and remembers what it observed."""

    def __init__(self, name: str, chains: Sequence[Sequence[int]]) -> None:
        self.name = name
        self.chains = chains
        self.observed: list[VerificationResult] = []
        self.budgets: list[int] = []

    def propose(self, context: DraftContext) -> DraftTree:
        self.budgets.append(context.max_nodes)
        tree = context.new_tree()
        for chain in self.chains:
            tree.add_path(chain, self.name)
        return tree

    def observe(self, result: VerificationResult) -> None:
        self.observed.append(result)


def _context(max_nodes: int) -> DraftContext:
    return DraftContext(
        sequence=[3, 4, 7],
        prompt_length=2,
        new_hidden_states=torch.zeros(2, 8),
        max_nodes=max_nodes,
        max_depth=20,
        stop_token_ids=frozenset(),
    )


def test_extra_branches_merge_into_the_primary_tree_reusing_shared_nodes() -> None:
    primary = ChainDrafter("eagle2", [[1, 2], [5]])
    extra = ChainDrafter("casd", [[1, 2, 3, 4]])

    tree = MergedDrafter(primary, [extra], extras_share_budget=False).propose(_context(4))

    assert tree.tokens == [7, 1, 2, 5, 3, 4]
    assert tree.sources[1:] == ["eagle2", "eagle2", "eagle2", "casd", "casd"]
    assert tree.source_counts() == {"eagle2": 3, "casd": 2}


def test_extras_that_do_not_share_the_budget_come_on_top_of_it_with_the_budget_they_have_alone() -> None:
    primary = ChainDrafter("casd", [[1, 2, 3]])
    extra = ChainDrafter("eagle2", [[8, 9, 10, 11, 12]])

    tree = MergedDrafter(primary, [extra], extras_share_budget=False).propose(_context(3))

    assert primary.budgets == [3] and extra.budgets == [3]
    assert tree.source_counts() == {"casd": 3, "eagle2": 3}


def test_casd_on_top_of_a_merged_tree_adds_all_its_branches_whatever_the_step_budget() -> None:
    casd = CasdDrafter(CasdConfig(query_tokens=2, matches=2, draft_tokens=4))
    context = replace(_context(3), sequence=[5, 6, 1, 2, 3, 4, 7, 5, 6, 8, 9, 10, 11, 5, 6], prompt_length=15)

    tree = MergedDrafter(ChainDrafter("eagle2", [[20]]), [casd], extras_share_budget=False).propose(context)

    assert tree.source_counts() == {"eagle2": 1, "casd": 8}


def test_extras_that_share_the_budget_go_first_and_the_primary_fills_the_rest() -> None:
    primary = ChainDrafter("eagle2", [[1, 2, 3, 4, 5, 6]])
    extra = ChainDrafter("casd", [[8, 9]])

    tree = MergedDrafter(primary, [extra], extras_share_budget=True).propose(_context(5))

    assert extra.budgets == [5] and primary.budgets == [3]
    assert tree.num_drafted == 5
    assert tree.source_counts() == {"eagle2": 3, "casd": 2}


def test_a_merged_drafter_names_the_most_nodes_its_fullest_tree_holds() -> None:
    """What the worker warms its verifier up to: the step's budget, and the extras' nodes on top unless shared."""
    chains, other_chains = [list(range(10, 30))], [list(range(40, 60))]
    on_top = MergedDrafter(ChainDrafter("casd", chains), [ChainDrafter("eagle2", other_chains)], False)
    casd = CasdDrafter(CasdConfig(matches=2, draft_tokens=4))
    with_casd = MergedDrafter(ChainDrafter("eagle2", chains), [casd], extras_share_budget=False)
    shared = MergedDrafter(ChainDrafter("eagle2", chains), [ChainDrafter("casd", [[8, 9]])], True)

    assert on_top.most_nodes(3) == on_top.propose(_context(3)).num_drafted == 6
    assert with_casd.most_nodes(3) == 3 + 8
    assert shared.most_nodes(5) == shared.propose(_context(5)).num_drafted == 5


def test_every_drafter_of_a_merged_tree_observes_the_verification() -> None:
    primary, extra = ChainDrafter("eagle2", [[1]]), ChainDrafter("casd", [[2]])
    merged = MergedDrafter(primary, [extra], extras_share_budget=False)
    tree = merged.propose(_context(4))

    merged.observe(verify_greedy(tree, [2, 0, 9]))

    assert len(primary.observed) == len(extra.observed) == 1
    assert primary.observed[0].accepted_source == "casd"


def test_methods_are_made_by_name(tiny_llama_target: TargetModel) -> None:
    vanilla = drafter_factory("vanilla", SETTINGS, tiny_llama_target)()
    casd = drafter_factory("casd", SETTINGS, tiny_llama_target)()
    casd_prompt = drafter_factory("casd_prompt", SETTINGS, tiny_llama_target)()
    merged = drafter_factory("casd+casd_prompt", SETTINGS, tiny_llama_target)()

    assert isinstance(vanilla, VanillaDrafter)
    assert isinstance(casd, CasdDrafter) and casd.config.scope == "context"
    assert isinstance(casd_prompt, CasdDrafter) and casd_prompt.config.scope == "prompt"
    assert isinstance(merged, MergedDrafter) and merged.name == "casd+casd_prompt"


def test_casd_takes_its_parameters_from_the_settings(tiny_llama_target: TargetModel) -> None:
    settings = SpeculativeSettings(
        _env_file=None, casd_query_tokens=4, casd_matches=3, casd_draft_tokens=6, casd_tie_break="earliest"
    )

    casd = drafter_factory("casd", settings, tiny_llama_target)()

    assert isinstance(casd, CasdDrafter)
    assert (casd.config.query_tokens, casd.config.matches, casd.config.draft_tokens) == (4, 3, 6)
    assert casd.config.tie_break == "earliest"


@pytest.mark.parametrize("method", ["medusa", "casd+lookahead", "casd+casd", ""])
def test_an_unknown_method_is_refused_with_the_list_of_methods(
    tiny_llama_target: TargetModel, method: str
) -> None:
    with pytest.raises(UnknownMethodError, match=r"available: .*casd, casd_prompt.*vanilla"):
        drafter_factory(method, SETTINGS, tiny_llama_target)


def test_a_base_method_name_cannot_contain_the_merge_sign() -> None:
    with pytest.raises(ValueError, match="no '\\+'"):
        Method("a+b", lambda settings, target: VanillaDrafter)
