"""The generation worker, the web API and the report runner as their own processes on loopback, for the load benchmark, the offline
answer report and the tests that need real processes: free ports, started with the given settings in the
environment, awaited until their health says ready (`research.local_process`)."""

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.models import ApiInstance, ProcessRole
from ingest.database import get_engine
from research.local_process import LocalProcess, LocalWorker, free_port

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


@contextmanager
def report_runner_process(log: Path, **settings: str) -> Iterator[subprocess.Popen[bytes]]:
    """`python -m api reports` (the evaluation reports' runner) over `settings`' DATABASE_URL; yields the process
    once it has registered itself in that database, so the API takes reports from then on."""
    environment = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **settings}
    with log.open("wb") as output:
        runner = subprocess.Popen(
            [sys.executable, "-m", "api", "reports"],
            cwd=REPO_ROOT,
            env=environment,
            stdout=output,
            stderr=output,
        )
    try:
        _wait_until_registered(settings["DATABASE_URL"], runner, log)
        yield runner
    finally:
        runner.terminate()
        try:
            runner.wait(timeout=30)
        except subprocess.TimeoutExpired:
            runner.kill()
            runner.wait()


def _wait_until_registered(database_url: str, runner: subprocess.Popen[bytes], log: Path) -> None:
    process = f"{socket.gethostname()}:{runner.pid}"
    query = select(ApiInstance.id).where(
        ApiInstance.role == ProcessRole.reports, ApiInstance.process == process
    )
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    while True:
        with Session(get_engine(database_url)) as db:
            if db.scalars(query).first() is not None:
                return
        if runner.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the report runner did not start: {log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.2)
