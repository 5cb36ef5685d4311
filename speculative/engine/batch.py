"""Continuous batching: the trees of several answers verified in one target forward.

A `BatchDecoder` holds up to `max_batch` generations over one target (their methods may differ). An answer joins
between steps (its prompt is prefilled alone, then its cache joins the batch's) and leaves at once when it ends or
is dropped (cancelled): the others go on untouched. Each step every answer drafts its own tree, told how many rows
the others bring so its tree budget weighs the whole forward; one forward verifies all trees, each row seeing only
its own answer's prefix and ancestors; each answer accepts and compacts its own cache row. Every answer's tokens
are those it would get decoded alone: verification stays greedy per answer.
"""

from modelstore.device import synced_clock
from speculative.engine.generator import Generation
from speculative.engine.kv_cache import BatchKVCache
from speculative.engine.target import TargetModel
from speculative.engine.tree import DraftTree


class BatchDecoder:
    """The generations decoded together; `join`, `step` and `leave` run on one thread."""

    def __init__(self, target: TargetModel, max_batch: int) -> None:
        if max_batch < 1:
            raise ValueError(f"a batch holds at least 1 answer, got {max_batch}")
        self.target = target
        self.max_batch = max_batch
        self.members: list[Generation] = []
        self._cache = BatchKVCache()
        self.last_rows = 0  # tree rows of the last step's forward, all answers together
        self.last_tokens = 0  # tokens the last step committed, all answers together

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
            self._cache.add(generation.cache)
            generation.cache.clear()  # its positions live in the batch's cache from now on
            self.members.append(generation)
        return delta

    def leave(self, generation: Generation) -> None:
        """Drop `generation` from the batch now (it ended, or nobody wants it any more)."""
        index = self.members.index(generation)
        del self.members[index]
        self._cache.remove(index)

    def step(self) -> list[tuple[Generation, str]]:
        """One forward for every member: each one's text delta. Members that have ended leave the batch (call
        their `finish`)."""
        if not self.members:
            return []
        trees: list[DraftTree] = []
        for index, generation in enumerate(self.members):
            # the rows already chosen, and at least the root of each answer still to draft
            trees.append(
                generation.draft(sum(tree.num_rows for tree in trees) + len(self.members) - index - 1)
            )
        rows = sum(tree.num_rows for tree in trees)
        started = synced_clock(self.target.device)
        past_length = self._cache.width
        outputs = self.target.verify_batch(trees, self._cache)
        results = [
            generation.accept(output.logits.argmax(dim=-1).tolist())
            for generation, output in zip(self.members, outputs, strict=True)
        ]
        self._cache.keep(past_length, [result.committed_rows for result in results])
        verify_seconds = synced_clock(self.target.device) - started
        self.last_rows = rows
        self.last_tokens = sum(len(result.new_tokens) for result in results)
        deltas = [
            (
                generation,
                generation.advance(result, output.hidden_states, verify_seconds, rows - tree.num_rows),
            )
            for generation, result, output, tree in zip(self.members, results, outputs, trees, strict=True)
        ]
        for generation, _ in deltas:
            if generation.finished:
                self.leave(generation)
        return deltas
