"""The answer report from the evaluator's page: each question of the set asked through the chat's own steps (the
app's retriever, a worker with the tiny model), its figures and its Dutch CSV/JSON/HTML; evaluators only."""

import csv
import io
import json

from api.chat.runtime import ChatRuntime
from api.evaluator.reports import NO_KEY_PHRASES
from api.models import Role
from api.settings import ApiSettings
from ingest.settings import IngestSettings
from tests.api.chat.conftest import stored_messages
from tests.api.conftest import SignIn, finished_report, running_reports

ANSWERABLE = "Hoe lang moet ik mijn handen wrijven met handalcohol?"
UNANSWERABLE = "Wat is de hoofdstad van Frankrijk?"  # far from every sample procedure: below the dense gate
SET = (
    f"question,relevant_documents,answer\n{ANSWERABLE},handhygiene.pdf,20 tot 30 seconden\n{UNANSWERABLE},,\n"
)
REPORT_TIMEOUT_SECONDS = 600


def test_an_evaluator_runs_an_answer_report_through_the_chat_and_downloads_it_in_dutch(
    chat_runtime: ChatRuntime, sign_in: SignIn, api_settings: ApiSettings, ingest_settings: IngestSettings
) -> None:
    eva = sign_in("eva", Role.evaluator)
    labelled = eva.post(
        "/api/evaluator/sets", files={"file": ("antwoorden.csv", SET.encode(), "text/csv")}
    ).json()

    with running_reports(api_settings, ingest_settings, chat_runtime):
        started = eva.post("/api/evaluator/reports", json={"set_id": labelled["id"], "kind": "answers"})
        assert started.status_code == 202, started.text
        assert started.json()["kind"] == "answers"
        report = finished_report(eva, started.json()["id"], REPORT_TIMEOUT_SECONDS)

    assert report["status"] == "finished", report["error"]
    assert report["kind"] == "answers"
    figures = report["metrics"]["answers"]
    assert (figures["questions"], figures["answerable_with_key"], figures["unanswerable"]) == (2, 1, 1)
    assert "document_hit_rate" not in figures  # no document is in this database: unresolved, not a miss
    assert figures["passage_key_fact_rate"] == 1.0  # and one of them holds "20 tot 30 seconden"
    assert figures["quote_key_fact_rate"] == 1.0  # "3. Wrijf de handen 20 tot 30 seconden in …"
    assert figures["quote_key_fact_when_passages"] == 1.0
    assert figures["not_found_on_unanswerable"] == 1.0
    assert figures["numbers_unchecked"] == 0
    assert figures["median_quote_after_sources_ms"] <= 200
    assert sorted(report["files"]) == ["answers.csv", "answers.html", "answers.json"]
    files = f"/api/evaluator/reports/{report['id']}/files"
    rows = list(csv.DictReader(io.StringIO(eva.get(f"{files}/answers.csv").text)))
    assert [row["question"] for row in rows] == [ANSWERABLE, UNANSWERABLE]
    assert rows[0]["quote"] and rows[1]["state"] == "not_found"
    assert (rows[0]["document_in_sources"], rows[0]["passages_have_fact"]) == ("", "True")
    assert json.loads(eva.get(f"{files}/answers.json").content)["summary"]["questions"] == 2
    page = eva.get(f"{files}/answers.html").text
    assert '<html lang="nl">' in page and "Citaat bevat het kernfeit" in page
    assert "Kernfeit in een van de getoonde passages (fragment-recall)" in page
    assert [r["kind"] for r in eva.get("/api/evaluator/reports").json()] == ["answers"]
    assert stored_messages(api_settings) == []  # the report's questions stay out of every real history


def test_an_answer_report_needs_key_phrases_and_an_evaluator(sign_in: SignIn) -> None:
    eva = sign_in("eva", Role.evaluator)
    ann = sign_in("ann", Role.clinician)
    without = eva.post(
        "/api/evaluator/sets",
        files={
            "file": ("zonder.csv", f"question,relevant_documents\n{ANSWERABLE},handhygiene.pdf\n".encode())
        },
    ).json()

    refused = eva.post("/api/evaluator/reports", json={"set_id": without["id"], "kind": "answers"})
    forbidden = ann.post("/api/evaluator/reports", json={"set_id": without["id"], "kind": "answers"})
    unknown_kind = eva.post("/api/evaluator/reports", json={"set_id": without["id"], "kind": "grades"})

    assert (refused.status_code, refused.json()["detail"]) == (422, NO_KEY_PHRASES)
    assert forbidden.status_code == 403
    assert unknown_kind.status_code == 422
    assert eva.get("/api/evaluator/reports").json() == []
