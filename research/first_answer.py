"""`python -m research.first_answer`: how long a fresh `make demo` takes from the API being up to its first answer.

Runs `python -m api.demo` in an empty folder (a fresh clone's state: no database, no cached cost model), with the
sample documents copied in and the provisioned models of `MODEL_CACHE`. From the moment `/api/health` answers it
signs in as the demo user and asks a question, again after each 503 (no worker ready) or failure, until one
answer streams to its `done`. Printed as JSON: that time, the answer's length, and the machine's load average at
the start and the end (the same figure on a quiet and a busy machine differs by minutes). `--repo` runs another
checkout's demo with this script (the one before a change), so both are measured the same way.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
from httpx_sse import connect_sse

from api.demo import DEMO_USER, LOGIN_FILE
from research.local_process import free_port

REPO_ROOT = Path(__file__).resolve().parents[2]
QUESTION = "Hoe lang moet ik mijn handen wassen?"
TIMEOUT_SECONDS = 1800.0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    repo = args.repo.resolve()
    with tempfile.TemporaryDirectory(prefix="first-answer-") as folder:
        work = Path(folder)
        shutil.copytree(repo / "samples" / "documents", work / "samples" / "documents")
        port, worker_port = free_port(), free_port()
        environment = os.environ | {
            "PYTHONPATH": str(repo),
            "MODEL_CACHE": str(args.model_cache.resolve()),
            "HF_HUB_OFFLINE": "1",
        }
        command = [sys.executable, "-m", "api.demo", "--port", str(port), "--worker-port", str(worker_port)]
        started = time.monotonic()
        log_path = work / "demo.log"
        with log_path.open("wb") as log:
            launcher = subprocess.Popen(
                command, cwd=work, env=environment, stdout=log, stderr=subprocess.STDOUT
            )
        try:
            report = _measure(f"http://127.0.0.1:{port}", work, started)
        except (httpx.HTTPError, SystemExit) as error:
            tail = log_path.read_text(encoding="utf-8", errors="replace")[-3000:]
            raise SystemExit(
                f"no answer ({error}) after {time.monotonic() - started:.0f} s; the demo said:\n{tail}"
            ) from None
        finally:
            launcher.send_signal(signal.SIGINT)
            try:
                launcher.wait(timeout=60)
            except subprocess.TimeoutExpired:
                launcher.kill()
    print(json.dumps({"repo": str(repo), "command": " ".join(command), **report}, indent=2))
    return 0


def _measure(url: str, work: Path, started: float) -> dict[str, Any]:
    deadline = started + TIMEOUT_SECONDS
    api_up = _wait_for_api(url, deadline)
    load_at_api_up = os.getloadavg()
    password = (work / LOGIN_FILE).read_text(encoding="utf-8").strip()
    with httpx.Client(base_url=url, timeout=600) as client:
        session = client.post("/api/auth/login", json={"username": DEMO_USER, "password": password})
        session.raise_for_status()
        client.headers["X-CSRF-Token"] = session.json()["csrf_token"]
        conversation = client.post("/api/conversations", json={"title": "first answer"}).json()["id"]
        attempts = 0
        while time.monotonic() < deadline:
            attempts += 1
            done = _ask(client, conversation)
            if done is not None:
                answered = time.monotonic()
                return {
                    "api_up_after_seconds": round(api_up - started, 1),
                    "first_answer_after_api_up_seconds": round(answered - api_up, 1),
                    "attempts": attempts,
                    "answer_characters": len(done.get("text", "")),
                    "load_average_1min_at_api_up": round(load_at_api_up[0], 2),
                    "load_average_1min_at_answer": round(os.getloadavg()[0], 2),
                    "cpus": os.cpu_count(),
                }
            time.sleep(2)
    raise SystemExit(f"no answer within {TIMEOUT_SECONDS:.0f} s")


def _wait_for_api(url: str, deadline: float) -> float:
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/api/health", timeout=5).status_code == 200:
                return time.monotonic()
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"the API did not come up within {TIMEOUT_SECONDS:.0f} s")


def _ask(client: httpx.Client, conversation: int) -> dict[str, Any] | None:
    """The `done` event of one answered question with the text streamed before it; None when refused (503) or
    it ended otherwise (without the worker)."""
    body = {"question": QUESTION}
    with connect_sse(client, "POST", f"/api/conversations/{conversation}/messages", json=body) as source:
        if source.response.status_code != 200:
            return None
        text = ""
        for event in source.iter_sse():
            if event.event == "delta":
                text += json.loads(event.data)["text"]
            elif event.event == "done":
                done: dict[str, Any] = json.loads(event.data)
                return done | {"text": text} if "worker" in done.get("stats", {}) else None
    return None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m research.first_answer", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--repo", type=Path, default=REPO_ROOT, help="the checkout whose demo runs (default: this)"
    )
    parser.add_argument(
        "--model-cache",
        type=Path,
        default=Path(os.environ.get("MODEL_CACHE", REPO_ROOT / ".models")),
        help="provisioned models (default: MODEL_CACHE or .models)",
    )
    return parser


if __name__ == "__main__":
    raise SystemExit(main())
