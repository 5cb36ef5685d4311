"""The worker on the checked device: `python -m speculative.worker` serving the shipped small model, one answer
streamed over its HTTP API (Server-Sent Events) and checked event by event."""

import json
import time
from pathlib import Path
from typing import Any

import httpx
from httpx_sse import connect_sse

from research.gpu_check.checks import CheckResult
from research.gpu_check.worker_model import write_worker_model
from research.local_process import LocalWorker

START_TIMEOUT_SECONDS = 240.0
PROMPT = "De patiënt krijgt vóór de ingreep uitleg over de nuchterheid. " * 8


def stream_from_worker(
    device: str,
    dtype: str,
    new_tokens: int,
    extra_settings: dict[str, str],
    work_dir: Path,
    log_path: Path,
) -> CheckResult:
    """Start the worker with the small model (written to `work_dir`) on `device`, stream one answer of
    `new_tokens` tokens and check the stream: a start event, deltas that add up to the done event's text, the
    requested length."""
    started = time.monotonic()
    name = f"worker on {device} ({dtype}): one answer streamed over HTTP"
    settings = {
        "GENERATOR_MODEL": str(write_worker_model(work_dir / "worker-model")),
        "MODEL_CACHE": str(work_dir / "model-cache"),
        "COST_MODEL_DIR": str(work_dir / "cost-models"),
        "EAGLE_HEAD": "",
        "DRAFT_METHOD": "casd",
        "DEVICE": device,
        "DTYPE": dtype,
        "CHAT_TEMPLATE": "none",
        "STOP_STRINGS": "[]",
        "REPETITION_WINDOW": "0",  # random weights loop; the answer must run to its length
    } | extra_settings
    try:
        with LocalWorker(settings, log_path) as worker:
            worker.wait_until_ready(START_TIMEOUT_SECONDS)
            with httpx.Client(base_url=worker.url, timeout=START_TIMEOUT_SECONDS) as client:
                health = client.get("/health").json()
                events = _stream(client, {"prompt": PROMPT, "max_new_tokens": new_tokens})
    except (RuntimeError, httpx.HTTPError) as error:
        first_line = str(error).splitlines()[0]  # the worker's log tail follows: it is in the log file
        return CheckResult(name, False, time.monotonic() - started, [f"`{first_line}` (log: `{log_path}`)"])
    problems = _stream_problems(events, health, device, new_tokens)
    return CheckResult(name, not problems, time.monotonic() - started, problems + _figures(events, health))


def _stream(client: httpx.Client, body: dict[str, Any]) -> list[tuple[str, dict[str, Any], float]]:
    """Every event of one POST /generate: its name, its data and when it arrived (seconds after the POST)."""
    posted = time.perf_counter()
    with connect_sse(client, "POST", "/generate", json=body) as source:
        source.response.raise_for_status()
        return [
            (event.event, json.loads(event.data), time.perf_counter() - posted) for event in source.iter_sse()
        ]


def _stream_problems(
    events: list[tuple[str, dict[str, Any], float]], health: dict[str, Any], device: str, new_tokens: int
) -> list[str]:
    names = [name for name, _, _ in events]
    done = [data for name, data, _ in events if name == "done"]
    deltas = "".join(data["text"] for name, data, _ in events if name == "delta")
    problems = []
    if not device.startswith(str(health.get("device"))):
        problems.append(f"the worker reports device {health.get('device')!r}, not {device!r}")
    if not names or names[0] != "start" or names[-1] != "done" or len(done) != 1 or "error" in names:
        problems.append(f"events {names[:3]}…{names[-3:]}: expected start, deltas, one done and no error")
        return problems
    if "delta" not in names or deltas != done[0]["text"]:
        problems.append("the deltas do not add up to the done event's text")
    if done[0]["stats"]["new_tokens"] != new_tokens or done[0]["stop_reason"] != "length":
        problems.append(
            f"{done[0]['stats']['new_tokens']} tokens, stop reason {done[0]['stop_reason']!r}: expected "
            f"{new_tokens} and 'length'"
        )
    return problems


def _figures(events: list[tuple[str, dict[str, Any], float]], health: dict[str, Any]) -> list[str]:
    done = [data for name, data, _ in events if name == "done"]
    if not done:
        return []
    first_delta = next((at for name, _, at in events if name == "delta"), events[-1][2])
    stats = done[0]["stats"]
    return [
        f"model: {health.get('model')}, method {health.get('method')}, tree policy {health.get('tree_policy')}",
        f"{stats['new_tokens']} tokens after a {stats['prompt_tokens']}-token prompt: first text after "
        f"{first_delta * 1000:.0f} ms, decode {stats['decode_tokens_per_second']:.1f} tokens/s, τ {stats['tau']:.2f}, "
        f"{len(events) - 2} deltas, whole answer {events[-1][2]:.2f} s",
    ]
