"""The speculative decoding loop: prefill → (draft → verify → accept → compact)* with greedy, lossless acceptance.

A `SpeculativeGenerator` holds one drafting method over the target. `generate` validates the request before any
compute and returns a `Generation`: iterate it for text deltas as tokens are accepted (it decodes alone, batch 1),
then read `result` (token ids, text, stop reason, statistics). Its phases (`start`, `draft`, `accept`, `advance`,
`finish`) are public so that a `BatchDecoder` can verify the trees of several answers in one forward.
"""

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch
from transformers import PreTrainedTokenizerBase

from modelstore.device import synced_clock
from speculative.engine.answer import Answer
from speculative.engine.drafter import DraftContext, Drafter, DrafterFactory
from speculative.engine.kv_cache import KVCache
from speculative.engine.request import GenerationRequest, InvalidRequestError, validate_request
from speculative.engine.stats import GenerationStats
from speculative.engine.stopping import StopReason
from speculative.engine.target import TargetModel
from speculative.engine.tree import DraftTree
from speculative.engine.tree_budget import TreeBudgetFactory
from speculative.engine.verify import VerificationResult, verify_greedy


@dataclass(frozen=True)
class GenerationResult:
    token_ids: list[int]
    text: str
    stop_reason: StopReason
    stats: GenerationStats


class SpeculativeGenerator:
    """Greedy speculative decoding over one target model with one drafting method."""

    def __init__(
        self,
        target: TargetModel,
        tokenizer: PreTrainedTokenizerBase | None,
        drafter_factory: DrafterFactory,
        tree_budget: TreeBudgetFactory,
        stop_token_ids: frozenset[int],
    ) -> None:
        self.target = target
        self.tokenizer = tokenizer
        self.drafter_factory = drafter_factory
        self.tree_budget = tree_budget
        self.stop_token_ids = stop_token_ids

    def generate(self, request: GenerationRequest) -> "Generation":
        """Validate `request` (raising `InvalidRequestError`) and return its lazy generation."""
        validate_request(request, self.target.context_length, int(self.target.config.vocab_size))
        if request.stop_strings and self.tokenizer is None:
            raise InvalidRequestError("stop strings need a generator with a tokenizer")
        answer = Answer(
            self.tokenizer,
            self.stop_token_ids,
            request.stop_strings,
            request.max_new_tokens,
            request.repetition,
        )
        return Generation(self, request, answer, self.drafter_factory())


class Generation:
    """One request's decoding, run lazily: iterating yields text deltas; `result` is set once it has ended.

    Decoding advances only while the consumer iterates, so a cancelled request simply stops being iterated.
    """

    def __init__(
        self, generator: SpeculativeGenerator, request: GenerationRequest, answer: Answer, drafter: Drafter
    ) -> None:
        self._generator = generator
        self._target = generator.target
        self._prompt_ids = list(request.prompt_ids)
        self._context_ids = None if request.context_ids is None else list(request.context_ids)
        self._deadline = request.deadline
        self._answer = answer
        self._drafter = drafter
        self._budget = generator.tree_budget()
        self._cache = KVCache()
        self._stats = GenerationStats(prompt_tokens=len(self._prompt_ids))
        self._result: GenerationResult | None = None
        self._sequence: list[int] = []  # committed ids: the prompt, then the answer; the last one is the root
        self._new_hidden = torch.empty(0)  # the target's features of the ids committed by the last forward
        self._decode_started = 0.0
        self._tree: DraftTree | None = None  # drafted, not yet verified
        self._draft_seconds = 0.0

    @property
    def result(self) -> GenerationResult:
        if self._result is None:
            raise RuntimeError("the generation has not finished: iterate it (or call run()) first")
        return self._result

    def run(self) -> GenerationResult:
        """Decode to the end without streaming."""
        for _ in self:
            pass
        return self.result

    def __iter__(self) -> Iterator[str]:
        for delta in self._deltas():
            if delta:
                yield delta

    def steps(self) -> Iterator[str]:
        """One delta per decoding step, empty ones included: a consumer can stop between any two steps."""
        return self._deltas()

    @property
    def cache(self) -> KVCache:
        """This answer's own KV cache: its prompt after `start` (a batch takes it over from there)."""
        return self._cache

    @property
    def finished(self) -> bool:
        """Whether the answer has stopped (a stop token or string, its length, a loop or its deadline)."""
        return self._answer.stop_reason is not None

    def start(self) -> str:
        """Run the prompt (prefill); the target's first choice is the first token and the root of the first tree."""
        started = self._now()
        output = self._target.prefill(self._prompt_ids, self._cache)
        root = int(output.logits[-1].argmax())
        self._sequence = [*self._prompt_ids, root]
        self._new_hidden = output.hidden_states
        self._decode_started = self._now()
        self._stats.prefill_seconds = self._decode_started - started
        return self._answer.add([root])

    def draft(self, other_rows: int = 0) -> DraftTree:
        """The next tree to verify: drafted, then trimmed by the tree budget. `other_rows`: the rows the other
        answers of a batched forward bring to it (the budget weighs this tree's rows against the whole forward)."""
        budget = self._budget
        context = DraftContext(
            sequence=self._sequence,
            prompt_length=len(self._prompt_ids),
            new_hidden_states=self._new_hidden,
            max_nodes=budget.nodes_for_next_step(),
            max_depth=self._answer.remaining_tokens - 1,
            stop_token_ids=self._generator.stop_token_ids,
            context_ids=self._context_ids,
        )
        started = self._now()
        proposed = self._within_depth(self._drafter.propose(context), context)
        tree = budget.select(proposed, self._now() - started, other_rows)
        self._draft_seconds = self._now() - started
        self._tree = tree
        return tree

    def accept(self, target_tokens: Sequence[int]) -> VerificationResult:
        """What the target's greedy choices at each row of the drafted tree accept (the rows to keep in the cache:
        `committed_rows`)."""
        if self._tree is None:
            raise RuntimeError("accept needs a drafted tree (draft) first")
        return verify_greedy(self._tree, target_tokens)

    def advance(
        self,
        result: VerificationResult,
        hidden_states: torch.Tensor,
        verify_seconds: float,
        other_rows: int = 0,
    ) -> str:
        """Commit an accepted step: the drafter, the budget and the statistics learn from it and the answer grows;
        returns the text that became final. `hidden_states`: the target's features of the tree's rows;
        `verify_seconds`: what the forward took (with `other_rows` rows of other answers in it)."""
        self._tree = None
        self._stats.record_step(result, draft_seconds=self._draft_seconds, verify_seconds=verify_seconds)
        self._drafter.observe(result)
        self._budget.observe(result, verify_seconds, other_rows)
        self._new_hidden = hidden_states[list(result.committed_rows)]
        self._sequence.extend(result.new_tokens)
        delta = self._answer.add(result.new_tokens)
        if self._deadline is not None and time.monotonic() >= self._deadline:
            self._answer.stop(StopReason.DEADLINE)
        return delta

    def finish(self) -> str:
        """End the answer (the text still held back) and set `result`."""
        tail = self._answer.finish()
        self._stats.decode_seconds = self._now() - self._decode_started
        self._stats.new_tokens = len(self._answer.token_ids)
        self._result = GenerationResult(
            token_ids=list(self._answer.token_ids),
            text=self._answer.text,
            stop_reason=self._answer.stop_reason or StopReason.LENGTH,
            stats=self._stats,
        )
        return tail

    def _deltas(self) -> Iterator[str]:
        yield self.start()
        while not self.finished:
            tree = self.draft()
            started = self._now()
            past_length = len(self._cache)
            output = self._target.verify(tree, self._cache)
            result = self.accept(output.logits.argmax(dim=-1).tolist())
            self._cache.keep(past_length, result.committed_rows)
            yield self.advance(result, output.hidden_states, self._now() - started)
        yield self.finish()

    @staticmethod
    def _within_depth(tree: DraftTree, context: DraftContext) -> DraftTree:
        """Check the drafter's tree and drop nodes deeper than the tokens still allowed."""
        if tree.root_token != context.root:
            raise RuntimeError(
                f"the drafter rooted its tree at {tree.root_token}, not at the root {context.root}"
            )
        if max(tree.depths) > context.max_depth:
            return tree.pruned_to_depth(context.max_depth)
        return tree

    def _now(self) -> float:
        return synced_clock(self._target.device)
