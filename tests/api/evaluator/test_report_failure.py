"""A report that fails tells the evaluator so in Dutch and sends the details (exception, paths) to the log only."""

import logging
import time
from pathlib import Path

import pytest

from api.models import Role
from api.report_runner import ReportRunner
from api.settings import ApiSettings
from ingest.settings import IngestSettings
from tests.api.conftest import REPO_ROOT, SignIn, finished_report, running_reports

QUESTIONS = REPO_ROOT / "samples" / "questions.csv"


@pytest.fixture
def api_settings(database_url: str, tmp_path: Path) -> ApiSettings:
    """Reports cannot be written: their folder is a file."""
    blocked = tmp_path / "reports-is-a-file"
    blocked.write_text("not a folder")
    return ApiSettings(
        database_url=database_url,
        upload_dir=tmp_path / "uploads",
        report_dir=blocked,
        frontend_dir=tmp_path / "no-frontend",
        run_ingestion_jobs=False,
    )


def test_a_failed_report_shows_a_dutch_message_and_logs_the_exception(
    sign_in: SignIn, api_settings: ApiSettings, report_runner: ReportRunner, caplog: pytest.LogCaptureFixture
) -> None:
    eva = sign_in("eva", Role.evaluator)
    labelled = eva.post(
        "/api/evaluator/sets", files={"file": ("vragen.csv", QUESTIONS.read_bytes(), "text/csv")}
    )
    assert labelled.status_code == 201, labelled.text

    with caplog.at_level(logging.ERROR, logger="api.evaluator.reports"):
        started = eva.post("/api/evaluator/reports", json={"set_id": labelled.json()["id"]}).json()
        deadline = time.monotonic() + 300
        while (report := eva.get(f"/api/evaluator/reports/{started['id']}").json())["status"] not in (
            "finished",
            "failed",
        ):
            assert time.monotonic() < deadline
            time.sleep(0.5)

    assert report["status"] == "failed"
    assert report["error"].startswith("Het rapport kon niet gemaakt worden")
    assert str(api_settings.report_dir) not in report["error"] and "Error" not in report["error"]
    assert str(api_settings.report_dir) in caplog.text  # the details are in the log


def test_a_report_whose_index_cannot_be_opened_fails_instead_of_staying_running(
    sign_in: SignIn,
    api_settings: ApiSettings,
    ingest_settings: IngestSettings,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    blocked = tmp_path / "index-is-a-file"
    blocked.write_text("not a folder")
    eva = sign_in("eva", Role.evaluator)
    labelled = eva.post(
        "/api/evaluator/sets", files={"file": ("vragen.csv", QUESTIONS.read_bytes(), "text/csv")}
    ).json()

    with (
        caplog.at_level(logging.ERROR, logger="api.evaluator.reports"),
        running_reports(api_settings, ingest_settings.model_copy(update={"index_dir": blocked})),
    ):
        started = eva.post("/api/evaluator/reports", json={"set_id": labelled["id"]}).json()
        report = finished_report(eva, started["id"], 60)

    assert report["status"] == "failed"
    assert report["error"].startswith("Het rapport kon niet gemaakt worden")
    assert str(blocked) in caplog.text  # the index, opened before any file is written, is what failed
