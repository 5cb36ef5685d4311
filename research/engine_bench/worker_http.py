"""The worker over HTTP against the engine called directly: what HTTP, SSE and the queue cost, and a burst.

`python -m research.engine_bench.worker_http --model M --prompts rag:FILE.jsonl --out DIR` loads the model in this process
(the engine path: the worker's own `LoadedModel` and request building, iterated directly) and starts a worker
process with the same settings (the HTTP path: POST /generate, SSE read to `done`). Per prompt the two paths
alternate, the first one rotating, after a warm-up of each; end-to-end tokens/s is answer tokens over the wall
time from the call (or POST) to the end, TTFT the time to the first text. Then `--clients` clients send at once:
each request must complete or get 503, none may be lost, and the queue wait is read from /metrics.
"""

import argparse
import json
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
import torch
from httpx_sse import connect_sse

from research.engine_bench.prompts import BenchPrompt, load_prompt_set
from research.engine_bench.recording import command_line
from research.local_process import LocalWorker
from speculative.settings import SpeculativeSettings
from speculative.worker.model import LoadedModel
from speculative.worker.schemas import GenerateBody
from speculative.worker.service import engine_request

START_TIMEOUT_SECONDS = 900.0


@dataclass(frozen=True)
class Timing:
    """One answer: tokens, wall seconds from the call to the end, to the first text, and the engine's prefill."""

    path: str
    prompt_id: str
    tokens: int
    seconds: float
    first_text_seconds: float
    prefill_seconds: float
    text: str

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds


def request_body(prompt: BenchPrompt, max_new_tokens: int, method: str) -> GenerateBody:
    context = None if prompt.context is None else list(prompt.context)
    return GenerateBody(
        prompt=prompt.text,
        context=context,
        stop=list(prompt.stop_strings),
        max_new_tokens=max_new_tokens,
        method=method,
    )


def engine_answer(model: LoadedModel, prompt: BenchPrompt, body: GenerateBody) -> Timing:
    """The engine called directly, as the worker's decoding thread calls it (no HTTP, no queue)."""
    started = time.perf_counter()
    generation = model.generator(body.method or model.method).generate(
        engine_request(model, body, time.monotonic())
    )
    first_text = None
    for _ in generation:
        first_text = first_text or time.perf_counter()
    ended = time.perf_counter()
    result = generation.result
    return Timing(
        "engine",
        prompt.prompt_id,
        result.stats.new_tokens,
        ended - started,
        (first_text or ended) - started,
        result.stats.prefill_seconds,
        result.text,
    )


def http_answer(client: httpx.Client, prompt: BenchPrompt, body: GenerateBody) -> Timing:
    """POST /generate, read the stream to `done`; times are the client's."""
    started = time.perf_counter()
    first_text = None
    done: dict[str, Any] | None = None
    with connect_sse(client, "POST", "/generate", json=body.model_dump(exclude_none=True)) as source:
        source.response.raise_for_status()
        for event in source.iter_sse():
            if event.event == "delta":
                first_text = first_text or time.perf_counter()
            elif event.event == "done":
                done = json.loads(event.data)
            elif event.event == "error":
                raise RuntimeError(f"{prompt.prompt_id}: the worker failed: {event.data}")
    ended = time.perf_counter()
    if done is None:
        raise RuntimeError(f"{prompt.prompt_id}: the stream ended without a done event")
    stats = done["stats"]
    return Timing(
        "http",
        prompt.prompt_id,
        stats["new_tokens"],
        ended - started,
        (first_text or ended) - started,
        stats["prefill_seconds"],
        done["text"],
    )


def side_by_side(
    model: LoadedModel, client: httpx.Client, prompts: Sequence[BenchPrompt], args: argparse.Namespace
) -> list[Timing]:
    """Every prompt through both paths in each run, the first path alternating from prompt to prompt."""
    bodies = [request_body(prompt, args.max_new_tokens, args.method) for prompt in prompts]
    engine_answer(model, prompts[0], bodies[0])
    http_answer(client, prompts[0], bodies[0])
    timings = []
    for run in range(args.runs):
        for index, (prompt, body) in enumerate(zip(prompts, bodies, strict=True)):
            pair = [engine_answer, lambda m, p, b: http_answer(client, p, b)]
            for answer in pair if (index + run) % 2 == 0 else pair[::-1]:
                timing = answer(model, prompt, body)
                timings.append(timing)
                print(
                    f"run {run + 1} {prompt.prompt_id} {timing.path}: {timing.tokens} tokens, "
                    f"{timing.tokens_per_second:.1f} tok/s, first text {timing.first_text_seconds:.2f} s",
                    file=sys.stderr,
                )
    return timings


def burst(url: str, prompts: Sequence[BenchPrompt], args: argparse.Namespace) -> dict[str, Any]:
    """`args.clients` requests sent at once; each must end in `done` or a 503, none lost."""
    barrier = threading.Barrier(args.clients)

    def client_request(number: int) -> str:
        prompt = prompts[number % len(prompts)]
        body = request_body(prompt, args.max_new_tokens, args.method).model_dump(exclude_none=True)
        with httpx.Client(base_url=url, timeout=None) as client:
            barrier.wait()
            try:
                with connect_sse(client, "POST", "/generate", json=body) as source:
                    if source.response.status_code != 200:
                        return str(source.response.status_code)
                    names = [event.event for event in source.iter_sse()]
            except httpx.HTTPError as error:
                return f"lost: {type(error).__name__}"
            return names[-1] if names and names[-1] in {"done", "error"} else "lost: no final event"

    with ThreadPoolExecutor(args.clients) as pool:
        outcomes = Counter(pool.map(client_request, range(args.clients)))
    metrics = httpx.get(f"{url}/metrics").text
    return {
        "clients": args.clients,
        "queue_limit": args.queue_limit,
        "outcomes": dict(outcomes),
        "lost": sum(count for outcome, count in outcomes.items() if outcome not in {"done", "503"}),
        "queue_wait_count": _metric(metrics, "worker_queue_wait_seconds_count"),
        "queue_wait_sum_seconds": _metric(metrics, "worker_queue_wait_seconds_sum"),
        "requests_done": _metric(metrics, 'worker_requests_total{outcome="done"}'),
        "requests_queue_full": _metric(metrics, 'worker_requests_total{outcome="queue_full"}'),
    }


def summarize(timings: Sequence[Timing]) -> dict[str, Any]:
    by_path = {path: [t for t in timings if t.path == path] for path in ("engine", "http")}
    ratios = [
        http.tokens_per_second / engine.tokens_per_second
        for engine, http in zip(by_path["engine"], by_path["http"], strict=True)
    ]
    return {
        "answers_equal": all(
            e.text == h.text for e, h in zip(by_path["engine"], by_path["http"], strict=True)
        ),
        "median_http_over_engine_tokens_per_second": statistics.median(ratios),
        "mean_http_over_engine_tokens_per_second": statistics.fmean(ratios),
        "min_http_over_engine_tokens_per_second": min(ratios),
        **{
            f"{path}_{figure}": statistics.median(getattr(t, attribute) for t in rows)
            for path, rows in by_path.items()
            for figure, attribute in (
                ("median_tokens_per_second", "tokens_per_second"),
                ("median_first_text_seconds", "first_text_seconds"),
                ("median_prefill_seconds", "prefill_seconds"),
            )
        },
        "mean_answer_tokens": statistics.fmean(t.tokens for t in by_path["engine"]),
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m research.engine_bench.worker_http", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--model", required=True, help="target model: a name in the model cache or a folder")
    parser.add_argument("--prompts", required=True, help="rag:FILE.jsonl or spec-bench:PATH[:CATEGORY]")
    parser.add_argument("--method", default="casd")
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--limit", type=int, default=10, help="the first N prompts")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads, here and in the worker")
    parser.add_argument("--clients", type=int, default=8, help="clients sending at once in the burst")
    parser.add_argument(
        "--queue-limit", type=int, default=4, help="the worker's QUEUE_LIMIT in this benchmark"
    )
    parser.add_argument("--out", type=Path, required=True, help="folder for results.json and worker.log")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    prompts = load_prompt_set(args.prompts)[: args.limit]
    args.out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.threads)
    worker_settings = {
        "GENERATOR_MODEL": args.model,
        "DRAFT_METHOD": args.method,
        "TORCH_THREADS": str(args.threads),
        "QUEUE_LIMIT": str(args.queue_limit),
    }
    settings = SpeculativeSettings(
        generator_model=args.model, draft_method=args.method, torch_threads=args.threads
    )
    with LocalWorker(worker_settings, args.out / "worker.log") as worker:
        model = LoadedModel(settings)
        worker.wait_until_ready(START_TIMEOUT_SECONDS)
        with httpx.Client(base_url=worker.url, timeout=None) as client:
            timings = side_by_side(model, client, prompts, args)
        concurrency = burst(worker.url, prompts, args)
    report = {
        "command": command_line("research.engine_bench.worker_http", argv),
        "model": args.model,
        "method": args.method,
        "prompts": len(prompts),
        "runs": args.runs,
        "threads": args.threads,
        "device": settings.device,
        "dtype": settings.dtype,
        "summary": summarize(timings),
        "burst": concurrency,
        "timings": [asdict(timing) | {"tokens_per_second": timing.tokens_per_second} for timing in timings],
    }
    (args.out / "results.json").write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    print(
        json.dumps(
            {key: report[key] for key in ("command", "summary", "burst")}, indent=2, ensure_ascii=False
        )
    )
    return 0


def _metric(text: str, line_start: str) -> float:
    for line in text.splitlines():
        if line.startswith(line_start):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


if __name__ == "__main__":
    raise SystemExit(main())
