"""Evaluation reports belong to the API process that runs them: a new process starting (another replica, a
restart) leaves a live replica's report running, and only the reports of processes that are gone are failed."""

from datetime import UTC, datetime, timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.chat.instances import THIS_INSTANCE
from api.models import ApiInstance, EvaluationReport, EvaluationSet, ReportStatus, Role, User
from api.services import evaluation
from ingest.database import get_engine
from tests.api.conftest import add_user

STALE_SECONDS = 30.0  # INSTANCE_STALE_SECONDS unset


def _reports(database_url: str) -> dict[str, int]:
    """A running report on a live replica, one on a process silent too long, one from before owners were kept."""
    user_id = add_user(database_url, "eva", Role.evaluator)
    now = datetime.now(UTC)
    with Session(get_engine(database_url)) as db:
        db.add(ApiInstance(id="live", started_at=now, heartbeat_at=now - timedelta(seconds=1)))
        gone = now - timedelta(seconds=STALE_SECONDS + 5)
        db.add(ApiInstance(id="gone", started_at=gone, heartbeat_at=gone))
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


def test_a_starting_api_process_leaves_a_live_replicas_report_running(
    app: FastAPI, database_url: str
) -> None:
    ids = _reports(database_url)

    with TestClient(app):
        pass

    assert _statuses(database_url, ids)["live"] == ReportStatus.running


def test_only_the_reports_of_processes_that_are_gone_are_failed(database_url: str) -> None:
    ids = _reports(database_url)

    failed = evaluation.fail_orphaned(database_url, STALE_SECONDS)

    assert failed == 2
    assert _statuses(database_url, ids) == {
        "live": ReportStatus.running,
        "gone": ReportStatus.failed,
        "None": ReportStatus.failed,
    }


def test_a_queued_report_records_the_process_that_runs_it(database_url: str) -> None:
    ids = _reports(database_url)
    with Session(get_engine(database_url)) as db:
        set_id = db.get(EvaluationReport, ids["live"]).set_id  # type: ignore[union-attr]
        eva = db.get(EvaluationSet, set_id).created_by  # type: ignore[union-attr]
        user = db.get(User, eva)
        assert user is not None
        report = evaluation.queue_report(db, user, set_id)

    assert report.instance_id == THIS_INSTANCE
