"""`make demo`'s launcher (`python -m api.demo`) brings up the whole embedded app (worker, API, report runner)
and Ctrl-C stops all of it, also when a second signal comes while it stops (Ctrl-C pressed twice; `kill` on the
process group of `make demo`, where make passes its SIGTERM on to the launcher as well).

Real processes, real models: the default offline generator in the worker, the default embedder indexing a sample
PDF, the API on SQLite, in a fresh folder as a newcomer's checkout would be. The stop tests index no documents and
signal as soon as the API answers, while the worker still loads its model.
"""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest

from api.deps import CSRF_HEADER
from research.local_process import free_port

REPO_ROOT = Path(__file__).resolve().parents[2]
READY_LINE = "Vraagbaak runs on"
API_READY_LINE = "waiting for the worker"  # printed once the API answers its health check
START_TIMEOUT = 900.0
REPORT_TIMEOUT = 300.0


def _read_until(process: subprocess.Popen[str], marker: str, log: list[str]) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line and process.poll() is not None:
            pytest.fail(f"the launcher exited with {process.returncode}:\n{''.join(log[-40:])}")
        log.append(line)
        if marker in line:
            return
    pytest.fail(f"no {marker!r} after {START_TIMEOUT} s:\n{''.join(log[-40:])}")


def _checkout(folder: Path, documents: list[str]) -> None:
    """`folder` as a fresh checkout's working directory with these sample documents."""
    (folder / "samples" / "documents").mkdir(parents=True)
    for name in documents:
        shutil.copy(REPO_ROOT / "samples" / "documents" / name, folder / "samples" / "documents")


def _demo_command(port: int, worker_port: int) -> list[str]:
    return [sys.executable, "-m", "api.demo", "--port", str(port), "--worker-port", str(worker_port)]


def _launch(folder: Path, command: list[str], new_session: bool = False) -> subprocess.Popen[str]:
    """`command` run in `folder` with the repository's code and models, its output read by the test."""
    environment = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT),
        "MODEL_CACHE": str(Path(os.environ.get("MODEL_CACHE", REPO_ROOT / ".models")).resolve()),
        "HF_HUB_OFFLINE": "1",
        "PYTHONUNBUFFERED": "1",
    }
    return subprocess.Popen(
        command,
        cwd=folder,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=new_session,
    )


def _a_finished_report(url: str, login: httpx.Response) -> dict[str, object]:
    """A retrieval report over one question, queued by the signed-in demo user, once it has finished or failed."""
    with httpx.Client(
        base_url=url, cookies=login.cookies, headers={CSRF_HEADER: login.json()["csrf_token"]}, timeout=10
    ) as demo:
        questions = "question,relevant_documents\nHoe lang handen wrijven?,handhygiene.pdf\n"
        labelled = demo.post("/api/evaluator/sets", files={"file": ("vragen.csv", questions.encode())})
        started = demo.post("/api/evaluator/reports", json={"set_id": labelled.json()["id"]})
        assert started.status_code == 202, started.text
        deadline = time.monotonic() + REPORT_TIMEOUT
        while time.monotonic() < deadline:
            report: dict[str, object] = demo.get(f"/api/evaluator/reports/{started.json()['id']}").json()
            if report["status"] in ("finished", "failed"):
                return report
            time.sleep(1)
    pytest.fail(f"the report did not finish within {REPORT_TIMEOUT} s")


@pytest.mark.slow
def test_the_demo_serves_the_app_and_a_worker_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    _checkout(tmp_path, documents=["handhygiene.pdf"])
    port, worker_port = free_port(), free_port()
    launcher = _launch(tmp_path, _demo_command(port, worker_port))
    log: list[str] = []
    try:
        _read_until(launcher, READY_LINE, log)
        _read_until(launcher, "Log in as", log)
        login_line = log[-1]
        password = (tmp_path / ".data" / "demo-login.txt").read_text().strip()

        api_health = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=10)
        worker_health = httpx.get(f"http://127.0.0.1:{worker_port}/health", timeout=10)
        login = httpx.post(
            f"http://127.0.0.1:{port}/api/auth/login",
            json={"username": "demo", "password": password},
            timeout=10,
        )
        documents = httpx.get(f"http://127.0.0.1:{port}/api/documents", cookies=login.cookies, timeout=10)
        stranger = httpx.post(
            f"http://127.0.0.1:{worker_port}/generate", json={"prompt": "Hallo"}, timeout=10
        )
        report = _a_finished_report(f"http://127.0.0.1:{port}", login)

        assert f"http://127.0.0.1:{port}" in "".join(log)
        assert password in login_line
        assert api_health.status_code == 200
        assert worker_health.json()["status"] == "ready"
        assert set(login.json()["user"]["roles"]) == {"clinician", "admin", "evaluator"}
        assert [document["file_name"] for document in documents.json()] == ["handhygiene.pdf"]
        assert stranger.status_code == 401  # the demo's worker takes requests from its API only
        assert report["status"] == "finished", report  # run by the demo's report runner

        launcher.send_signal(signal.SIGINT)
        assert launcher.wait(timeout=60) == 0
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait()

    for service_port in (port, worker_port):
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"http://127.0.0.1:{service_port}/", timeout=5)


def _running(processes: list[psutil.Process]) -> list[str]:
    """The command lines of those `processes` still running (a zombie has stopped)."""
    alive = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                alive.append(" ".join(process.cmdline()))
        except psutil.NoSuchProcess:
            pass
    return alive


def _kill_left_over(processes: list[psutil.Process]) -> None:
    """Kill those of the test's own `processes` a failed stop left running."""
    for process in processes:
        try:
            if process.is_running():
                process.kill()
        except psutil.NoSuchProcess:
            pass


def _assert_stopped(launched: list[psutil.Process], port: int, log: list[str]) -> None:
    """The moment the launcher has exited, nothing it started runs and its port refuses connections."""
    assert _running(launched) == [], "".join(log[-40:])
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=5)


@pytest.mark.slow
def test_ctrl_c_pressed_again_while_the_demo_stops_still_stops_every_process(tmp_path: Path) -> None:
    _checkout(tmp_path, documents=[])
    port = free_port()
    launcher = _launch(tmp_path, _demo_command(port, free_port()))
    log: list[str] = []
    launched: list[psutil.Process] = []
    try:
        _read_until(launcher, API_READY_LINE, log)
        launched = psutil.Process(launcher.pid).children(recursive=True)

        launcher.send_signal(signal.SIGINT)
        _read_until(launcher, "stopping", log)
        launcher.send_signal(signal.SIGINT)

        assert launcher.wait(timeout=60) == 0, "".join(log[-40:])
        _assert_stopped(launched, port, log)
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait()
        _kill_left_over(launched)


@pytest.mark.slow
def test_sigterm_to_the_process_group_of_make_demo_stops_every_process(tmp_path: Path) -> None:
    """`kill -TERM -<pgid>` on `make demo`: the launcher gets SIGTERM from the kill and again from make."""
    _checkout(tmp_path, documents=[])
    port = free_port()
    (tmp_path / "Makefile").write_text("demo:\n\t$(DEMO)\n", encoding="utf-8")
    demo = " ".join(_demo_command(port, free_port()))
    make = _launch(tmp_path, ["make", "--no-print-directory", "demo", f"DEMO={demo}"], new_session=True)
    log: list[str] = []
    launched: list[psutil.Process] = []
    try:
        _read_until(make, API_READY_LINE, log)
        launched = psutil.Process(make.pid).children(recursive=True)
        launcher = next(process for process in launched if "api.demo" in " ".join(process.cmdline()))

        os.killpg(make.pid, signal.SIGTERM)

        make.wait(timeout=60)
        gone, _ = psutil.wait_procs([launcher], timeout=60)
        assert gone, "the launcher did not exit"
        _assert_stopped([process for process in launched if process != launcher], port, log)
    finally:
        if make.poll() is None:
            make.kill()
            make.wait()
        _kill_left_over(launched)
