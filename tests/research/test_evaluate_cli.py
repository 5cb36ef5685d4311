"""`python -m research.evaluate` end to end: real chunking, embedding (MiniLM) and the embedded hybrid index."""

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from modelstore.registry import ALL_MINILM_L6_V2 as MINILM
from research.evaluate import main

FILLER = "This paragraph is about something else entirely and repeats general words to fill the page. " * 12
ARTICLES = {
    101: "Ventilation in intensive care\n\n" + FILLER + "\n\nProne positioning improves oxygenation in ARDS.",
    102: "Vaccine storage\n\nThe mRNA vaccine must be stored frozen at minus seventy degrees.",
    103: "Hand hygiene\n\nAlcohol rub kills most bacteria within thirty seconds of rubbing.",
}
QUESTIONS = [
    (101, "Which positioning improves oxygenation in ARDS?", "Prone positioning improves oxygenation"),
    (102, "At what temperature must the mRNA vaccine be stored?", "minus seventy degrees"),
    (103, "How quickly does alcohol rub kill bacteria?", "within thirty seconds"),
]
CONFIGS = [f"bm25=alpha=0,embedder={MINILM}", f"hybrid=alpha=0.7,chunk=400/80,embedder={MINILM}"]


def _covid_qa_file(folder: Path) -> Path:
    data = []
    for document_id, context in ARTICLES.items():
        qas = [
            {"id": f"q{document_id}", "question": question, "answers": [{"text": answer, "answer_start": 0}]}
            for owner, question, answer in QUESTIONS
            if owner == document_id
        ]
        data.append({"paragraphs": [{"document_id": document_id, "context": context, "qas": qas}]})
    path = folder / "covid.json"
    path.write_text(json.dumps({"data": data}))
    return path


def _run(arguments: list[str], out: Path) -> dict[str, Any]:
    assert main([*arguments, "--out", str(out)]) == 0
    report: dict[str, Any] = json.loads((out / "report.json").read_text())
    return report


@pytest.mark.usefixtures("offline_models")
def test_a_public_set_is_scored_per_configuration_at_document_and_chunk_level(tmp_path: Path) -> None:
    arguments = ["--queries", str(_covid_qa_file(tmp_path)), "--dataset", "covid-qa"]
    report = _run(
        [*arguments, *(item for config in CONFIGS for item in ("--config", config))], tmp_path / "out"
    )

    bm25, hybrid = report["configurations"]
    assert (bm25["name"], hybrid["settings"]["chunk"]) == ("bm25", "400/80")
    for configuration in (bm25, hybrid):
        assert configuration["summaries"]["document"]["Hit@1"] == 1.0
        assert configuration["summaries"]["chunk"]["questions"] == 3
    ranks = {query["query_id"]: query["chunk_rank"] for query in hybrid["queries"]}
    assert ranks["q101"] == 1  # the answer sits in the last of several 400-character chunks of article 101
    assert set(report["winners"]) == {"document", "chunk"}
    assert (tmp_path / "out" / "report.html").read_text().count("data:image/png;base64,") == 5


def _pdf(path: Path, title: str, lines: list[str]) -> None:
    page = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    page.setTitle(title)
    for number, line in enumerate([title, "", *lines]):
        page.drawString(72, 780 - 16 * number, line)
    page.save()


@pytest.mark.usefixtures("offline_models")
def test_hospital_csv_over_pdfs_excludes_unresolved_documents_and_counts_unanswerable_questions(
    tmp_path: Path,
) -> None:
    documents = tmp_path / "documents"
    documents.mkdir()
    _pdf(
        documents / "handhygiene.pdf", "Handhygiene", ["Wrijf de handen 20 tot 30 seconden met handalcohol."]
    )
    _pdf(documents / "bloedafname.pdf", "Veneuze bloedafname", ["Laat de stuwband maximaal 1 minuut zitten."])
    questions = tmp_path / "validatie.csv"
    questions.write_text(
        "question,relevant_documents\n"
        "hoe lang handalcohol wrijven,handhygiene.pdf\n"
        "stuwband hoe lang,Veneuze bloedafname\n"
        "isolatie bij mazelen,\n"
        "dosis vancomycine,vancomycine.pdf\n"
    )

    report = _run(
        ["--queries", str(questions), "--documents", str(documents), "--config", CONFIGS[0]], tmp_path / "out"
    )

    (bm25,) = report["configurations"]
    document_level = bm25["summaries"]["document"]
    assert (document_level["questions"], document_level["Hit@1"]) == (2, 1.0)
    assert (bm25["excluded_unresolved"], bm25["unanswerable_questions"]) == (1, 1)
    assert bm25["unresolved_references"] == ["vancomycine.pdf"]
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "queries.csv").read_text())))
    assert [row["document_rank"] for row in rows] == ["1", "1", "", ""]


def test_a_malformed_csv_stops_before_any_indexing_with_its_line_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = tmp_path / "kapot.csv"
    questions.write_text('question,relevant_documents\ngoed,a.pdf\n"open quote,b.pdf\n')

    with pytest.raises(SystemExit) as raised:
        main(["--queries", str(questions), "--documents", str(tmp_path), "--out", str(tmp_path / "out")])

    assert raised.value.code == 2
    assert "kapot.csv, regel 3: ongeldige CSV" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--config", "x=alpha=2"], "less than or equal to 1"),
        (["--config", "a=alpha=0", "--config", "a=alpha=1"], "two configurations are named 'a'"),
        ([], "need --documents DIR"),
    ],
)
def test_bad_arguments_are_refused_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    questions = tmp_path / "vragen.csv"
    questions.write_text("question,relevant_documents\ngoed,a.pdf\n")

    with pytest.raises(SystemExit):
        main(["--queries", str(questions), "--out", str(tmp_path / "out"), *arguments])

    assert message in capsys.readouterr().err
