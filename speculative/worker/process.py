"""A worker in a child process on a free loopback port: what the benchmark measures over HTTP and the tests drive."""

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType

import httpx


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalWorker:
    """`python -m speculative.worker` with `settings` (environment variables) layered over this environment; no
    WORKER_TOKEN unless `settings` gives one (the worker listens on loopback only)."""

    def __init__(self, settings: Mapping[str, str], log_path: Path, cwd: Path | None = None) -> None:
        self.port = free_port()
        self.log_path = log_path
        self.url = f"http://127.0.0.1:{self.port}"
        environment = (
            os.environ
            | {"WORKER_HOST": "127.0.0.1", "WORKER_PORT": str(self.port), "WORKER_TOKEN": ""}
            | dict(settings)
        )
        self._log = log_path.open("wb")
        self._process = subprocess.Popen(
            [sys.executable, "-m", "speculative.worker"],
            cwd=cwd,
            env=environment,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def wait_until_ready(
        self, timeout: float, while_loading: Callable[[httpx.Response], None] = lambda response: None
    ) -> None:
        """Poll `/health` until ready; `while_loading` sees every answer before that (loading or failed)."""
        deadline = time.monotonic() + timeout
        with httpx.Client(base_url=self.url, timeout=30) as client:
            while time.monotonic() < deadline:
                if self._process.poll() is not None:
                    raise RuntimeError(
                        f"the worker exited with {self._process.returncode}: {self.log_tail()}"
                    )
                try:
                    health = client.get("/health")
                except httpx.TransportError:
                    time.sleep(0.05)
                    continue
                if health.status_code == 200:
                    return
                while_loading(health)
                time.sleep(0.05)
        raise RuntimeError(f"the worker was not ready within {timeout:.0f} s: {self.log_tail()}")

    def log_tail(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")[-3000:]

    def stop(self) -> None:
        self._process.terminate()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._log.close()

    def __enter__(self) -> "LocalWorker":
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()
