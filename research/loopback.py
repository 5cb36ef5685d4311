"""The generation worker and the web API as their own processes on loopback, for the load benchmark, the offline
answer report and the tests that need real processes: free ports, started with the given settings in the
environment, awaited until their health says ready (`speculative.worker.process`)."""

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from speculative.worker.process import LocalProcess, LocalWorker, free_port

REPO_ROOT = Path(__file__).resolve().parents[1]
TINY_GENERATOR = "HuggingFaceTB/SmolLM2-135M-Instruct"
READY_TIMEOUT_SECONDS = 600


@contextmanager
def worker_process(log: Path, model: str = TINY_GENERATOR, **settings: str) -> Iterator[str]:
    """`python -m speculative.worker` with `model` on one CPU thread in fp32, no EAGLE head, no WORKER_TOKEN unless
    `settings` give one; yields its URL once /health says ready."""
    environment = {
        "PYTHONPATH": str(REPO_ROOT),
        "GENERATOR_MODEL": model,
        "EAGLE_HEAD": "",
        "DEVICE": "cpu",
        "DTYPE": "float32",
        "TORCH_THREADS": "1",
        **settings,
    }
    with LocalWorker(environment, log, cwd=REPO_ROOT) as worker:
        worker.wait_until_ready(READY_TIMEOUT_SECONDS)
        yield worker.url


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
    environment = {"PYTHONPATH": str(REPO_ROOT), **settings, "API_HOST": host, "API_PORT": str(port)}
    url = f"http://{host}:{port}"
    with LocalProcess(["-m", "api", "serve"], environment, log, f"{url}/api/health", cwd=REPO_ROOT) as api:
        api.wait_until_ready(READY_TIMEOUT_SECONDS)
        yield url, api.process
