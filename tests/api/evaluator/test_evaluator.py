"""The evaluator's job: upload a labelled CSV, run a report over the indexed documents, download its files."""

import csv
import io
import json

from api.models import Role
from api.report_runner import ReportRunner
from ingest.jobs import JobSummary
from tests.api.conftest import REPO_ROOT, SignIn, finished_report

QUESTIONS = REPO_ROOT / "samples" / "questions.csv"
REPORT_TIMEOUT_SECONDS = 300


def test_upload_a_set_run_a_report_and_download_its_files(
    sign_in: SignIn, ingested: JobSummary, report_runner: ReportRunner
) -> None:
    eva = sign_in("eva", Role.evaluator)
    content = QUESTIONS.read_bytes() + b"Hoe lang handen wassen?,niet-bestaand.pdf,\n"

    uploaded = eva.post("/api/evaluator/sets", files={"file": ("vragen.csv", content, "text/csv")})
    assert uploaded.status_code == 201, uploaded.text
    labelled = uploaded.json()
    questions = sum(1 for _ in csv.DictReader(io.StringIO(content.decode())))
    assert labelled["questions"] == questions
    assert labelled["unresolved"] == ["niet-bestaand.pdf"]
    assert [s["id"] for s in eva.get("/api/evaluator/sets").json()] == [labelled["id"]]

    started = eva.post("/api/evaluator/reports", json={"set_id": labelled["id"]})
    assert started.status_code == 202
    report = finished_report(eva, started.json()["id"], REPORT_TIMEOUT_SECONDS)

    assert report["status"] == "finished", report["error"]
    metrics = report["metrics"]
    assert isinstance(metrics, dict)
    assert 0.0 < metrics["document"]["Hit@3"] <= 1.0
    assert set(report["files"]) >= {
        "summary.csv",
        "queries.csv",
        "report.json",
        "report.html",
        "rank-density-document.png",
    }  # type: ignore[arg-type]
    files = f"/api/evaluator/reports/{report['id']}/files"
    as_json = json.loads(eva.get(f"{files}/report.json").content)
    assert as_json["title"] == "vragen.csv"
    assert eva.get(f"{files}/rank-density-document.png").content.startswith(b"\x89PNG")
    assert "<html" in eva.get(f"{files}/report.html").text.lower()
    for name in ("..%2F..%2Fvraagbaak.db", "%2Fetc%2Fpasswd", "notes.txt"):
        assert eva.get(f"{files}/{name}").status_code == 404, name


def test_a_malformed_csv_is_refused_with_its_line_number(sign_in: SignIn) -> None:
    eva = sign_in("eva", Role.evaluator)
    broken = "question,relevant_documents\nwaar spuiten?,insuline.pdf\n,bloedafname.pdf\n"

    response = eva.post("/api/evaluator/sets", files={"file": ("kapot.csv", broken.encode(), "text/csv")})

    assert response.status_code == 422
    assert "regel 3" in response.json()["detail"]
    assert eva.get("/api/evaluator/sets").json() == []
    assert eva.post("/api/evaluator/reports", json={"set_id": 12345}).status_code == 404


def test_a_semicolon_separated_set_from_dutch_excel_is_accepted_and_errors_are_dutch(sign_in: SignIn) -> None:
    eva = sign_in("eva", Role.evaluator)
    excel = '\ufeffquestion;relevant_documents\r\nWaar spuiten, en hoe?;"insuline.pdf;bloedafname.pdf"\r\n'

    uploaded = eva.post("/api/evaluator/sets", files={"file": ("excel.csv", excel.encode(), "text/csv")})
    refused = eva.post(
        "/api/evaluator/sets", files={"file": ("fout.csv", b"vraag;documenten\nA;B\n", "text/csv")}
    )

    assert uploaded.status_code == 201, uploaded.text
    assert (uploaded.json()["questions"], uploaded.json()["unresolved"]) == (
        1,
        ["bloedafname.pdf", "insuline.pdf"],
    )
    assert refused.status_code == 422
    assert refused.json()["detail"].startswith(
        "fout.csv, regel 1: de kopregel moet 'question,relevant_documents' zijn"
    )
