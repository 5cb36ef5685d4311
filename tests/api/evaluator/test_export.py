"""Exports: CSV and JSON carry the same numbers; the HTML page is one file with its figures inside."""

import base64
import csv
import io
import json
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest

from api.evaluator.export import report_html, write_report
from api.evaluator.floor import floor_figure
from api.evaluator.judgement import QueryOutcome
from api.evaluator.plots import cumulative_hits_figure, rank_density_figure
from api.evaluator.report import ConfigurationResult, EvaluationReport


def _outcome(
    query_id: str, document_rank: int | None, chunk_rank: int | None, resolved: bool = True
) -> QueryOutcome:
    return QueryOutcome(
        query_id=query_id,
        question=f"vraag {query_id}",
        answerable=True,
        document_judged=resolved,
        document_rank=document_rank,
        chunk_judged=resolved,
        chunk_rank=chunk_rank,
        unresolved=() if resolved else ("weg.pdf",),
    )


@pytest.fixture(scope="module")
def report() -> EvaluationReport:
    bm25 = ConfigurationResult(
        "bm25",
        {"alpha": "0"},
        (_outcome("1", 1, 2), _outcome("2", None, None), _outcome("3", None, None, False)),
    )
    hybrid = ConfigurationResult(
        "hybrid",
        {"alpha": "0.7"},
        (_outcome("1", 2, 2), _outcome("2", 4, 9), _outcome("3", None, None, False)),
    )
    return EvaluationReport("COVID-QA (English)", (bm25, hybrid), notes=("python -m research.evaluate …",))


@pytest.fixture(scope="module")
def out_dir(report: EvaluationReport, tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("report")
    written = write_report(report, directory)
    assert sorted(path.name for path in written) == [
        "queries.csv",
        "report.html",
        "report.json",
        "summary.csv",
        "summary.md",
    ]
    return directory


def test_summary_csv_has_one_row_per_configuration_and_level(out_dir: Path) -> None:
    rows = list(csv.DictReader(io.StringIO((out_dir / "summary.csv").read_text())))

    assert [(row["configuration"], row["level"]) for row in rows] == [
        ("bm25", "document"),
        ("hybrid", "document"),
        ("bm25", "chunk"),
        ("hybrid", "chunk"),
    ]
    hybrid_document = rows[1]
    assert (hybrid_document["questions"], hybrid_document["excluded_unresolved"]) == ("2", "1")
    assert float(hybrid_document["MRR"]) == pytest.approx((1 / 2 + 1 / 4) / 2, abs=1e-4)
    assert float(hybrid_document["Hit@3"]) == 0.5


def test_queries_csv_marks_misses_and_unjudged_questions_apart(out_dir: Path) -> None:
    rows = list(csv.DictReader(io.StringIO((out_dir / "queries.csv").read_text())))
    bm25 = {row["query_id"]: row for row in rows if row["configuration"] == "bm25"}

    assert (bm25["1"]["document_rank"], bm25["2"]["document_rank"], bm25["3"]["document_rank"]) == (
        "1",
        ">50",
        "",
    )
    assert bm25["3"]["unresolved"] == "weg.pdf"


def test_json_holds_summaries_winners_and_every_rank(out_dir: Path) -> None:
    document = json.loads((out_dir / "report.json").read_text())

    assert document["winners"]["document"]["MRR"] == ["bm25"]  # 1/2 against (1/2 + 1/4) / 2
    assert document["winners"]["document"]["Hit@5"] == ["hybrid"]
    assert document["winners"]["chunk"]["Hit@1"] == ["bm25", "hybrid"]
    bm25 = document["configurations"][0]
    assert bm25["summaries"]["document"]["questions"] == 2
    assert bm25["excluded_unresolved"] == 1
    assert [query["document_rank"] for query in bm25["queries"]] == [1, None, None]


def test_markdown_table_puts_each_metrics_winner_in_bold(out_dir: Path) -> None:
    markdown = (out_dir / "summary.md").read_text()

    assert "| bm25 | 2 | 1 | **0.500** | **0.500** | 0.500 |" in markdown
    assert "| hybrid | 2 | 1 | 0.000 | **0.500** | **1.000** |" in markdown


class _Resources(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if tag == "img" and name == "src":
                self.images.append(value or "")
            elif name in {"src", "href"}:
                self.external.append(value or "")


def test_html_page_is_self_contained_with_both_rank_figures_per_level_and_the_floor_figure(
    out_dir: Path,
) -> None:
    page = (out_dir / "report.html").read_text()
    resources = _Resources()
    resources.feed(page)

    assert resources.external == []
    assert len(resources.images) == 2 * 2 + 1
    for source in resources.images:
        prefix, data = source.split(",", 1)
        assert prefix == "data:image/png;base64"
        assert base64.b64decode(data).startswith(b"\x89PNG")
    assert "COVID-QA (English)" in page
    assert "weg.pdf" in page


def test_report_csvs_make_formulas_inert_and_keep_numbers(tmp_path: Path) -> None:
    formula = '=HYPERLINK("https://kwaad.example","Klik")'
    outcome = QueryOutcome(
        query_id="-1+1",
        question=formula,
        answerable=True,
        document_judged=True,
        document_rank=1,
        chunk_judged=True,
        chunk_rank=1,
        unresolved=(),
    )
    write_report(EvaluationReport("t", (ConfigurationResult("+bm25", {}, (outcome,)),)), tmp_path)

    (row,) = csv.DictReader(io.StringIO((tmp_path / "queries.csv").read_text()))
    summary = list(csv.DictReader(io.StringIO((tmp_path / "summary.csv").read_text())))

    assert (row["question"], row["query_id"], row["configuration"]) == ("'" + formula, "'-1+1", "'+bm25")
    assert {line["configuration"] for line in summary} == {"'+bm25"}
    assert float(summary[0]["MRR"]) == 1.0


def test_the_html_page_speaks_dutch_names_its_question_set_and_date_and_explains_the_metrics(
    report: EvaluationReport,
) -> None:
    page = report_html(report, created=datetime(2026, 11, 25, 21, 40))
    text = " ".join(page.split())

    assert '<html lang="nl">' in page
    assert "<h1>Evaluatierapport: COVID-QA (English)</h1>" in page
    assert "Vragenset: <strong>COVID-QA (English)</strong> · gemaakt op 25 november 2026, 21:40" in text
    for heading in (
        "Hoe lees je dit rapport?",
        "Configuraties",
        "Op documentniveau",
        "Onbekende documenten (bm25)",
    ):
        assert f">{heading}</h2>" in page, heading
    assert "<strong>Hit@k</strong>: het aandeel van de vragen" in text
    assert "<strong>MRR</strong> (gemiddelde omgekeerde rang)" in text
    assert "1 vraag telt niet mee" in text
    for english in ("Configurations", "Per question", "Relevance floor", "Unresolved references", "Winners"):
        assert english not in page, english


def test_the_rank_and_score_figures_are_labelled_in_dutch(report: EvaluationReport) -> None:
    density = rank_density_figure(report.results, "document")
    cumulative = cumulative_hits_figure(report.results, "chunk")
    floor = floor_figure(report.results[0].outcomes, "Scores")

    assert density.axes[0].get_title() == "Verdeling van de rang van het eerste juiste resultaat"
    assert density.axes[0].get_xlabel() == "rang van het eerste relevante document (niet gevonden = 50)"
    assert cumulative.axes[0].get_title() == "Cumulatief: een relevant resultaat bij de eerste k"
    assert [axes.get_xlabel() for axes in floor.axes] == ["gecombineerde score", "cosinusgelijkenis (dense)"]
    assert [axes.get_ylabel() for axes in floor.axes] == ["dichtheid", "dichtheid"]
