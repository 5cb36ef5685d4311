"""Several drafters, one verified tree: the primary drafter's tree with the others' drafts merged in as a trie.

This is how `eagle2+casd` works: EAGLE-2 drafts its dynamic tree, CASD's copied branches are inserted into it,
reusing nodes where a branch starts with tokens EAGLE already drafted. Shared nodes belong to the primary drafter
(it proposed them first); each node records its source, so the statistics can say which drafter contributed how
many nodes and whose path was accepted.

Budget: with `extras_share_budget` the whole tree stays within the step's budget and the extras are asked first,
so their (few, often long) branches are not crowded out; the primary fills what is left. Without it each extra's
nodes come on top of the budget, each extra keeping its own budget (`Drafter.budget_on_top`): CASD adds its
≤ 20 nodes (the paper's setup), EAGLE-2 behind CASD (`casd+eagle2`) the tree it drafts alone.
"""

from collections.abc import Sequence
from dataclasses import replace

from speculative.engine.drafter import DraftContext, Drafter
from speculative.engine.tree import DraftTree
from speculative.engine.verify import VerificationResult


class MergedDrafter(Drafter):
    """Merges the trees of `extras` into the tree of `primary`."""

    def __init__(self, primary: Drafter, extras: Sequence[Drafter], extras_share_budget: bool) -> None:
        if not extras:
            raise ValueError("a merged drafter needs at least one extra drafter")
        self.primary = primary
        self.extras = tuple(extras)
        self.extras_share_budget = extras_share_budget
        self.name = "+".join(drafter.name for drafter in (primary, *self.extras))

    def propose(self, context: DraftContext) -> DraftTree:
        extra_trees = [
            extra.propose(replace(context, max_nodes=self._extra_budget(extra, context.max_nodes)))
            for extra in self.extras
        ]
        extra_nodes = sum(tree.num_drafted for tree in extra_trees)
        primary_budget = (
            max(0, context.max_nodes - extra_nodes) if self.extras_share_budget else context.max_nodes
        )
        merged = self.primary.propose(replace(context, max_nodes=primary_budget))
        merged.max_nodes = context.max_nodes if self.extras_share_budget else merged.num_drafted + extra_nodes
        for tree in extra_trees:
            merged.merge(tree)
        return merged

    def most_nodes(self, step_budget: int) -> int:
        """The step's budget, and without `extras_share_budget` each extra's nodes on top of it."""
        if self.extras_share_budget:
            return step_budget
        return step_budget + sum(extra.budget_on_top(step_budget) for extra in self.extras)

    def _extra_budget(self, extra: Drafter, step_budget: int) -> int:
        return step_budget if self.extras_share_budget else extra.budget_on_top(step_budget)

    def observe(self, result: VerificationResult) -> None:
        for drafter in (self.primary, *self.extras):
            drafter.observe(result)
