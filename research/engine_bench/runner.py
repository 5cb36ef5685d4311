"""Runs every method over every prompt, side by side, for several runs after a warm-up."""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from research.engine_bench.measurement import Measurement
from research.engine_bench.methods import Method
from research.engine_bench.prompts import EncodedPrompt

WARM_UP_NEW_TOKENS = 16


@dataclass(frozen=True)
class Record:
    """One method's answer to one prompt in one run."""

    run: int
    prompt: EncodedPrompt
    method: str
    measurement: Measurement


def run_benchmark(
    methods: Mapping[str, Method],
    prompts: Sequence[EncodedPrompt],
    max_new_tokens: int,
    runs: int,
    progress: Callable[[str], None] = lambda line: None,
) -> list[Record]:
    """All records of `runs` runs. Methods alternate per prompt, in an order rotated from prompt to prompt, so
    load from elsewhere on a shared machine falls on every method alike instead of on whichever ran last."""
    if not prompts or runs < 1:
        raise ValueError("a benchmark needs at least one prompt and one run")
    warm_up(methods, prompts[0], min(max_new_tokens, WARM_UP_NEW_TOKENS))
    records = []
    for run in range(runs):
        for index, prompt in enumerate(prompts):
            for name in rotated(list(methods), index):
                measurement = answer(methods[name], prompt, max_new_tokens)
                records.append(Record(run, prompt, name, measurement))
                progress(_progress_line(run, index, len(prompts), name, measurement))
    return records


def warm_up(methods: Mapping[str, Method], prompt: EncodedPrompt, max_new_tokens: int) -> None:
    """One untimed answer per method: first calls pay for allocations and lazy initialisation."""
    for method in methods.values():
        answer(method, prompt, max_new_tokens)


def answer(method: Method, prompt: EncodedPrompt, max_new_tokens: int) -> Measurement:
    return method.run(prompt.token_ids, prompt.prompt.stop_strings, max_new_tokens, prompt.context_ids)


def rotated(names: list[str], shift: int) -> list[str]:
    shift %= len(names)
    return names[shift:] + names[:shift]


def _progress_line(run: int, index: int, count: int, name: str, measurement: Measurement) -> str:
    return (
        f"run {run + 1} prompt {index + 1}/{count} {name}: {len(measurement.token_ids)} tokens, "
        f"{measurement.decode_tokens_per_second:.1f} tok/s decode, τ {measurement.tau:.2f}"
    )
