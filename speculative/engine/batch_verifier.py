"""How a batch of answers' draft trees is verified: the interface a `BatchDecoder` drives, and its eager form.

A verifier holds the KV caches of the answers decoded together. An answer joins with its prefilled cache (`add`)
and leaves between steps (`remove`); `verify` runs one target forward over every answer's tree and returns the
target's greedy token and features for each tree row; `keep` then commits each answer's accepted rows. `verify`
without `keep` commits nothing, so a step can be repeated (timed). `warm_up`, before the first answer joins, does
the slow first-use work of every shape a server will verify (compiling, capturing), so none happens while serving.

Two forms: `DynamicBatchVerifier` (here) runs transformers' forward eagerly over a growing `DynamicCache`, the
shapes of each step its own; `StaticBatchVerifier` (`static_verifier.py`) runs over a pre-allocated pool at
bucketed shapes, replayed from CUDA graphs on a GPU.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import torch

from speculative.engine.kv_cache import BatchKVCache, KVCache
from speculative.engine.target import TargetModel
from speculative.engine.tree import DraftTree


@dataclass(frozen=True)
class StepOutput:
    """One answer's share of a verify forward: the target's greedy token after each tree row, and its features
    (`[rows, hidden]`) of those rows."""

    target_tokens: list[int]
    hidden_states: torch.Tensor


@dataclass(frozen=True)
class WarmUp:
    """What a verifier prepared before its first answer: the buckets it ran (answers × tree rows × attended
    positions), how its forwards run afterwards (`mode`), and the seconds it took."""

    buckets: tuple[tuple[int, int, int], ...]
    mode: str
    seconds: float

    def to_json(self) -> dict[str, Any]:
        """The summary `/health` shows: the number of buckets and the sizes of each of their dimensions."""
        return {
            "mode": self.mode,
            "buckets": len(self.buckets),
            "answers": sorted({answers for answers, _, _ in self.buckets}),
            "tree_rows": sorted({rows for _, rows, _ in self.buckets}),
            "attended_positions": sorted({keys for _, _, keys in self.buckets}),
            "seconds": round(self.seconds, 2),
        }


class BatchVerifier(Protocol):
    """The KV caches of a batch of answers and the forward that verifies their trees."""

    @property
    def lengths(self) -> list[int]:
        """The committed positions of each answer, in the order they joined."""
        ...

    @property
    def context_length(self) -> int:
        """The most positions an answer may reach (prompt and answer together)."""
        ...

    @property
    def mode(self) -> str:
        """How its forwards run: eager, static or graphs."""
        ...

    def warm_up(self, max_rows: int) -> WarmUp:
        """Before any answer joins: prepare every shape of up to `max_rows` tree rows per answer whose first use
        would be slow (compiling the forward, capturing its graph), so that serving does none of it."""
        ...

    def add(self, cache: KVCache) -> None:
        """A prefilled answer joins as the last one."""
        ...

    def remove(self, index: int) -> None:
        """Answer `index` leaves; those after it move up one."""
        ...

    def verify(self, trees: Sequence[DraftTree]) -> list[StepOutput]:
        """One forward over answer b's tree after answer b's prefix, for every b."""
        ...

    def keep(self, rows: Sequence[Sequence[int]]) -> None:
        """After `verify`: answer b commits the tree rows `rows[b]` (increasing, the root first)."""
        ...


class DynamicBatchVerifier:
    """Eager forwards over the rows of one batched `DynamicCache` (`BatchKVCache`)."""

    def __init__(self, target: TargetModel) -> None:
        self.target = target
        self._cache = BatchKVCache()
        self._tree_start = 0  # where the last forward's tree rows begin

    @property
    def lengths(self) -> list[int]:
        return self._cache.lengths

    @property
    def context_length(self) -> int:
        return self.target.context_length

    @property
    def mode(self) -> str:
        return "eager"

    def warm_up(self, max_rows: int) -> WarmUp:
        """Nothing to prepare: each eager forward runs as it comes."""
        return WarmUp((), self.mode, 0.0)

    def add(self, cache: KVCache) -> None:
        self._cache.add(cache)

    def remove(self, index: int) -> None:
        self._cache.remove(index)

    def verify(self, trees: Sequence[DraftTree]) -> list[StepOutput]:
        if self._cache.width != max(self._cache.lengths, default=0):
            self._cache.keep(max(self._cache.lengths), [() for _ in self._cache.lengths])  # an unkept forward
        self._tree_start = self._cache.width
        outputs = self.target.verify_batch(trees, self._cache)
        tokens = torch.cat([output.logits.argmax(dim=-1) for output in outputs]).tolist()
        answers, start = [], 0
        for output in outputs:
            rows = output.hidden_states.shape[0]
            answers.append(StepOutput(tokens[start : start + rows], output.hidden_states))
            start += rows
        return answers

    def keep(self, rows: Sequence[Sequence[int]]) -> None:
        self._cache.keep(self._tree_start, rows)
