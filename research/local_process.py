"""A service in a child process on a free loopback port, awaited until its health says ready: the worker that the
benchmarks measure over HTTP, the GPU check streams from and the tests drive, and (through `research.loopback`)
the web API of the load benchmark and the end-to-end tests."""

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class LocalProcess:
    """`python ARGUMENTS` with `settings` (environment variables) layered over this environment, its output in
    `log_path`; `health_url` answers 200 once it is ready."""

    def __init__(
        self,
        arguments: Sequence[str],
        settings: Mapping[str, str],
        log_path: Path,
        health_url: str,
        cwd: Path | None = None,
    ) -> None:
        self.log_path = log_path
        self.health_url = health_url
        self._log = log_path.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, *arguments],
            cwd=cwd,
            env=os.environ | dict(settings),
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def wait_until_ready(
        self, timeout: float, while_loading: Callable[[httpx.Response], None] = lambda response: None
    ) -> None:
        """Poll the health URL until it answers 200; `while_loading` sees every answer before that (loading or
        failed). The process exiting first, or `timeout` seconds passing, raises with the log's tail."""
        deadline = time.monotonic() + timeout
        with httpx.Client(timeout=30) as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(
                        f"{self.health_url}: the process exited with {self.process.returncode}: {self.log_tail()}"
                    )
                try:
                    health = client.get(self.health_url)
                except httpx.TransportError:
                    time.sleep(0.05)
                    continue
                if health.status_code == 200:
                    return
                while_loading(health)
                time.sleep(0.05)
        raise RuntimeError(f"{self.health_url}: not ready within {timeout:.0f} s: {self.log_tail()}")

    def log_tail(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")[-3000:]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()


class LocalWorker(LocalProcess):
    """`python -m speculative.worker` with `settings` over this environment on a free loopback port; no
    WORKER_TOKEN unless `settings` gives one (the worker listens on loopback only)."""

    def __init__(self, settings: Mapping[str, str], log_path: Path, cwd: Path | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        defaults = {"WORKER_HOST": "127.0.0.1", "WORKER_PORT": str(self.port), "WORKER_TOKEN": ""}
        super().__init__(
            ["-m", "speculative.worker"], defaults | dict(settings), log_path, f"{self.url}/health", cwd
        )
