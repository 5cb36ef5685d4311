"""The benchmarked methods behind one call: the engine's drafting methods and transformers' `generate` peers.

Both kinds end an answer with the engine's own `Answer` (stop ids, stop strings, token limit), so every method's
tokens are counted up to the same stop: transformers is stopped by it through a stopping criterion and its output
is cut where the engine would have cut it (prompt lookup may accept tokens past a stop string in one step).
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase, StoppingCriteria, StoppingCriteriaList

from speculative.bench.measurement import Measurement, now
from speculative.engine.answer import Answer
from speculative.engine.generator import SpeculativeGenerator
from speculative.engine.loading import build_generator
from speculative.engine.request import GenerationRequest
from speculative.engine.stopping import model_stop_token_ids
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings

HF_GREEDY = "hf-greedy"
HF_PROMPT_LOOKUP = "hf-prompt-lookup"
PROMPT_LOOKUP_TOKENS = 10
PEER_METHODS = (HF_GREEDY, HF_PROMPT_LOOKUP)


class Method(Protocol):
    def run(self, prompt_ids: Sequence[int], stop_strings: Sequence[str], max_new_tokens: int) -> Measurement:
        """Answer one prompt greedily, timed from the prompt ids to the last answer token."""
        ...


class EngineMethod:
    """A drafting method of the engine, e.g. `casd` or `eagle2+casd`, through its public generator."""

    def __init__(self, generator: SpeculativeGenerator) -> None:
        self.generator = generator

    def run(self, prompt_ids: Sequence[int], stop_strings: Sequence[str], max_new_tokens: int) -> Measurement:
        device = self.generator.target.device
        started = now(device)
        result = self.generator.generate(GenerationRequest(prompt_ids, max_new_tokens, stop_strings)).run()
        total = now(device) - started
        stats = result.stats
        return Measurement(
            token_ids=tuple(result.token_ids),
            text=result.text,
            stop_reason=str(result.stop_reason),
            total_seconds=total,
            decode_seconds=stats.decode_seconds,
            decode_tokens=max(0, stats.new_tokens - 1),
            target_forwards=stats.target_forwards + 1,
            tau=stats.tau,
            draft_seconds=stats.draft_seconds,
            verify_seconds=stats.verify_seconds,
            drafted_nodes=dict(stats.nodes_by_source),
            acceptance_histogram={
                source: dict(counts) for source, counts in stats.acceptance_histogram.items()
            },
        )


class TransformersMethod:
    """transformers' `generate`: greedy, or with prompt lookup when `prompt_lookup_tokens` is set.

    τ is the answer's raw tokens per target forward (transformers runs the prefill together with its first
    verification); there is no draft/verify profile.
    """

    def __init__(
        self,
        model: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase | None,
        stop_token_ids: frozenset[int],
        prompt_lookup_tokens: int | None = None,
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.stop_token_ids = stop_token_ids
        self.prompt_lookup_tokens = prompt_lookup_tokens

    def run(self, prompt_ids: Sequence[int], stop_strings: Sequence[str], max_new_tokens: int) -> Measurement:
        answer = Answer(self.tokenizer, self.stop_token_ids, stop_strings, max_new_tokens)
        stop = AnswerStop(answer, len(prompt_ids))
        input_ids = torch.tensor([list(prompt_ids)], device=self.model.device)
        with counted_forwards(self.model) as forwards:
            started = now(self.model.device)
            output = self._generate(input_ids, max_new_tokens, stop)
            ended = now(self.model.device)
        answer.finish()
        raw_tokens = output.shape[1] - len(prompt_ids)
        first_tokens, first_forward_done = stop.first_forward or (raw_tokens, ended)
        return Measurement(
            token_ids=tuple(answer.token_ids),
            text=answer.text,
            stop_reason=str(answer.stop_reason),
            total_seconds=ended - started,
            decode_seconds=ended - first_forward_done,
            decode_tokens=max(0, len(answer.token_ids) - first_tokens),
            target_forwards=forwards[0],
            tau=raw_tokens / forwards[0] if forwards[0] else 0.0,
        )

    @torch.inference_mode()
    def _generate(self, input_ids: torch.Tensor, max_new_tokens: int, stop: "AnswerStop") -> torch.Tensor:
        pad_token_id = getattr(self.tokenizer, "pad_token_id", None)
        return self.model.generate(  # type: ignore[operator]
            input_ids,
            attention_mask=torch.ones_like(input_ids),
            max_new_tokens=max_new_tokens,
            do_sample=False,
            eos_token_id=sorted(self.stop_token_ids),
            pad_token_id=pad_token_id if pad_token_id is not None else min(self.stop_token_ids, default=0),
            stopping_criteria=StoppingCriteriaList([stop]),
            prompt_lookup_num_tokens=self.prompt_lookup_tokens,
        )


class AnswerStop(StoppingCriteria):
    """Stops `generate` where the engine's `Answer` stops, and notes when the first target forward was done."""

    def __init__(self, answer: Answer, prompt_length: int) -> None:
        self.answer = answer
        self._seen = prompt_length
        self._prompt_length = prompt_length
        self.first_forward: tuple[int, float] | None = None

    def __call__(
        self, input_ids: torch.LongTensor, scores: torch.FloatTensor, **kwargs: Any
    ) -> torch.BoolTensor:
        if self.first_forward is None:
            self.first_forward = (input_ids.shape[1] - self._prompt_length, now(input_ids.device))
        self.answer.add(input_ids[0, self._seen :].tolist())
        self._seen = input_ids.shape[1]
        done = self.answer.stop_reason is not None
        return torch.full((input_ids.shape[0],), done, dtype=torch.bool, device=input_ids.device)  # type: ignore[return-value]


@contextmanager
def counted_forwards(model: torch.nn.Module) -> Iterator[list[int]]:
    """Counts the model's forward calls inside the block (in a one-item list, read after the block)."""
    count = [0]

    def count_one(module: torch.nn.Module, args: Any) -> None:
        count[0] += 1

    handle = model.register_forward_pre_hook(count_one)
    try:
        yield count
    finally:
        handle.remove()


def build_methods(
    names: Sequence[str],
    settings: SpeculativeSettings,
    target: TargetModel,
    tokenizer: PreTrainedTokenizerBase,
) -> dict[str, Method]:
    """The named methods over one loaded target: the two transformers peers, or any engine method by name."""
    stop_token_ids = model_stop_token_ids(target.config, target.model.generation_config, tokenizer)
    methods: dict[str, Method] = {}
    for name in names:
        if name == HF_GREEDY:
            methods[name] = TransformersMethod(target.model, tokenizer, stop_token_ids)
        elif name == HF_PROMPT_LOOKUP:
            methods[name] = TransformersMethod(target.model, tokenizer, stop_token_ids, PROMPT_LOOKUP_TOKENS)
        else:
            methods[name] = EngineMethod(build_generator(settings, target, tokenizer, name))
    return methods
