"""Verification step time per tree size for a large model, against what the memory bandwidth allows.

On a GPU one decoding step of a big model is bound by reading its weights from HBM: verifying 64 tree rows should
cost little more than verifying one, which is what makes speculative decoding pay there. The model is a Llama
of the given shape with random weights allocated and initialised on the device itself (no CPU copy: 16 GB for
Llama-3-8B in bf16); each step is one verify forward after a prefix, timed by the worker's cost model measurement
(its default, eager verifier; `verify_graphs` times the static and graphed ones). The HBM limit of a step is the
bytes it must read (every weight except the input embedding, of which only the input rows are gathered, plus the
prefix's KV cache) over the bandwidth of a device-to-device copy measured in the same run.
"""

import math
import time
from dataclasses import dataclass
from typing import Any

import torch
from transformers import AutoModelForCausalLM, LlamaConfig

from modelstore.device import synced_clock, torch_dtype
from research.gpu_check.checks import CheckResult
from speculative.budget.cost_model import measure
from speculative.engine.target import TargetModel

COPY_ROUNDS = 5
COPIES_PER_ROUND = 10
# A step faster than this share of the copy-measured HBM limit cannot have read the weights: the timing is broken
# (e.g. unsynchronised). Not 1.0: matrix-vector kernels may stream memory somewhat faster than a plain copy.
PLAUSIBLE_SHARE_OF_LIMIT = 0.5


@dataclass(frozen=True)
class StepTiming:
    rows: int
    seconds: float
    limit_seconds: float


def copy_bandwidth(device: torch.device, nbytes: int) -> float:
    """Bytes per second of a device-to-device copy (each byte read once and written once), best round."""
    source = torch.empty(nbytes, dtype=torch.uint8, device=device)
    target = torch.empty_like(source)
    target.copy_(source)
    best = math.inf
    for _ in range(COPY_ROUNDS):
        started = synced_clock(device)
        for _ in range(COPIES_PER_ROUND):
            target.copy_(source)
        best = min(best, synced_clock(device) - started)
    return 2 * nbytes * COPIES_PER_ROUND / best


def random_llama(shape: dict[str, Any], device: str, dtype: str) -> TargetModel:
    """A Llama of `shape` with random weights, created directly on `device` in `dtype`."""
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(
            LlamaConfig(**shape), dtype=torch_dtype(dtype), attn_implementation="sdpa"
        )
    return TargetModel(model)


def bytes_per_step(target: TargetModel, prefix_tokens: int) -> int:
    """What one verification step must read: the weights (an untied input embedding only gathers its rows, so
    it is left out) and the prefix's keys and values."""
    model = target.model
    weights = sum(parameter.numel() * parameter.element_size() for parameter in model.parameters())
    embedding = model.get_input_embeddings().weight
    output = model.get_output_embeddings()
    if output is None or output.weight is not embedding:
        weights -= embedding.numel() * embedding.element_size()
    config = target.config
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    kv_per_token = 2 * config.num_hidden_layers * config.num_key_value_heads * head_dim
    return int(weights + kv_per_token * prefix_tokens * embedding.element_size())


def time_tree_rows(
    shape: dict[str, Any],
    model_name: str,
    device: str,
    rows: tuple[int, ...],
    prefix_tokens: int,
    repeats: int,
    copy_bytes: int,
) -> CheckResult:
    """Median step time of verifying each number of `rows` after `prefix_tokens`, with the HBM limit of each."""
    started = time.monotonic()
    name = f"verification step time per tree size, {model_name}, bf16, on {device}"
    torch_device = torch.device(device)
    bandwidth = copy_bandwidth(torch_device, copy_bytes)
    target = random_llama(shape, device, "bfloat16")
    built = time.monotonic() - started
    parameters = sum(parameter.numel() for parameter in target.model.parameters())
    step_bytes = bytes_per_step(target, prefix_tokens)
    cost = measure(target, {"model": model_name, "device": device}, rows, prefix_tokens, repeats)
    del target
    if torch_device.type == "cuda":
        torch.cuda.empty_cache()
    timings = [
        StepTiming(size, seconds, step_bytes / bandwidth)
        for size, seconds in zip(cost.rows, cost.seconds, strict=True)
    ]
    problems = implausible_steps(timings, torch_device)
    details = [
        f"{parameters / 1e6:,.0f}M parameters, built on the device in {built:.1f} s; prefix {prefix_tokens} tokens; "
        f"median of {repeats} interleaved repeats per size",
        f"device-to-device copy: {bandwidth / 1e9:.0f} GB/s (read + write); bytes read per step "
        f"{step_bytes / 1e6:,.0f} MB → HBM limit {step_bytes / bandwidth * 1000:.2f} ms",
        *problems,
        "",
        *step_table(timings),
    ]
    return CheckResult(name, not problems, time.monotonic() - started, details)


def implausible_steps(timings: list[StepTiming], device: torch.device) -> list[str]:
    """Times no GPU can reach (faster than reading the weights) or no timing at all. On the CPU the dry run's
    tiny model sits in the caches, so only finiteness is checked there."""
    broken = [timing for timing in timings if not (math.isfinite(timing.seconds) and timing.seconds > 0)]
    if device.type == "cuda":
        broken += [t for t in timings if t.seconds < PLAUSIBLE_SHARE_OF_LIMIT * t.limit_seconds]
    return [
        f"implausible step time for {timing.rows} rows: {timing.seconds * 1000:.3f} ms against an HBM limit of "
        f"{timing.limit_seconds * 1000:.3f} ms"
        for timing in broken
    ]


def step_table(timings: list[StepTiming]) -> list[str]:
    """The Markdown table of the report."""
    single = timings[0].seconds
    lines = [
        "| tree rows | step (ms) | × 1-row step | HBM limit (ms) | limit / step |",
        "|---|---|---|---|---|",
    ]
    for timing in timings:
        lines.append(
            f"| {timing.rows} | {timing.seconds * 1000:.2f} | {timing.seconds / single:.2f} | "
            f"{timing.limit_seconds * 1000:.2f} | {timing.limit_seconds / timing.seconds:.0%} |"
        )
    return lines
