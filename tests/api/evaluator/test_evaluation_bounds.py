"""Evaluation sets and reports are bounded like the chat: at most MAX_SET_QUESTIONS questions of at most the chat's
4,000 characters each, one active report per evaluator, at most REPORT_QUEUE_LIMIT reports waiting in all, and
none queued while no report runner is alive to run it."""

import pytest
from fastapi.testclient import TestClient
from httpx import Response
from sqlalchemy.orm import Session

from api.evaluator.reports import MAX_SET_QUESTIONS, NO_RUNNER, QUEUE_FULL
from api.models import EvaluationReport, ReportStatus, Role
from api.schemas import MAX_QUESTION_CHARS
from api.services import users
from api.settings import ApiSettings
from ingest.database import get_engine
from tests.api.conftest import SignIn, idle_report_runner

QUEUE_LIMIT = 2
ONE_QUESTION = "question,relevant_documents\nHoe lang wrijven?,handhygiene.pdf\n"


@pytest.fixture
def api_settings(api_settings: ApiSettings) -> ApiSettings:
    """The suite's API settings (`tests/api/conftest.py`) with this file's own."""
    return api_settings.model_copy(update={"report_queue_limit": QUEUE_LIMIT})


def _upload(client: TestClient, content: str) -> Response:
    return client.post("/api/evaluator/sets", files={"file": ("vragen.csv", content.encode(), "text/csv")})


def test_a_set_with_too_many_questions_is_refused(sign_in: SignIn) -> None:
    eva = sign_in("eva", Role.evaluator)
    rows = "".join(f"vraag {number}?,doc.pdf\n" for number in range(MAX_SET_QUESTIONS + 1))

    refused = _upload(eva, "question,relevant_documents\n" + rows)

    assert refused.status_code == 422
    assert f"meer dan {MAX_SET_QUESTIONS} vragen" in refused.json()["detail"]
    assert eva.get("/api/evaluator/sets").json() == []


def test_a_question_longer_than_the_chat_allows_is_refused_with_its_line(sign_in: SignIn) -> None:
    eva = sign_in("eva", Role.evaluator)

    refused = _upload(
        eva, f"question,relevant_documents\nkort?,doc.pdf\n{'x' * (MAX_QUESTION_CHARS + 1)},doc.pdf\n"
    )

    assert refused.status_code == 422
    assert "regel 3" in refused.json()["detail"] and "4000 tekens" in refused.json()["detail"]


def test_an_evaluator_has_one_active_report_at_a_time(sign_in: SignIn, api_settings: ApiSettings) -> None:
    eva, other = sign_in("eva", Role.evaluator), sign_in("otto", Role.evaluator)
    labelled = _upload(eva, ONE_QUESTION).json()
    idle_report_runner(api_settings.database_url)
    with Session(get_engine(api_settings.database_url)) as db:  # a report of eva's still running
        eva_id = users.require_user(db, "eva").id
        db.add(
            EvaluationReport(
                set_id=labelled["id"], status=ReportStatus.running, metrics={}, files=[], created_by=eva_id
            )
        )
        db.commit()

    second = eva.post("/api/evaluator/reports", json={"set_id": labelled["id"]})
    others = other.post("/api/evaluator/reports", json={"set_id": labelled["id"]})

    assert second.status_code == 409
    assert "al een rapport" in second.json()["detail"]
    assert others.status_code == 202


def test_no_more_reports_wait_than_the_queue_limit(sign_in: SignIn, api_settings: ApiSettings) -> None:
    evaluators = [sign_in(f"eva{number}", Role.evaluator) for number in range(QUEUE_LIMIT + 1)]
    labelled = _upload(evaluators[0], ONE_QUESTION).json()
    idle_report_runner(api_settings.database_url)  # alive, but takes nothing: every report stays queued

    answers = [eva.post("/api/evaluator/reports", json={"set_id": labelled["id"]}) for eva in evaluators]

    assert [answer.status_code for answer in answers] == [202] * QUEUE_LIMIT + [503]
    assert answers[-1].json()["detail"] == QUEUE_FULL.format(queued=QUEUE_LIMIT)
    assert len(evaluators[0].get("/api/evaluator/reports").json()) == QUEUE_LIMIT


def test_a_report_is_refused_while_no_report_runner_is_alive(sign_in: SignIn) -> None:
    eva = sign_in("eva", Role.evaluator)
    labelled = _upload(eva, ONE_QUESTION).json()

    refused = eva.post("/api/evaluator/reports", json={"set_id": labelled["id"]})

    assert (refused.status_code, refused.json()["detail"]) == (503, NO_RUNNER)
    assert eva.get("/api/evaluator/reports").json() == []
