"""Verifying a batch of draft trees over a pre-allocated KV pool, at bucketed shapes, from CUDA graphs on a GPU.

Each step's shape is rounded up to a bucket: answers to a power of two (at most the pool's slots), tree rows to a
power of two, attended positions to a power of two of at least `MIN_KEYS` (at most the pool's). Padding costs
little where a GPU step is bound by reading the weights, and it bounds the number of shapes: each bucket keeps its
own static inputs and outputs and, on CUDA with graphs on, its own graph, captured the first time the bucket runs.
Everything from the inputs to the greedy tokens runs on the device: the attention mask is built there from
each answer's length and its tree's ancestors and positions, the new keys and values are written into the pool
there, and the lm_head's argmax is taken there, so a step reads back only the tokens (one device-to-host copy).
A padding row sees only itself; a padding answer has no prefix. On a CPU the same code runs eagerly.

If a capture fails (out of memory, or its replay differs from the eager forward) the verifier logs it once and
runs every bucket eagerly from then on; answers are unaffected. With `fused` the forward is compiled by
`torch.compile` (`step_compile.py`) and the compiled forward is what each graph captures. Torch compiles a program
per combination of one answer or more and one tree row or more (it specialises a size of 1); the attended
positions share them, since every view of the pool is a strided slice (the pool keeps one position no bucket
attends: a view of its full width would be contiguous, another program).

The first run of a bucket is slow where it captures a graph (a few forwards) or compiles a program (seconds to
minutes), so `warm_up` does it before the first answer: with graphs every bucket up to the largest tree, compiled
without graphs one bucket of each of the four programs.
"""

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import torch

from modelstore.device import synced_clock
from speculative.engine.attention_mask import batch_tree_attention_mask
from speculative.engine.batch_verifier import StepOutput, WarmUp
from speculative.engine.kv_cache import KVCache
from speculative.engine.kv_pool import KVPool, PoolView
from speculative.engine.step_compile import CompiledForward
from speculative.engine.step_graphs import GraphCapture, GraphCaptureError, StepGraphs
from speculative.engine.target import TargetModel
from speculative.engine.tree import DraftTree
from speculative.engine.tree_batch import TreeBatch

log = logging.getLogger(__name__)

MIN_KEYS = 256
MAX_TREE_ROWS = 256  # positions the pool keeps past the longest prefix for a forward's tree rows


def bucket(size: int, smallest: int = 1, largest: int | None = None) -> int:
    """`size` rounded up to a power of two (at least `smallest`, at most `largest`)."""
    rounded = max(smallest, 1 << max(0, size - 1).bit_length())
    return rounded if largest is None else min(rounded, largest)


@dataclass
class _Bucket:
    """The static inputs, outputs and cache view of one shape (answers × rows × attended positions)."""

    answers: int
    rows: int
    keys: int
    input_ids: torch.Tensor
    positions: torch.Tensor
    lengths: torch.Tensor
    ancestors: torch.Tensor
    width: torch.Tensor
    write_positions: torch.Tensor
    cache: PoolView
    tokens: torch.Tensor = field(default_factory=lambda: torch.empty(0))
    hidden: torch.Tensor = field(default_factory=lambda: torch.empty(0))
    graph: Any = None  # a torch.cuda.CUDAGraph once captured


class StaticBatchVerifier:
    """Up to `slots` answers of up to `capacity` positions each (prompt and answer), verified over a `KVPool`."""

    def __init__(
        self,
        target: TargetModel,
        slots: int,
        capacity: int,
        graphs: bool,
        capture: GraphCapture | None = None,
        fused: bool = False,
        compile_backend: str | Callable[..., Any] = "inductor",
    ) -> None:
        """`graphs`: capture and replay CUDA graphs when the target is on CUDA; `capture` replaces how graphs are
        captured (a test's failing capture); `fused`: compile the forward with `torch.compile`'s `compile_backend`
        (a test's failing one)."""
        if slots < 1 or capacity < 1:
            raise ValueError(f"a static verifier needs slots and capacity ≥ 1, got {slots} and {capacity}")
        self.target = target
        self.capacity = min(capacity, target.context_length)
        self.slots = bucket(slots)
        self.positions = self.capacity + MAX_TREE_ROWS  # the most a step attends to
        self.pool = KVPool(target.config, self.slots, self.positions + 1, target.device, target.dtype)
        self._lengths: list[int] = []
        self._tree_start = 0
        self._buckets: dict[tuple[int, int, int], _Bucket] = {}
        if capture is None and graphs and target.device.type == "cuda":
            capture = StepGraphs(target.device)
        self._graphs = capture
        self._compiled = CompiledForward(self._forward, "verify forward", compile_backend) if fused else None

    @property
    def lengths(self) -> list[int]:
        return self._lengths

    @property
    def context_length(self) -> int:
        return self.capacity

    @property
    def mode(self) -> str:
        """What runs: `static` or `graphs`, with `compiled ` before it while the forward is compiled."""
        return ("compiled " if self.compiled_active else "") + ("graphs" if self.graphs_active else "static")

    @property
    def compiled_active(self) -> bool:
        """Whether the forward runs compiled by `torch.compile` (False when off or after a failed compilation)."""
        return self._compiled is not None and self._compiled.active

    @property
    def graphs_active(self) -> bool:
        """Whether forwards are replayed from CUDA graphs (False on a CPU, when off, or after a failed capture)."""
        return self._graphs is not None

    @torch.inference_mode()
    def warm_up(self, max_rows: int) -> WarmUp:
        """Run each bucket whose first run would be slow (`warm_up_buckets`) on padding answers, before any answer
        joins (their rows are written where no answer lives yet). A compilation or capture that fails here falls
        back as it would while serving, with its one log line."""
        if self._lengths:
            raise RuntimeError("warm up the verifier before any answer joins it")
        started = synced_clock(self.target.device)
        buckets = self.warm_up_buckets(max_rows)
        for shape in buckets:
            step = self._bucket(*shape)
            self._fill_padding(step)
            self._run(step)
        return WarmUp(tuple(buckets), self.mode, synced_clock(self.target.device) - started)

    def warm_up_buckets(self, max_rows: int) -> list[tuple[int, int, int]]:
        """The buckets (answers, tree rows, attended positions) of trees of up to `max_rows` rows whose first run
        is slow: with graphs every one; compiled without graphs one of each compiled program (one answer or
        more × one tree row or more, at the fewest attended positions); none for the plain static forward."""
        rows_limit = bucket(min(max_rows, MAX_TREE_ROWS))
        if self._graphs is not None:
            return [
                (answers, rows, keys)
                for answers in _powers_of_two(self.slots)
                for rows in _powers_of_two(rows_limit)
                for keys in self._attended_buckets(rows)
            ]
        if self._compiled is not None:
            return [
                (answers, rows, self._attended_buckets(rows)[0])
                for answers in sorted({1, min(2, self.slots)})
                for rows in sorted({1, min(2, rows_limit)})
            ]
        return []

    def _attended_buckets(self, rows: int) -> list[int]:
        """The attended-positions buckets of a step of `rows` (padded) tree rows: from a prefix of one position to
        the longest the pool holds."""
        smallest = bucket(1 + rows, MIN_KEYS, self.positions)
        largest = bucket(self.capacity + rows, MIN_KEYS, self.positions)
        keys = [smallest]
        while keys[-1] < largest:
            keys.append(min(2 * keys[-1], largest))
        return keys

    def add(self, cache: KVCache) -> None:
        if len(self._lengths) >= self.slots:
            raise RuntimeError(f"the pool is full ({self.slots} answers)")
        if len(cache) > self.capacity:
            raise ValueError(f"a prefix of {len(cache)} positions exceeds the pool's {self.capacity}")
        self.pool.load(len(self._lengths), cache)
        self._lengths.append(len(cache))

    def remove(self, index: int) -> None:
        self.pool.shift_down(index, len(self._lengths), max(self._lengths))
        del self._lengths[index]

    @torch.inference_mode()
    def verify(self, trees: Sequence[DraftTree]) -> list[StepOutput]:
        if len(trees) != len(self._lengths):
            raise ValueError(f"{len(trees)} trees for the {len(self._lengths)} answers of the batch")
        rows = max(tree.num_rows for tree in trees)
        if rows > MAX_TREE_ROWS:
            raise ValueError(f"a tree of {rows} rows exceeds the {MAX_TREE_ROWS} a static verifier verifies")
        width = max(self._lengths)
        padded_rows = bucket(rows, largest=MAX_TREE_ROWS)
        if width + padded_rows > self.positions:
            raise ValueError(f"{width} positions and {rows} tree rows ({padded_rows} padded) exceed the pool")
        # The padded rows are written too (from `width` on), so the attended positions must hold them all.
        shape = (
            bucket(len(trees), largest=self.slots),
            padded_rows,
            bucket(width + padded_rows, MIN_KEYS, self.positions),
        )
        step = self._bucket(*shape)
        self._fill(step, trees, width)
        self._run(step)
        self._tree_start = width
        tokens = step.tokens[: len(trees)].tolist()  # the step's one device-to-host copy
        return [
            StepOutput(tokens[answer][: tree.num_rows], step.hidden[answer, : tree.num_rows].clone())
            for answer, tree in enumerate(trees)
        ]

    def keep(self, rows: Sequence[Sequence[int]]) -> None:
        if len(rows) != len(self._lengths):
            raise ValueError(f"need the kept rows of each of the {len(self._lengths)} answers")
        slots, sources, targets = [], [], []
        for answer, (length, kept) in enumerate(zip(self._lengths, rows, strict=True)):
            for offset, row in enumerate(kept):
                if self._tree_start + row != length + offset:
                    slots.append(answer)
                    sources.append(self._tree_start + row)
                    targets.append(length + offset)
        self.pool.copy_rows(slots, sources, targets)
        self._lengths = [length + len(kept) for length, kept in zip(self._lengths, rows, strict=True)]

    def _bucket(self, answers: int, rows: int, keys: int) -> _Bucket:
        shape = (answers, rows, keys)
        if shape not in self._buckets:
            device = self.target.device
            write_positions = torch.zeros(rows, dtype=torch.long, device=device)
            self._buckets[shape] = _Bucket(
                answers=answers,
                rows=rows,
                keys=keys,
                input_ids=torch.zeros(answers, rows, dtype=torch.long, device=device),
                positions=torch.zeros(answers, rows, dtype=torch.long, device=device),
                lengths=torch.zeros(answers, dtype=torch.long, device=device),
                ancestors=torch.zeros(answers, rows, rows, dtype=torch.bool, device=device),
                width=torch.zeros((), dtype=torch.long, device=device),
                write_positions=write_positions,
                cache=PoolView(self.pool, answers, keys, write_positions),
            )
        return self._buckets[shape]

    def _fill(self, step: _Bucket, trees: Sequence[DraftTree], width: int) -> None:
        """Copy this step's inputs into the bucket's static tensors."""
        batch = TreeBatch.of(trees, self._lengths, step.answers, step.rows)
        for static, tensor in zip(
            (step.input_ids, step.positions, step.lengths, step.ancestors), batch.tensors(), strict=True
        ):
            static.copy_(tensor, non_blocking=True)
        step.width.fill_(width)

    def _fill_padding(self, step: _Bucket) -> None:
        """Inputs of padding answers only (no prefix, every row its own only ancestor), their rows written at the
        last positions the bucket attends to."""
        step.input_ids.zero_()
        step.positions.zero_()
        step.lengths.zero_()
        step.ancestors.copy_(torch.eye(step.rows, dtype=torch.bool, device=step.ancestors.device))
        step.width.fill_(step.keys - step.rows)

    def _run(self, step: _Bucket) -> None:
        forward = self._forward if self._compiled is None else self._compiled
        if self._graphs is not None and step.graph is None:
            try:
                step.graph = self._graphs.capture(lambda: forward(step), lambda: step.hidden)
            except GraphCaptureError as error:
                log.warning(
                    "CUDA graph capture of the verify forward (%d answer(s) × %d tree row(s) × %d positions) failed, so "
                    "every verify forward runs eagerly from now on: %s",
                    step.answers,
                    step.rows,
                    step.keys,
                    error,
                )
                self._graphs = None
                self._drop_graphs()
        if self._graphs is not None and step.graph is not None:
            step.graph.replay()
        else:
            forward(step)

    def _forward(self, step: _Bucket) -> None:
        """The whole step on the device: write positions, masks, the forward, the greedy tokens."""
        step.write_positions.copy_(step.width + torch.arange(step.rows, device=step.width.device))
        mask = batch_tree_attention_mask(
            step.lengths,
            step.width,
            step.ancestors,
            step.positions,
            step.keys,
            self.target.layer_windows,
            self.target.dtype,
        )
        hidden = self.target.decode_rows(step.input_ids, step.positions, mask, step.cache)
        step.hidden = hidden
        step.tokens = cast(torch.Tensor, self.target.logits(hidden).argmax(dim=-1))

    def _drop_graphs(self) -> None:
        for step in self._buckets.values():
            step.graph = None


def _powers_of_two(largest: int) -> list[int]:
    """1, 2, 4, … up to `largest` (itself a power of two)."""
    return [1 << exponent for exponent in range(largest.bit_length())]
