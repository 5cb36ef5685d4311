"""The evaluator's routes: feedback exports, labelled question sets, evaluation reports."""

from typing import Annotated, Any

from fastapi import APIRouter, File, UploadFile, status
from fastapi.responses import FileResponse, Response

from api.deps import EvaluatorUser, RowId, SessionDep, SettingsDep
from api.evaluator import reports
from api.schemas import EvaluationSetOut, ReportCreate, ReportOut
from api.services import feedback

router = APIRouter(prefix="/api/evaluator", tags=["evaluator"])

CSV_RESPONSE: dict[int | str, dict[str, Any]] = {200: {"content": {"text/csv": {}}}}


def _csv(content: str, filename: str) -> Response:
    return Response(
        content,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@router.get("/feedback.csv", response_class=Response, responses=CSV_RESPONSE)
def feedback_export(_user: EvaluatorUser, db: SessionDep) -> Response:
    """Every judged answer: one row per document shown, with both document questions and "antwoord gevonden?"."""
    return _csv(feedback.feedback_csv(db), "feedback.csv")


@router.get("/feedback-set.csv", response_class=Response, responses=CSV_RESPONSE)
def feedback_set_export(_user: EvaluatorUser, db: SessionDep) -> Response:
    """The feedback as an evaluation set for `python -m research.evaluate` (marked documents are the relevant ones)."""
    return _csv(feedback.feedback_set_csv(db), "feedback-set.csv")


@router.post("/sets", status_code=status.HTTP_201_CREATED, responses={422: {"description": "malformed CSV"}})
def upload_set(
    file: Annotated[
        UploadFile, File(description="CSV with the columns question,relevant_documents (and id).")
    ],
    user: EvaluatorUser,
    db: SessionDep,
) -> EvaluationSetOut:
    row = reports.upload_set(
        db, user, file.filename or "vragen.csv", file.file.read(reports.MAX_SET_BYTES + 1)
    )
    db.commit()
    return EvaluationSetOut.model_validate(row)


@router.get("/sets")
def list_sets(_user: EvaluatorUser, db: SessionDep) -> list[EvaluationSetOut]:
    return [EvaluationSetOut.model_validate(row) for row in reports.list_sets(db)]


@router.post(
    "/reports",
    status_code=status.HTTP_202_ACCEPTED,
    responses={
        409: {"description": "this evaluator has a report queued or running"},
        503: {"description": "no report runner is alive, or REPORT_QUEUE_LIMIT reports wait already"},
    },
)
def start_report(body: ReportCreate, user: EvaluatorUser, db: SessionDep, settings: SettingsDep) -> ReportOut:
    """Queue a report over the set for the report runner; poll `GET /api/evaluator/reports/{id}` until it is
    finished or failed."""
    report = reports.queue_report(
        db,
        user,
        body.set_id,
        body.kind,
        queue_limit=settings.report_queue_limit,
        stale_seconds=settings.instance_stale_seconds,
    )
    db.commit()
    return ReportOut.model_validate(report)


@router.get("/reports")
def list_reports(_user: EvaluatorUser, db: SessionDep) -> list[ReportOut]:
    return [ReportOut.model_validate(row) for row in reports.list_reports(db)]


@router.get("/reports/{report_id}")
def get_report(report_id: RowId, _user: EvaluatorUser, db: SessionDep) -> ReportOut:
    return ReportOut.model_validate(reports.get_report(db, report_id))


@router.get(
    "/reports/{report_id}/files/{name}",
    response_class=FileResponse,
    responses={200: {"content": {"text/csv": {}, "application/json": {}, "text/html": {}, "image/png": {}}}},
)
def report_file(
    report_id: RowId, name: str, _user: EvaluatorUser, db: SessionDep, settings: SettingsDep
) -> FileResponse:
    """One of the report's files, by a name from its `files` list."""
    return FileResponse(reports.report_file(db, settings.report_dir, report_id, name), filename=name)
