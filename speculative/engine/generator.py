"""The speculative decoding loop: prefill → (draft → verify → accept → compact)* with greedy, lossless acceptance.

One `SpeculativeGenerator` serves requests one at a time (batch 1) with one drafting method. `generate` validates
the request before any compute and returns a `Generation`: iterate it for text deltas as tokens are accepted,
then read `result` (token ids, text, stop reason, statistics).
"""

import time
from collections.abc import Iterator
from dataclasses import dataclass

import torch
from transformers import PreTrainedTokenizerBase

from modelstore.device import synced_clock
from speculative.budget.base import TreeBudgetFactory
from speculative.drafters.base import DraftContext, Drafter, DrafterFactory
from speculative.engine.answer import Answer
from speculative.engine.kv_cache import KVCache
from speculative.engine.request import GenerationRequest, InvalidRequestError, validate_request
from speculative.engine.stats import GenerationStats
from speculative.engine.stopping import StopReason
from speculative.engine.target import TargetModel
from speculative.engine.tree import DraftTree
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

    def _deltas(self) -> Iterator[str]:
        started = self._now()
        sequence, new_hidden = self._prefill()
        decode_started = self._now()
        self._stats.prefill_seconds = decode_started - started
        yield self._answer.add(sequence[-1:])
        while self._answer.stop_reason is None:
            result, new_hidden = self._step(sequence, new_hidden)
            sequence.extend(result.new_tokens)
            yield self._answer.add(result.new_tokens)
            if self._deadline is not None and time.monotonic() >= self._deadline:
                self._answer.stop(StopReason.DEADLINE)
        yield self._answer.finish()
        self._stats.decode_seconds = self._now() - decode_started
        self._stats.new_tokens = len(self._answer.token_ids)
        self._result = GenerationResult(
            token_ids=list(self._answer.token_ids),
            text=self._answer.text,
            stop_reason=self._answer.stop_reason or StopReason.LENGTH,
            stats=self._stats,
        )

    def _prefill(self) -> tuple[list[int], torch.Tensor]:
        """Run the prompt; the target's first choice becomes the root of the first tree."""
        output = self._target.prefill(self._prompt_ids, self._cache)
        root = int(output.logits[-1].argmax())
        return [*self._prompt_ids, root], output.hidden_states

    def _step(self, sequence: list[int], new_hidden: torch.Tensor) -> tuple[VerificationResult, torch.Tensor]:
        """Draft, verify in one forward, keep the accepted path in the cache; returns the committed features."""
        budget = self._budget
        max_depth = self._answer.remaining_tokens - 1
        context = DraftContext(
            sequence=sequence,
            prompt_length=len(self._prompt_ids),
            new_hidden_states=new_hidden,
            max_nodes=budget.nodes_for_next_step(),
            max_depth=max_depth,
            stop_token_ids=self._generator.stop_token_ids,
            context_ids=self._context_ids,
        )
        started = self._now()
        proposed = self._within_depth(self._drafter.propose(context), context)
        tree = budget.select(proposed, self._now() - started)
        drafted = self._now()
        past_length = len(self._cache)
        output = self._target.verify(tree, self._cache)
        result = verify_greedy(tree, output.logits.argmax(dim=-1).tolist())
        self._cache.keep(past_length, result.committed_rows)
        verify_seconds = self._now() - drafted
        self._stats.record_step(result, draft_seconds=drafted - started, verify_seconds=verify_seconds)
        self._drafter.observe(result)
        budget.observe(result, verify_seconds)
        return result, output.hidden_states[list(result.committed_rows)]

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
