"""The no-draft baseline: every step verifies the root alone, through the same loop as the real drafters.

Comparing against it isolates what drafting buys from the loop's own overheads (masks, compaction, bookkeeping).
"""

from speculative.engine.drafter import DraftContext, Drafter
from speculative.engine.tree import DraftTree


class VanillaDrafter(Drafter):
    """Proposes nothing, so each target forward yields exactly one token (τ = 1)."""

    name = "vanilla"

    def propose(self, context: DraftContext) -> DraftTree:
        return context.new_tree()
