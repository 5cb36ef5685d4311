"""Continuous batching: the trees of several answers verified in one target forward.

A `BatchDecoder` holds up to `max_batch` generations over one target (their methods may differ). An answer joins
between steps (its prompt is prefilled alone, then its cache joins the batch's verifier) and leaves at once when it
ends or is dropped (cancelled): the others go on untouched. Each step every answer drafts its own tree, told how many
rows the others bring so its tree budget weighs the whole forward; one forward of the verifier (`batch_verifier.py`:
eager, or static and graphed) verifies all trees, each row seeing only its own answer's prefix and ancestors; each
answer accepts and commits its own rows. Every answer's tokens are those it would get decoded alone: verification
stays greedy per answer. `last_step` says where the last step's time went; under `torch.profiler` a step is the
range `step` holding `step.draft`, `step.verify`, `step.accept` and `step.cache` (each range ends after the clock
read that times its part, so on a GPU it includes the wait for its kernels).
"""

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from torch.autograd import _profiler_enabled
from torch.profiler import record_function

from modelstore.device import synced_clock
from speculative.engine.batch_verifier import BatchVerifier, DynamicBatchVerifier
from speculative.engine.generator import Generation
from speculative.engine.target import TargetModel
from speculative.engine.tree import DraftTree


@dataclass(frozen=True)
class StepTimings:
    """Seconds of one batched step: drafting every tree, the verify forward (up to the greedy tokens on the host),
    accepting, committing the accepted rows to the cache, and the whole step (the rest is the engine's Python:
    statistics, budgets, text)."""

    draft_seconds: float = 0.0
    verify_seconds: float = 0.0
    accept_seconds: float = 0.0
    cache_seconds: float = 0.0
    total_seconds: float = 0.0

    @property
    def other_seconds(self) -> float:
        return (
            self.total_seconds
            - self.draft_seconds
            - self.verify_seconds
            - self.accept_seconds
            - self.cache_seconds
        )


def _profiled(name: str) -> AbstractContextManager[object]:
    """The range `name` while a torch.profiler records; nothing otherwise (a range costs some 10 µs on the host
    even when nothing records it)."""
    return record_function(name) if _profiler_enabled() else nullcontext()


class BatchDecoder:
    """The generations decoded together; `join`, `step` and `leave` run on one thread."""

    def __init__(self, target: TargetModel, max_batch: int, verifier: BatchVerifier | None = None) -> None:
        if max_batch < 1:
            raise ValueError(f"a batch holds at least 1 answer, got {max_batch}")
        self.target = target
        self.max_batch = max_batch
        self.members: list[Generation] = []
        self.verifier: BatchVerifier = verifier if verifier is not None else DynamicBatchVerifier(target)
        self.last_rows = 0  # tree rows of the last step's forward, all answers together
        self.last_tokens = 0  # tokens the last step committed, all answers together
        self.last_step = StepTimings()

    @property
    def has_room(self) -> bool:
        return len(self.members) < self.max_batch

    def join(self, generation: Generation) -> str:
        """Prefill `generation` and take it into the batch (unless its first token already ended it); returns the
        text of its first token."""
        if not self.has_room:
            raise RuntimeError(f"the batch is full ({self.max_batch} answers)")
        delta = generation.start()
        if not generation.finished:
            self.verifier.add(generation.cache)
            generation.cache.clear()  # its positions live in the batch's verifier from now on
            self.members.append(generation)
        return delta

    def leave(self, generation: Generation) -> None:
        """Drop `generation` from the batch now (it ended, or nobody wants it any more)."""
        index = self.members.index(generation)
        del self.members[index]
        self.verifier.remove(index)

    def step(self) -> list[tuple[Generation, str]]:
        """One forward for every member: each one's text delta. Members that have ended leave the batch (call
        their `finish`)."""
        if not self.members:
            return []
        with _profiled("step"):
            return self._step()

    def _step(self) -> list[tuple[Generation, str]]:
        clock = self._clock
        started = clock()
        trees: list[DraftTree] = []
        with _profiled("step.draft"):
            for index, generation in enumerate(self.members):
                # the rows already chosen, and at least the root of each answer still to draft
                trees.append(
                    generation.draft(sum(tree.num_rows for tree in trees) + len(self.members) - index - 1)
                )
            rows = sum(tree.num_rows for tree in trees)
            drafted = clock()
        with _profiled("step.verify"):
            outputs = self.verifier.verify(trees)
            verified = clock()
        with _profiled("step.accept"):
            results = [
                generation.accept(output.target_tokens)
                for generation, output in zip(self.members, outputs, strict=True)
            ]
            accepted = clock()
        with _profiled("step.cache"):
            self.verifier.keep([result.committed_rows for result in results])
            committed = clock()
        self.last_rows = rows
        self.last_tokens = sum(len(result.new_tokens) for result in results)
        deltas = [
            (
                generation,
                generation.advance(result, output.hidden_states, verified - drafted, rows - tree.num_rows),
            )
            for generation, result, output, tree in zip(self.members, results, outputs, trees, strict=True)
        ]
        for generation, _ in deltas:
            if generation.finished:
                self.leave(generation)
        self.last_step = StepTimings(
            draft_seconds=drafted - started,
            verify_seconds=verified - drafted,
            accept_seconds=accepted - verified,
            cache_seconds=committed - accepted,
            total_seconds=clock() - started,
        )
        return deltas

    def _clock(self) -> float:
        return synced_clock(self.target.device)
