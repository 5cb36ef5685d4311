"""The generation worker and the web API as their own processes on loopback, for the load benchmark and the chat
tests: free ports, started with the given settings in the environment, awaited until their health says ready."""

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

REPO_ROOT = Path(__file__).resolve().parents[1]
TINY_GENERATOR = "HuggingFaceTB/SmolLM2-135M-Instruct"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def worker_process(log: Path, model: str = TINY_GENERATOR, **settings: str) -> Iterator[str]:
    """`python -m speculative.worker` with `model` on one CPU thread in fp32, no EAGLE head, no WORKER_TOKEN unless
    `settings` give one; yields its URL once /health says ready."""
    port = free_port()
    environment = {
        "GENERATOR_MODEL": model,
        "WORKER_HOST": "127.0.0.1",
        "WORKER_PORT": str(port),
        "WORKER_TOKEN": "",
        "EAGLE_HEAD": "",
        "DEVICE": "cpu",
        "DTYPE": "float32",
        "TORCH_THREADS": "1",
        **settings,
    }
    url = f"http://127.0.0.1:{port}"
    with _process(["-m", "speculative.worker"], environment, log) as process:
        _wait_ready(f"{url}/health", process, log)
        yield url


@contextmanager
def api_process(log: Path, **settings: str) -> Iterator[str]:
    """`python -m api serve` (it migrates the database first); yields its URL once /api/health answers 200."""
    with running_api(log, **settings) as (url, _):
        yield url


@contextmanager
def running_api(log: Path, **settings: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`api_process`, yielding the process too (a test may kill it); API_HOST and API_PORT may be given."""
    host = settings.get("API_HOST", "127.0.0.1")
    port = int(settings.get("API_PORT") or free_port())
    environment = {**settings, "API_HOST": host, "API_PORT": str(port)}
    url = f"http://{host}:{port}"
    with _process(["-m", "api", "serve"], environment, log) as process:
        _wait_ready(f"{url}/api/health", process, log)
        yield url, process


@contextmanager
def _process(arguments: list[str], settings: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    environment = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **settings}
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, *arguments], cwd=REPO_ROOT, env=environment, stdout=output, stderr=output
        )
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{url}: the process exited ({process.returncode}):\n{_tail(log)}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"{url}: not ready within {timeout} s:\n{_tail(log)}")


def _tail(log: Path) -> str:
    return log.read_text(encoding="utf-8", errors="replace")[-3000:]
