"""Decoding steps under `torch.profiler`: where a step's host and device time go, how many kernels it launches and
how often it waits for the device.

The plan's random-weight model (Llama-3-8B-shaped on a GPU) decodes a batch of synthetic prompts through one
`BatchDecoder` as engine_overhead.py's check does (bf16, `casd`, the fixed tree, the verifier the worker builds).
One round is decoded unprofiled first (allocations, graph capture); in the next round the profiler skips the first
step (its joins and prefills are in the profiler's own warm-up) and records the following `steps` steps.
`BatchDecoder.step` marks each step with the range `step` around `step.draft`, `step.verify`, `step.accept` and
`step.cache`; per part the table gives the mean per step of:

- host: wall time of the range on the host (it ends after the clock read that times the part, which on a GPU waits
  for the part's kernels); python = the step less its four ranges;
- device (CUDA): the summed time of the kernels launched inside the range (the profiler's `device_time_total`);
- kernel launches (CUDA): CUDA runtime and driver launch calls inside the range (`cudaLaunchKernel`,
  `cudaLaunchKernelExC`, `cuLaunchKernel`, `cuLaunchKernelEx`), and graph launches (`cudaGraphLaunch`, one per
  replayed graph) apart; on a CPU there are no kernels and the aten ops dispatched inside the range are counted
  instead, nested ones included;
- host syncs (CUDA): `cudaDeviceSynchronize`, `cudaStreamSynchronize` and `cudaEventSynchronize` calls inside the
  range (a tensor read on the host is a copy followed by `cudaStreamSynchronize`; the step's clock synchronises the
  device at each of its six reads: one in each range, two in the python rest).

The Chrome trace of the recorded steps is written to `trace` (open it in https://ui.perfetto.dev). The check fails
when no step was recorded, a step lacks one of its ranges, or a time is not finite and ≥ 0.
"""

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch.autograd import DeviceType
from torch.autograd.profiler_util import FunctionEvent
from torch.profiler import ProfilerActivity, profile, schedule

from research.gpu_check.checks import CheckResult
from research.gpu_check.decoding import (
    Workload,
    batch_decoder,
    casd_workload,
    decode_together,
    release,
    synthetic_requests,
)
from speculative.engine.batch import BatchDecoder

STEP = "step"
RANGES = ("draft", "verify", "accept", "cache")  # each profiled as the range `step.<part>`
PYTHON = "python"  # the step less its ranges
KERNEL_LAUNCHES = frozenset({"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx"})
GRAPH_LAUNCHES = frozenset({"cudaGraphLaunch"})
HOST_SYNCS = frozenset({"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize"})


@dataclass(frozen=True)
class PartProfile:
    """One part of one step: microseconds on the host and on the device, and what it called."""

    host_us: float
    device_us: float
    launches: int  # CUDA: kernel launches; CPU: aten ops
    graph_launches: int
    syncs: int

    def __sub__(self, other: "PartProfile") -> "PartProfile":
        return PartProfile(
            self.host_us - other.host_us,
            self.device_us - other.device_us,
            self.launches - other.launches,
            self.graph_launches - other.graph_launches,
            self.syncs - other.syncs,
        )


@dataclass(frozen=True)
class StepProfile:
    """One recorded step: each range's part, the rest (python) and the whole step."""

    parts: dict[str, PartProfile]  # RANGES and PYTHON
    step: PartProfile


def step_profile(
    shape: dict[str, Any],
    model_name: str,
    device: str,
    answers: int,
    steps: int,
    prompt_tokens: int,
    new_tokens: int,
    trace: Path,
) -> CheckResult:
    """`steps` decoding steps of `answers` answers at once, profiled; the Chrome trace written to `trace`."""
    started = time.monotonic()
    name = f"step profile (torch.profiler), {model_name}, bf16, casd, on {device}"
    on_cuda = torch.device(device).type == "cuda"
    workload = casd_workload(shape, device)
    try:
        events, mode, nodes = _profiled_round(workload, answers, steps, prompt_tokens, new_tokens, trace)
    finally:
        del workload
        release(device)
    recorded, problems = step_profiles(events, on_cuda)
    if not trace.is_file():
        problems.append(f"no trace was written to {trace}")
    details = [
        f"{answers} answers decoded together, synthetic prompts of {prompt_tokens} tokens, {new_tokens} new tokens "
        f"each, fixed tree of {nodes} nodes per answer; verifier: {mode}; one round unprofiled, then "
        f"{len(recorded)} steps recorded (of {steps} asked) after the profiler's warm-up step; means per step",
        f"Chrome trace: `{trace}` (open in https://ui.perfetto.dev; ranges `step`, `step.draft`, `step.verify`, "
        "`step.accept`, `step.cache`)",
        (
            "device = summed kernel time inside the range; launches = cudaLaunchKernel/cuLaunchKernel calls, graph "
            "launches = cudaGraphLaunch; host syncs = cuda{Device,Stream,Event}Synchronize calls"
            if on_cuda
            else "on a CPU: no device time, no kernels and no host syncs; launches = the aten ops dispatched in the "
            "range (nested ones included) instead"
        ),
        *problems,
        "",
        *profile_table(recorded, on_cuda),
    ]
    return CheckResult(name, not problems, time.monotonic() - started, details)


def _profiled_round(
    workload: Workload, answers: int, steps: int, prompt_tokens: int, new_tokens: int, trace: Path
) -> tuple[list[FunctionEvent], str, int]:
    """The profiler's events of a round after an unprofiled one, how the verifier ran (after the run, so a failed
    capture shows) and the tree's nodes per answer."""
    generator = workload.generator
    requests = synthetic_requests(answers, prompt_tokens, new_tokens, int(generator.target.config.vocab_size))
    decoder = batch_decoder(workload, answers, prompt_tokens + new_tokens)
    decode_together(generator, decoder, requests)  # warm-up, not profiled
    on_cuda = generator.target.device.type == "cuda"
    trace.parent.mkdir(parents=True, exist_ok=True)
    trace.unlink(missing_ok=True)  # the check looks for this run's trace
    with profile(
        activities=[ProfilerActivity.CPU, *([ProfilerActivity.CUDA] if on_cuda else [])],
        schedule=schedule(wait=0, warmup=1, active=steps, repeat=1),
        on_trace_ready=lambda finished: finished.export_chrome_trace(str(trace)),
    ) as profiler:

        def next_step(_: BatchDecoder) -> None:
            profiler.step()

        decode_together(generator, decoder, requests, next_step)
    return list(profiler.events()), decoder.verifier.mode, generator.tree_budget().nodes_for_next_step()


def step_profiles(events: Sequence[FunctionEvent], on_cuda: bool) -> tuple[list[StepProfile], list[str]]:
    """Each `step` range among the profiler's events with its parts, and what is wrong with the steps (a missing
    or repeated range, a time that is not finite and ≥ 0, no step at all)."""
    host_events = [event for event in events if event.device_type == DeviceType.CPU and not event.is_async]
    step_events = sorted((event for event in host_events if event.name == STEP), key=_start)
    recorded, problems = [], []
    for number, step in enumerate(step_events, 1):
        inside = [event for event in host_events if event is not step and _within(event, step)]
        ranges = {part: [event for event in inside if event.name == f"{STEP}.{part}"] for part in RANGES}
        wrong = [f"{STEP}.{part} × {len(found)}" for part, found in ranges.items() if len(found) != 1]
        if wrong:
            problems.append(f"step {number}: {', '.join(wrong)} (expected each once)")
            continue
        whole = _part(step, inside, on_cuda)
        parts = {part: _part(found[0], inside, on_cuda) for part, found in ranges.items()}
        rest = whole
        for part in parts.values():
            rest -= part
        profiled = StepProfile(parts | {PYTHON: rest}, whole)
        if not all(
            math.isfinite(value) and value >= 0
            for part in (*profiled.parts.values(), whole)
            for value in (part.host_us, part.device_us)
        ):
            problems.append(f"step {number}: a time is not finite and ≥ 0")
        recorded.append(profiled)
    if not step_events:
        problems.append("no step was recorded")
    return recorded, problems


def _start(event: FunctionEvent) -> float:
    return float(event.time_range.start)


def _within(event: FunctionEvent, outer: FunctionEvent) -> bool:
    return outer.time_range.start <= event.time_range.start and event.time_range.end <= outer.time_range.end


def _part(range_event: FunctionEvent, step_events: Sequence[FunctionEvent], on_cuda: bool) -> PartProfile:
    """The figures of one range, from the events of its step that lie within it."""
    inside = [event for event in step_events if event is not range_event and _within(event, range_event)]
    if on_cuda:
        launches = sum(event.name in KERNEL_LAUNCHES for event in inside)
    else:  # the aten ops the decoding thread dispatched
        launches = sum(
            event.name.startswith("aten::") and event.thread == range_event.thread for event in inside
        )
    return PartProfile(
        host_us=float(range_event.time_range.elapsed_us()),
        device_us=float(range_event.device_time_total) if on_cuda else 0.0,
        launches=launches,
        graph_launches=sum(event.name in GRAPH_LAUNCHES for event in inside),
        syncs=sum(event.name in HOST_SYNCS for event in inside),
    )


def profile_table(steps: Sequence[StepProfile], on_cuda: bool) -> list[str]:
    """Markdown: one row per part and one for the whole step, means per step over `steps`."""
    if on_cuda:
        header = [
            "| part | host (ms) | device, kernels (ms) | kernel launches | graph launches | host syncs |",
            "|---|---|---|---|---|---|",
        ]
    else:
        header = ["| part | host (ms) | aten ops (no kernels on a CPU) |", "|---|---|---|"]
    if not steps:
        return header
    rows = [(f"{STEP}.{part}", [step.parts[part] for step in steps]) for part in RANGES]
    rows += [
        (f"{PYTHON} (step less its ranges)", [step.parts[PYTHON] for step in steps]),
        (f"**{STEP}**", [step.step for step in steps]),
    ]
    lines = list(header)
    for label, parts in rows:
        host = _mean(part.host_us for part in parts) / 1000
        launches = _mean(part.launches for part in parts)
        if on_cuda:
            device = _mean(part.device_us for part in parts) / 1000
            graphs = _mean(part.graph_launches for part in parts)
            syncs = _mean(part.syncs for part in parts)
            lines.append(
                f"| {label} | {host:.3f} | {device:.3f} | {launches:.1f} | {graphs:.1f} | {syncs:.1f} |"
            )
        else:
            lines.append(f"| {label} | {host:.3f} | {launches:.1f} |")
    return lines


def _mean(values: Iterable[float]) -> float:
    collected = [float(value) for value in values]
    return sum(collected) / len(collected)
