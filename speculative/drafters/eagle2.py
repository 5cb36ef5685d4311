"""EAGLE-2: an EAGLE-1/2 head drafts a dynamic tree from the target's own features.

Alignment: the head consumes pairs (target feature f_t, embedding of x_{t+1}) at position t and predicts f_{t+1}.
Each step first feeds it the pairs of the tokens the target has just committed (the context's new features with
the sequence shifted by one), appending them to the head's own KV cache; the last prediction is the root's
feature. The dynamic tree then grows from it (see `speculative.eagle.dynamic_tree`): every round runs the head on
the frontier nodes in one call, each node at position `committed + depth − 1` seeing the committed prefix and its
own ancestors. The best candidates are selected on the device too, and only they are read back: one
device-to-host copy, so one host sync, per tree, and the proposal's only read from the device (the head's range
check takes the highest position from the drafter, which knows the positions as Python ints). After verification
the tree rows are dropped from the head's cache; the accepted tokens come back next step with the target's true
features, which is what EAGLE does too.

A head with a reduced draft vocabulary (`d2t`) ranks only those rows of the target's lm_head, copied once when
the head is loaded: with Gemma 3's 262,144 tokens the full output layer would cost as much as the target's own
forward. Candidates are mapped back to target ids before they enter the tree, and verification runs over the
full vocabulary, so the output stays exactly the target's greedy output.
"""

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import torch

from speculative.eagle.checkpoint import HeadLoadError, load_head
from speculative.eagle.dynamic_tree import (
    ROOT_PARENT,
    CandidateLevel,
    DynamicTreeConfig,
    select_on_device,
    selected_nodes,
)
from speculative.eagle.head import EagleHead
from speculative.engine.attention_mask import additive_mask
from speculative.engine.drafter import DraftContext, Drafter, DrafterFactory
from speculative.engine.kv_cache import KVCache
from speculative.engine.target import TargetModel
from speculative.engine.tree import ROOT, DraftTree
from speculative.engine.upload import upload
from speculative.engine.verify import VerificationResult
from speculative.settings import SpeculativeSettings

Layer = Callable[[torch.Tensor], torch.Tensor]


@dataclass(frozen=True)
class SharedWeights:
    """What the head borrows from the target: its token embeddings and its lm_head (with any soft-capping).

    `logits` scores the draft vocabulary; `draft_ids[i]` is the target id of its column i (None: the
    draft vocabulary is the target's whole vocabulary, column i is token i).
    """

    embed: Layer
    logits: Layer
    draft_ids: torch.Tensor | None = None

    @classmethod
    def of(cls, target: TargetModel, draft_ids: torch.Tensor | None = None) -> "SharedWeights":
        embed = target.model.get_input_embeddings()
        if draft_ids is None:
            return cls(embed=embed, logits=target.logits)
        return cls(embed=embed, logits=DraftLogits(target, draft_ids), draft_ids=draft_ids)

    def target_ids(self, draft_columns: torch.Tensor) -> torch.Tensor:
        """Target token ids of columns of `logits`."""
        return draft_columns if self.draft_ids is None else self.draft_ids[draft_columns]


class DraftLogits:
    """The target's lm_head restricted to the draft vocabulary's rows (a copy), with its soft-capping."""

    def __init__(self, target: TargetModel, draft_ids: torch.Tensor) -> None:
        lm_head = target.model.get_output_embeddings()
        if not isinstance(lm_head, torch.nn.Linear):
            raise HeadLoadError(
                f"a reduced draft vocabulary needs a linear lm_head, not {type(lm_head).__name__}"
            )
        rows = draft_ids.to(lm_head.weight.device)
        self.weight = lm_head.weight.detach()[rows].clone()
        self.bias = None if lm_head.bias is None else lm_head.bias.detach()[rows].clone()
        self.softcap: float | None = getattr(target.config, "final_logit_softcapping", None)

    def __call__(self, features: torch.Tensor) -> torch.Tensor:
        logits = torch.nn.functional.linear(features, self.weight, self.bias)
        if self.softcap:
            logits = torch.tanh(logits / self.softcap) * self.softcap
        return logits


class Eagle2Drafter(Drafter):
    """Drafts EAGLE-2 trees for one request; the head's weights are shared, its KV cache is this request's."""

    name = "eagle2"

    def __init__(self, head: EagleHead, shared: SharedWeights, config: DynamicTreeConfig) -> None:
        self.head = head
        self.shared = shared
        self.config = config
        self._cache = KVCache()
        self._committed = 0

    @torch.inference_mode()
    def propose(self, context: DraftContext) -> DraftTree:
        root_feature = self._ingest(context)
        tree = context.new_tree()
        nodes = self.config.nodes(context.max_nodes)
        if nodes == 0 or context.max_depth < 1:
            return tree
        levels = self._grow(root_feature, self.config.rounds(nodes, context.max_depth))
        return self._insert(tree, levels, nodes)

    def observe(self, result: VerificationResult) -> None:
        """Drop the tree rows from the head's cache; the accepted ones return next step with true features."""
        self._cache.keep(self._committed, ())

    def _ingest(self, context: DraftContext) -> torch.Tensor:
        """Run the pairs of the newly committed tokens into the head's cache; returns the root's feature."""
        features = context.new_hidden_states
        count = features.shape[0]
        start = len(self._cache)
        if start + count != len(context.sequence) - 1:
            raise RuntimeError(
                f"the EAGLE head holds {start} positions and got {count} new features for a sequence of "
                f"{len(context.sequence)} tokens: propose and observe must alternate"
            )
        tokens = upload(context.sequence[-count:], features.device)
        positions = torch.arange(start, start + count, device=features.device)
        causal = torch.ones(count, count, dtype=torch.bool, device=features.device).tril()
        predicted = self._run(features, tokens, positions, causal, highest_position=start + count - 1)
        self._committed = start + count
        return predicted[-1]

    def _grow(self, root_feature: torch.Tensor, rounds: int) -> list[CandidateLevel]:
        """The candidate levels, on the device: the root's top-k children, then `rounds` expansions of the best k
        nodes."""
        top_k = self.config.top_k
        scores, columns = self._log_probs(root_feature[None])[0].topk(top_k)
        tokens = self.shared.target_ids(columns)
        root_parents = torch.full((top_k,), ROOT_PARENT, device=tokens.device)
        levels = [CandidateLevel(tokens, root_parents, scores)]
        frontier = torch.arange(top_k, device=tokens.device)
        features = root_feature.expand(top_k, -1)
        ancestors = torch.zeros(top_k, 0, dtype=torch.bool, device=tokens.device)
        for depth in range(rounds):
            row_visible = torch.cat(
                [ancestors, torch.eye(top_k, dtype=torch.bool, device=tokens.device)], dim=1
            )
            position = self._committed + depth
            positions = torch.full((top_k,), position, device=tokens.device)
            predicted = self._run(
                features, tokens[frontier], positions, row_visible, highest_position=position
            )
            child_scores, child_columns = self._log_probs(predicted).topk(top_k, dim=-1)
            child_tokens = self.shared.target_ids(child_columns)
            cumulative = (scores[frontier, None] + child_scores).flatten()
            levels.append(
                CandidateLevel(child_tokens.flatten(), frontier.repeat_interleave(top_k), cumulative)
            )
            frontier = cumulative.topk(top_k).indices
            parent_rows = frontier // top_k
            ancestors, features = row_visible[parent_rows], predicted[parent_rows]
            tokens, scores = child_tokens.flatten(), cumulative
        return levels

    def _run(
        self,
        features: torch.Tensor,
        tokens: torch.Tensor,
        positions: torch.Tensor,
        tree_visible: torch.Tensor,
        highest_position: int,
    ) -> torch.Tensor:
        """The head on rows after the cache; each row sees the committed prefix and the cached rows it flags.

        `highest_position` is the largest of `positions`, known here as a Python int, so that the head's range check
        reads nothing back from the device."""
        prefix = torch.ones(len(tokens), self._committed, dtype=torch.bool, device=tokens.device)
        mask = additive_mask(torch.cat([prefix, tree_visible], dim=1), features.dtype)
        embeddings = self.shared.embed(tokens)
        return self.head(
            features, embeddings, positions, mask, self._cache, highest_position=highest_position
        )

    def _log_probs(self, features: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(self.shared.logits(features).float(), dim=-1)

    def _insert(self, tree: DraftTree, levels: list[CandidateLevel], count: int) -> DraftTree:
        """Select the best `count` candidates on the device and add them to the tree: the tree's one host sync."""
        nodes: list[int] = []
        for selected in selected_nodes(select_on_device(levels, count)):
            parent = ROOT if selected.parent == ROOT_PARENT else nodes[selected.parent]
            node = tree.add(parent, selected.token, self.name, selected.probability)
            if node is None:
                raise RuntimeError(f"the tree's budget {tree.max_nodes} is below the {count} nodes selected")
            nodes.append(node)
        return tree


def build_eagle2(settings: SpeculativeSettings, target: TargetModel) -> DrafterFactory:
    """Load the head once (`EAGLE_HEAD`) and make one drafter per request over it."""
    if not settings.eagle_head:
        raise HeadLoadError("eagle2 needs EAGLE_HEAD: an EAGLE-1/2 head folder, cache entry or hub id")
    head = load_head(settings.eagle_head, settings.model_cache, target)
    config = DynamicTreeConfig(settings.eagle_total_tokens, settings.eagle_depth, settings.eagle_top_k)
    draft_ids = head.draft_token_ids
    if draft_ids is not None and len(draft_ids) < config.top_k:
        raise HeadLoadError(
            f"the head drafts from {len(draft_ids)} tokens, fewer than eagle_top_k={config.top_k} children per node"
        )
    return partial(Eagle2Drafter, head, SharedWeights.of(target, draft_ids), config)
