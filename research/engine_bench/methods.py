"""The benchmarked methods behind one call: the engine's drafting methods and transformers' `generate` peers.

Every method counts its tokens up to its stop (stop token, stop string or token limit). The engine stops by its
own `Answer`; the transformers peers stop by transformers' own rules (the generation config's EOS ids,
`stop_strings=`), never by the engine's code, so a stop-handling bug of the engine shows as an output mismatch.

An engine method may name its tree policy after `@`: `casd@adaptive`, `casd@16` (a fixed tree of 16 nodes);
without one it runs with TREE_POLICY and TREE_BUDGET, so fixed trees of a sweep and the adaptive policy can run
side by side in one benchmark.
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase, StoppingCriteria, StoppingCriteriaList

from modelstore.device import synced_clock
from research.engine_bench.measurement import Measurement
from speculative.budget.cost_model import CostModel
from speculative.build import build_generator
from speculative.engine.generator import SpeculativeGenerator
from speculative.engine.request import GenerationRequest
from speculative.engine.stopping import StopReason
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings, TreePolicy

HF_GREEDY = "hf-greedy"
HF_PROMPT_LOOKUP = "hf-prompt-lookup"
PROMPT_LOOKUP_TOKENS = 10
PEER_METHODS = (HF_GREEDY, HF_PROMPT_LOOKUP)
POLICY_SEPARATOR = "@"


class Method(Protocol):
    def run(
        self,
        prompt_ids: Sequence[int],
        stop_strings: Sequence[str],
        max_new_tokens: int,
        context_ids: Sequence[int] | None = None,
    ) -> Measurement:
        """Answer one prompt greedily, timed from the prompt ids to the last answer token; `context_ids` are the
        passages a copying drafter searches (the engine's; transformers' prompt lookup searches the prompt)."""
        ...


class EngineMethod:
    """A drafting method of the engine, e.g. `casd` or `eagle2+casd`, through its public generator."""

    def __init__(self, generator: SpeculativeGenerator) -> None:
        self.generator = generator

    def run(
        self,
        prompt_ids: Sequence[int],
        stop_strings: Sequence[str],
        max_new_tokens: int,
        context_ids: Sequence[int] | None = None,
    ) -> Measurement:
        device = self.generator.target.device
        request = GenerationRequest(prompt_ids, max_new_tokens, stop_strings, context_ids)
        started = synced_clock(device)
        result = self.generator.generate(request).run()
        total = synced_clock(device) - started
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

    It stops by transformers' own rules, independently of the engine: at the EOS ids of the model's generation
    config and at the stop strings (`stop_strings=`, which keeps the token completing one, as the engine does).
    transformers checks stop strings only at the end of a step, so prompt lookup can accept tokens past one: the
    answer is then cut at the shortest prefix whose text holds a stop string, after the timing. τ is the answer's
    raw tokens per target forward (transformers runs the prefill together with its first verification); there is
    no draft/verify profile.
    """

    def __init__(
        self,
        model: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase,
        prompt_lookup_tokens: int | None = None,
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.prompt_lookup_tokens = prompt_lookup_tokens
        eos = model.generation_config.eos_token_id
        self.eos_token_ids = frozenset([eos] if isinstance(eos, int) else eos or [])

    def run(
        self,
        prompt_ids: Sequence[int],
        stop_strings: Sequence[str],
        max_new_tokens: int,
        context_ids: Sequence[int] | None = None,
    ) -> Measurement:
        clock = FirstForwardClock(len(prompt_ids))
        input_ids = torch.tensor([list(prompt_ids)], device=self.model.device)
        with counted_forwards(self.model) as forwards:
            started = synced_clock(self.model.device)
            output = self._generate(input_ids, max_new_tokens, stop_strings, clock)
            ended = synced_clock(self.model.device)
        raw = [int(token) for token in output[0, len(prompt_ids) :]]
        token_ids, text, stopped_by_string = cut_at_stop_string(self.tokenizer, raw, stop_strings)
        first_tokens, first_forward_done = clock.first_forward or (len(raw), ended)
        return Measurement(
            token_ids=tuple(token_ids),
            text=text,
            stop_reason=self._stop_reason(token_ids, stopped_by_string),
            total_seconds=ended - started,
            decode_seconds=ended - first_forward_done,
            decode_tokens=max(0, len(token_ids) - first_tokens),
            target_forwards=forwards[0],
            tau=len(raw) / forwards[0] if forwards[0] else 0.0,
        )

    @torch.inference_mode()
    def _generate(
        self,
        input_ids: torch.Tensor,
        max_new_tokens: int,
        stop_strings: Sequence[str],
        clock: "FirstForwardClock",
    ) -> torch.Tensor:
        pad_token_id = self.tokenizer.pad_token_id
        return self.model.generate(  # type: ignore[operator]
            input_ids,
            attention_mask=torch.ones_like(input_ids),
            max_new_tokens=max_new_tokens,
            do_sample=False,
            pad_token_id=pad_token_id if pad_token_id is not None else min(self.eos_token_ids, default=0),
            stop_strings=list(stop_strings) or None,
            tokenizer=self.tokenizer,
            stopping_criteria=StoppingCriteriaList([clock]),
            prompt_lookup_num_tokens=self.prompt_lookup_tokens,
        )

    def _stop_reason(self, token_ids: Sequence[int], stopped_by_string: bool) -> str:
        if stopped_by_string:
            return str(StopReason.STOP_STRING)
        if token_ids and token_ids[-1] in self.eos_token_ids:
            return str(StopReason.STOP_TOKEN)
        return str(StopReason.LENGTH)


def cut_at_stop_string(
    tokenizer: PreTrainedTokenizerBase, token_ids: Sequence[int], stop_strings: Sequence[str]
) -> tuple[list[int], str, bool]:
    """The shortest prefix of the answer whose text holds a stop string, its text cut before the string, and
    whether one was found; without one the whole answer and its text."""
    whole = _decode(tokenizer, token_ids)
    if any(stop in whole for stop in stop_strings):
        for length in range(1, len(token_ids) + 1):
            text = _decode(tokenizer, token_ids[:length])
            found = [index for stop in stop_strings if (index := text.find(stop)) >= 0]
            if found:
                return list(token_ids[:length]), text[: min(found)], True
    return list(token_ids), whole, False


def _decode(tokenizer: PreTrainedTokenizerBase, token_ids: Sequence[int]) -> str:
    return str(tokenizer.decode(list(token_ids), skip_special_tokens=True))


class FirstForwardClock(StoppingCriteria):
    """Stops nothing: notes how many answer tokens the first target forward produced, and when it was done."""

    def __init__(self, prompt_length: int) -> None:
        self._prompt_length = prompt_length
        self.first_forward: tuple[int, float] | None = None

    def __call__(
        self, input_ids: torch.LongTensor, scores: torch.FloatTensor, **kwargs: Any
    ) -> torch.BoolTensor:
        if self.first_forward is None:
            self.first_forward = (input_ids.shape[1] - self._prompt_length, synced_clock(input_ids.device))
        return torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)  # type: ignore[return-value]


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
    cost_model: CostModel | None = None,
) -> dict[str, Method]:
    """The named methods over one loaded target: the two transformers peers, or any engine method by name."""
    methods: dict[str, Method] = {}
    for name in names:
        if name == HF_GREEDY:
            methods[name] = TransformersMethod(target.model, tokenizer)
        elif name == HF_PROMPT_LOOKUP:
            methods[name] = TransformersMethod(target.model, tokenizer, PROMPT_LOOKUP_TOKENS)
        else:
            method, policy, method_settings = engine_method(name, settings)
            generator = build_generator(method_settings, target, tokenizer, method, cost_model, policy)
            methods[name] = EngineMethod(generator)
    return methods


def engine_method(name: str, settings: SpeculativeSettings) -> tuple[str, TreePolicy, SpeculativeSettings]:
    """`casd@adaptive` → casd with the adaptive policy; `casd@16` → casd with a fixed 16-node tree."""
    method, separator, policy = name.partition(POLICY_SEPARATOR)
    if not separator:
        return method, settings.tree_policy, settings
    if policy == "adaptive":
        return method, "adaptive", settings
    if policy == "fixed":
        return method, "fixed", settings
    if policy.isdigit():
        return method, "fixed", settings.model_copy(update={"tree_budget": int(policy)})
    raise SystemExit(
        f"unknown tree policy in {name!r}: use @adaptive, @fixed or @N (a fixed tree of N nodes)"
    )
