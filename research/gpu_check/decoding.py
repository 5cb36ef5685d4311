"""The decoding workload of the engine-overhead and batched-throughput checks: a random-weight model of the plan's
shape decoding synthetic prompts with `casd` and a fixed tree through one `BatchDecoder`, as the worker's decoding
thread does.

The prompts are random token ids with a block repeated in them, so CASD finds copies to draft; a random model's
answers follow none of it, so τ stays near 1 and the figures are the engine's, not a language model's. Every
answer runs to its token limit unless the model happens to emit its end-of-sequence id.
"""

import gc
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast, get_args

import torch

from research.engine_bench.concurrency import Outcome
from research.gpu_check.tree_rows import random_llama
from speculative.build import build_generator, build_verifier
from speculative.engine.batch import BatchDecoder
from speculative.engine.generator import Generation, GenerationResult, SpeculativeGenerator
from speculative.engine.request import GenerationRequest
from speculative.settings import SpeculativeSettings, VerifyMode

DTYPE = "bfloat16"
BLOCK_TOKENS = 32


def check_verify_mode() -> VerifyMode:
    """How the checks' verifiers run: VERIFY_MODE `graphs` (what `auto` is on a GPU; on a CPU the static verifier
    runs the same code eagerly, so the dry run goes the GPU's way), unless VERIFY_MODE in the environment says
    otherwise (e.g. `eager`, to measure the dynamic-cache path)."""
    value = os.environ.get("VERIFY_MODE", "graphs")
    if value not in get_args(VerifyMode):
        raise ValueError(f"VERIFY_MODE={value!r}: expected one of {', '.join(get_args(VerifyMode))}")
    return cast(VerifyMode, value)


@dataclass(frozen=True)
class Workload:
    """The generator of a decoding check and the settings it was built with (its verifier is built from them)."""

    generator: SpeculativeGenerator
    settings: SpeculativeSettings


def casd_workload(shape: dict[str, Any], device: str) -> Workload:
    """A random Llama of `shape` in bf16 on `device` (built there) under `casd` with the device's fixed tree, its
    verifier in `check_verify_mode`."""
    target = random_llama(shape, device, DTYPE)
    settings = SpeculativeSettings(
        _env_file=None,
        device=device,
        dtype=DTYPE,
        tree_policy="fixed",
        generator_adapter="none",
        verify_mode=check_verify_mode(),
    )
    return Workload(build_generator(settings, target, None, "casd", policy="fixed"), settings)


def batch_decoder(workload: Workload, slots: int, capacity: int) -> BatchDecoder:
    """A decoder of `slots` answers of up to `capacity` positions over the verifier the worker would build
    (`build_verifier`: static KV cache and CUDA graphs on a GPU, eager on a CPU)."""
    target = workload.generator.target
    return BatchDecoder(target, slots, build_verifier(workload.settings, target, slots, capacity))


def synthetic_requests(
    count: int, prompt_tokens: int, new_tokens: int, vocab_size: int
) -> list[GenerationRequest]:
    """`count` different prompts of `prompt_tokens` ids: random ids with one random block of BLOCK_TOKENS
    repeated every few blocks (copyable text)."""
    requests = []
    for index in range(count):
        generator = torch.Generator().manual_seed(1000 + index)
        block = torch.randint(3, vocab_size, (BLOCK_TOKENS,), generator=generator).tolist()
        ids: list[int] = []
        while len(ids) < prompt_tokens:
            ids += (
                block
                if len(ids) // BLOCK_TOKENS % 3 == 2
                else torch.randint(3, vocab_size, (BLOCK_TOKENS,), generator=generator).tolist()
            )
        requests.append(GenerationRequest(ids[:prompt_tokens], new_tokens))
    return requests


def decode_together(
    generator: SpeculativeGenerator,
    decoder: BatchDecoder,
    requests: Sequence[GenerationRequest],
    after_step: Callable[[BatchDecoder], None] | None = None,
) -> list[Outcome]:
    """The requests arrive at once and join `decoder` (each prefilled as it joins), then step together until all
    have ended; `after_step` sees the decoder after each step. Latency: arrival to an answer's last token.

    `research.engine_bench.concurrency.together` with a decoder that outlives the call, so the verifier's buffers (and
    CUDA graphs) are built once for all rows of a check, not once per row."""
    arrived = time.perf_counter()
    generations = [generator.generate(request) for request in requests]
    ended: dict[int, float] = {}

    def finish(generation: Generation) -> None:
        generation.finish()
        ended[next(i for i, other in enumerate(generations) if other is generation)] = time.perf_counter()

    for generation in generations:
        decoder.join(generation)
        if generation.finished:
            finish(generation)
    while decoder.members:
        for generation, _ in decoder.step():
            if generation.finished:
                finish(generation)
        if after_step is not None:
            after_step(decoder)
    return [
        Outcome(tuple(generation.result.token_ids), ended[index] - arrived)
        for index, generation in enumerate(generations)
    ]


def decode_alone(
    generator: SpeculativeGenerator, decoder: BatchDecoder, request: GenerationRequest
) -> GenerationResult:
    """One answer decoded to its end through `decoder` (the worker's path, alone in the batch)."""
    generation = generator.generate(request)
    decoder.join(generation)
    while decoder.members:
        decoder.step()
    generation.finish()
    return generation.result


def release(device: str) -> None:
    """Free the device memory a check's model held (once the caller has dropped its references) before the next
    check builds its own."""
    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
