"""The drafter interface: propose a tree from what has been accepted, then learn what the target kept.

A drafter is created per request (by a `DrafterFactory`, which may hold shared heavy state such as an EAGLE head)
and is driven by the generation loop:

    tree = drafter.propose(context)      # before each target forward
    drafter.observe(result)              # after verification of that tree

Drafters never touch the target model; everything they may use arrives in `DraftContext`.
"""

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import torch

from speculative.engine.tree import DraftTree
from speculative.engine.verify import VerificationResult


@dataclass(frozen=True)
class DraftContext:
    """Everything a drafter may look at to propose the next tree.

    `sequence` holds the committed token ids (prompt, then generated); its last token is the root, which the
    target has chosen but not yet run. `new_hidden_states` (`[n, hidden]`, post final norm: the input of the
    target's lm_head) are the target's features of the `n` tokens it committed to its KV cache since the
    previous proposal, i.e. of `sequence[-1 - n : -1]`: the whole prompt at the first step, then the previous
    root and its accepted drafts. EAGLE pairs them with the tokens shifted by one, `sequence[-n:]`.
    Both are the loop's own buffers: read them during `propose`, copy what must outlive the call.
    `context_ids` are the tokens copying drafters search instead of the prompt (the retrieved passages), or None.
    """

    sequence: Sequence[int]
    prompt_length: int
    new_hidden_states: torch.Tensor
    max_nodes: int
    max_depth: int
    stop_token_ids: frozenset[int]
    context_ids: Sequence[int] | None = None

    @property
    def root(self) -> int:
        return self.sequence[-1]

    def new_tree(self) -> DraftTree:
        """An empty tree on this step's root with this step's node budget."""
        return DraftTree(self.root, max_nodes=self.max_nodes)


class Drafter(ABC):
    """Proposes draft trees for one request; subclasses set `name`, used as the source of their nodes."""

    name: str

    @abstractmethod
    def propose(self, context: DraftContext) -> DraftTree:
        """A tree rooted at `context.root` with at most `context.max_nodes` drafted nodes."""

    def observe(self, result: VerificationResult) -> None:  # noqa: B027 - optional hook, no-op by default
        """Learn from the verification of the last proposal (EAGLE keeps its KV for the accepted prefix)."""

    def budget_on_top(self, step_budget: int) -> int:
        """Nodes this drafter may add to a merged tree whose budget it does not share: by default the step's
        budget, what it drafts alone. A drafter with a natural cap of its own (CASD) says so here."""
        return step_budget

    def most_nodes(self, step_budget: int) -> int:
        """The most drafted nodes a tree it proposes may hold when a step's budget is `step_budget`: the budget
        itself (a tree takes no node beyond its budget); a merged drafter adds its extras' nodes on top."""
        return step_budget


class DrafterFactory(Protocol):
    """Makes a fresh drafter for each request; load shared heavy state once, when the factory is built."""

    def __call__(self) -> Drafter: ...
