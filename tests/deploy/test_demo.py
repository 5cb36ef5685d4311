"""`make demo`'s launcher (`python -m api.demo`) brings up the whole embedded app (worker, API, report runner)
and Ctrl-C stops all of it.

Real processes, real models: the default offline generator in the worker, the default embedder indexing a sample
PDF, the API on SQLite, in a fresh folder as a newcomer's checkout would be.
"""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from api.deps import CSRF_HEADER
from research.local_process import free_port

REPO_ROOT = Path(__file__).resolve().parents[2]
READY_LINE = "Vraagbaak runs on"
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
    (tmp_path / "samples" / "documents").mkdir(parents=True)
    shutil.copy(REPO_ROOT / "samples" / "documents" / "handhygiene.pdf", tmp_path / "samples" / "documents")
    port, worker_port = free_port(), free_port()
    environment = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT),
        "MODEL_CACHE": str(Path(os.environ.get("MODEL_CACHE", REPO_ROOT / ".models")).resolve()),
        "HF_HUB_OFFLINE": "1",
        "PYTHONUNBUFFERED": "1",
    }
    launcher = subprocess.Popen(
        [sys.executable, "-m", "api.demo", "--port", str(port), "--worker-port", str(worker_port)],
        cwd=tmp_path,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
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
