"""Evaluation reports belong to the report runner that took them: an API process starting (another replica, a
restart) leaves a live runner's report running, only the reports of runners that are gone are failed, and queued
reports wait while a runner is alive (and are failed, not left waiting, while none is)."""

from datetime import UTC, datetime, timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.evaluator import reports
from api.models import (
    ApiInstance,
    EvaluationReport,
    EvaluationSet,
    ProcessRole,
    ReportKind,
    ReportStatus,
    Role,
)
from ingest.database import get_engine
from tests.api.conftest import add_user

STALE_SECONDS = 30.0  # INSTANCE_STALE_SECONDS unset


def _reports(database_url: str) -> dict[str, int]:
    """A running report on a live runner, one on a runner silent too long, one from before owners were kept."""
    user_id = add_user(database_url, "eva", Role.evaluator)
    now = datetime.now(UTC)
    with Session(get_engine(database_url)) as db:
        alive = now - timedelta(seconds=1)
        db.add(ApiInstance(id="live", started_at=now, heartbeat_at=alive, role=ProcessRole.reports))
        gone = now - timedelta(seconds=STALE_SECONDS + 5)
        db.add(ApiInstance(id="gone", started_at=gone, heartbeat_at=gone, role=ProcessRole.reports))
        labelled = EvaluationSet(
            name="s.csv", content="question\nq\n", questions=1, unresolved=[], created_by=user_id
        )
        db.add(labelled)
        db.flush()
        rows = {
            owner: EvaluationReport(
                set_id=labelled.id, status=ReportStatus.running, metrics={}, files=[], instance_id=owner
            )
            for owner in ("live", "gone", None)
        }
        db.add_all(rows.values())
        db.commit()
        return {str(owner): report.id for owner, report in rows.items()}


def _statuses(database_url: str, ids: dict[str, int]) -> dict[str, str]:
    with Session(get_engine(database_url)) as db:
        return {owner: db.get(EvaluationReport, report_id).status for owner, report_id in ids.items()}  # type: ignore[union-attr]


def test_a_starting_api_process_leaves_a_live_runners_report_running(app: FastAPI, database_url: str) -> None:
    ids = _reports(database_url)

    with TestClient(app):
        pass

    assert _statuses(database_url, ids)["live"] == ReportStatus.running


def test_only_the_reports_of_processes_that_are_gone_are_failed(database_url: str) -> None:
    ids = _reports(database_url)

    failed = reports.fail_orphaned(database_url, STALE_SECONDS)

    assert failed == 2
    assert _statuses(database_url, ids) == {
        "live": ReportStatus.running,
        "gone": ReportStatus.failed,
        "None": ReportStatus.failed,
    }


def _queued(database_url: str, set_id: int, kind: ReportKind = ReportKind.retrieval) -> int:
    with Session(get_engine(database_url)) as db:
        metrics: dict[str, object] = {ReportKind.answers: {}} if kind == ReportKind.answers else {}
        report = EvaluationReport(set_id=set_id, status=ReportStatus.queued, metrics=metrics, files=[])
        db.add(report)
        db.commit()
        return report.id


def _set_of(database_url: str, report_id: int) -> int:
    with Session(get_engine(database_url)) as db:
        return db.get(EvaluationReport, report_id).set_id  # type: ignore[union-attr]


def test_a_runner_takes_the_oldest_queued_report_once_and_is_recorded_as_its_owner(database_url: str) -> None:
    ids = _reports(database_url)
    set_id = _set_of(database_url, ids["live"])
    first, second = _queued(database_url, set_id, ReportKind.answers), _queued(database_url, set_id)

    taken = [reports.claim_next(database_url, runner) for runner in ("live", "other", "third")]

    assert taken == [(first, ReportKind.answers), (second, ReportKind.retrieval), None]
    with Session(get_engine(database_url)) as db:
        rows = [db.get(EvaluationReport, report_id) for report_id in (first, second)]
        assert [(row.status, row.instance_id) for row in rows if row] == [
            (ReportStatus.running, "live"),
            (ReportStatus.running, "other"),
        ]


def test_queued_reports_wait_while_a_runner_is_alive_and_fail_clearly_when_none_is(database_url: str) -> None:
    ids = _reports(database_url)
    waiting = _queued(database_url, _set_of(database_url, ids["live"]))

    reports.fail_orphaned(database_url, STALE_SECONDS)
    still_queued = _statuses(database_url, {"waiting": waiting})["waiting"]
    with Session(get_engine(database_url)) as db:  # the live runner falls silent too
        db.get(ApiInstance, "live").heartbeat_at = datetime.now(UTC) - timedelta(seconds=STALE_SECONDS + 5)  # type: ignore[union-attr]
        db.commit()
    reports.fail_orphaned(database_url, STALE_SECONDS)

    assert still_queued == ReportStatus.queued
    with Session(get_engine(database_url)) as db:
        report = db.get(EvaluationReport, waiting)
        running = db.get(EvaluationReport, ids["live"])
        assert report is not None and running is not None
        assert (report.status, report.error) == (ReportStatus.failed, reports.NOT_STARTED)
        assert (running.status, running.error) == (ReportStatus.failed, reports.RUNNER_GONE)
