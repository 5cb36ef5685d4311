"""Evaluation sets and reports are bounded like the chat: at most MAX_SET_QUESTIONS questions of at most the chat's
4,000 characters each, and one active report per evaluator."""

from fastapi.testclient import TestClient
from httpx import Response
from sqlalchemy.orm import Session

from api.models import EvaluationReport, ReportStatus, Role
from api.schemas import MAX_QUESTION_CHARS
from api.services import users
from api.services.evaluation import MAX_SET_QUESTIONS
from api.settings import ApiSettings
from ingest.database import get_engine
from tests.api.conftest import SignIn


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
    labelled = _upload(eva, "question,relevant_documents\nHoe lang wrijven?,handhygiene.pdf\n").json()
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
