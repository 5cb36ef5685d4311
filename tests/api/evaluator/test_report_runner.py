"""Evaluation reports run in the report runner (`python -m api reports`), a process of its own, never in the API
process that serves requests: the API only queues them. A runner that dies in the middle of a report leaves it
failed with a clear message, not running for ever. Real processes on SQLite and PostgreSQL."""

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from api.chat.instances import THIS_INSTANCE
from api.evaluator.reports import RUNNER_GONE
from api.models import ApiInstance, EvaluationReport, ReportStatus, Role
from api.settings import ApiSettings
from ingest.database import get_engine
from ingest.jobs import JobSummary
from ingest.settings import IngestSettings
from research.loopback import report_runner_process
from tests.api.conftest import REPO_ROOT, SignIn, finished_report, idle_report_runner

QUESTIONS = REPO_ROOT / "samples" / "questions.csv"
HEARTBEAT_SECONDS, STALE_SECONDS = 1.0, 6.0  # short, so a dead runner is noticed within seconds
START_TIMEOUT_SECONDS = 300


@pytest.fixture
def api_settings(api_settings: ApiSettings) -> ApiSettings:
    """The suite's API settings (`tests/api/conftest.py`) with this file's own."""
    return api_settings.model_copy(
        update={"instance_heartbeat_seconds": HEARTBEAT_SECONDS, "instance_stale_seconds": STALE_SECONDS}
    )


def _this_host(pid: int) -> str:
    return f"{socket.gethostname()}:{pid}"


@contextmanager
def runner_process(
    api_settings: ApiSettings, ingest_settings: IngestSettings, folder: Path
) -> Iterator[subprocess.Popen[bytes]]:
    """`python -m api reports` over the test's database, index and report folder, once it is registered."""
    with report_runner_process(
        folder / "report-runner.log",
        DATABASE_URL=api_settings.database_url,
        REPORT_DIR=str(api_settings.report_dir),
        INSTANCE_HEARTBEAT_SECONDS=str(HEARTBEAT_SECONDS),
        INSTANCE_STALE_SECONDS=str(STALE_SECONDS),
        INDEX_DIR=str(ingest_settings.index_dir),
        CONVERTED_DIR=str(ingest_settings.converted_dir),
        EMBEDDING_MODEL=ingest_settings.embedding_model,
        MODEL_CACHE=str(ingest_settings.model_cache),
        HF_HUB_OFFLINE="1",
    ) as runner:
        yield runner


def _process_of(database_url: str, instance_id: str | None) -> str | None:
    with Session(get_engine(database_url)) as db:
        return db.scalar(select(ApiInstance.process).where(ApiInstance.id == instance_id))


def _report(database_url: str, report_id: int) -> EvaluationReport:
    with Session(get_engine(database_url)) as db:
        report = db.get(EvaluationReport, report_id)
        assert report is not None
        return report


def _queue(eva: TestClient, content: bytes) -> int:
    labelled = eva.post("/api/evaluator/sets", files={"file": ("vragen.csv", content, "text/csv")})
    assert labelled.status_code == 201, labelled.text
    started = eva.post("/api/evaluator/reports", json={"set_id": labelled.json()["id"]})
    assert started.status_code == 202, started.text
    assert started.json()["status"] == "queued"
    report_id: int = started.json()["id"]
    return report_id


@pytest.mark.slow
def test_a_report_runs_to_the_end_in_the_report_runner_process_not_in_the_api(
    sign_in: SignIn,
    client: TestClient,
    ingested: JobSummary,
    api_settings: ApiSettings,
    ingest_settings: IngestSettings,
    tmp_path: Path,
) -> None:
    eva = sign_in("eva", Role.evaluator)

    with runner_process(api_settings, ingest_settings, tmp_path) as runner:
        report_id = _queue(eva, QUESTIONS.read_bytes())
        report = finished_report(eva, report_id, START_TIMEOUT_SECONDS)
        ran_in = _process_of(
            api_settings.database_url, _report(api_settings.database_url, report_id).instance_id
        )
        api_process = _process_of(api_settings.database_url, THIS_INSTANCE)

    assert report["status"] == "finished", report["error"]
    assert report["files"]
    assert ran_in == _this_host(runner.pid)
    assert api_process == _this_host(os.getpid()) != ran_in


def test_the_api_only_queues_a_report_and_runs_none_itself(
    sign_in: SignIn, client: TestClient, api_settings: ApiSettings
) -> None:
    eva = sign_in("eva", Role.evaluator)
    idle_report_runner(api_settings.database_url)  # a runner is alive, but takes nothing

    report_id = _queue(eva, QUESTIONS.read_bytes())
    time.sleep(3 * HEARTBEAT_SECONDS)  # the API beats meanwhile; a report run here would have started at once
    report = _report(api_settings.database_url, report_id)

    assert (report.status, report.progress, report.instance_id) == (ReportStatus.queued, 0.0, None)
    assert not (api_settings.report_dir / str(report_id)).exists()


@pytest.mark.slow
def test_a_runner_that_dies_in_the_middle_of_a_report_leaves_it_failed_with_a_clear_message(
    sign_in: SignIn,
    client: TestClient,
    api_settings: ApiSettings,
    ingest_settings: IngestSettings,
    tmp_path: Path,
) -> None:
    eva = sign_in("eva", Role.evaluator)
    many = "question,relevant_documents\n" + "".join(
        f"vraag {n} over handen?,handhygiene.pdf\n" for n in range(500)
    )

    with runner_process(api_settings, ingest_settings, tmp_path) as runner:
        report_id = _queue(eva, many.encode())
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while _report(api_settings.database_url, report_id).status == ReportStatus.queued:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        runner.send_signal(signal.SIGKILL)  # out of memory, its container gone
        runner.wait()
        taken_by = _process_of(
            api_settings.database_url, _report(api_settings.database_url, report_id).instance_id
        )
        report = finished_report(eva, report_id, 10 * STALE_SECONDS)  # the API's heartbeat closes it

    assert taken_by == _this_host(runner.pid)
    assert (report["status"], report["error"]) == ("failed", RUNNER_GONE)
