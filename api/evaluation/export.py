"""Writing a report as CSV (for spreadsheets), JSON (for the evaluator endpoints), Markdown (for docs/) and one
self-contained HTML page (tables and figures inline, so it can be mailed or archived as a single file)."""

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import jinja2

from api.csvfile import csv_text
from api.evaluation.floor import GROUPS, MEASURE_LABELS, MEASURES, Distribution, distributions, floor_figure
from api.evaluation.metrics import DEPTH, Summary
from api.evaluation.plots import cumulative_hits_figure, png_data_uri, rank_density_figure
from api.evaluation.report import EvaluationReport, hybrid_against_legs

SUMMARY_CSV = "summary.csv"
QUERIES_CSV = "queries.csv"
REPORT_JSON = "report.json"
REPORT_HTML = "report.html"
SUMMARY_MARKDOWN = "summary.md"


def write_report(report: EvaluationReport, out_dir: Path) -> list[Path]:
    """Write every export into `out_dir` (created if needed) and return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    writers = {
        SUMMARY_CSV: summary_csv,
        QUERIES_CSV: queries_csv,
        REPORT_JSON: report_json,
        SUMMARY_MARKDOWN: summary_markdown,
        REPORT_HTML: report_html,
    }
    paths = []
    for file_name, render in writers.items():
        path = out_dir / file_name
        path.write_text(render(report), encoding="utf-8")
        paths.append(path)
    return paths


def summary_rows(report: EvaluationReport) -> list[dict[str, Any]]:
    """One row per configuration and level: how many questions counted, how many were excluded, the metrics."""
    rows = []
    for level in report.levels():
        for result in report.results:
            summary = result.summary(level)
            row: dict[str, Any] = {
                "configuration": result.name,
                "level": level,
                "questions": summary.questions if summary else 0,
                "excluded_unresolved": result.unresolved_questions,
            }
            rows.append(row | _rounded(summary))
    return rows


def summary_csv(report: EvaluationReport) -> str:
    return _csv(summary_rows(report))


def queries_csv(report: EvaluationReport) -> str:
    """Per question and configuration: ranks (empty = not judged at that level, `>50` = not found)."""
    rows = [
        {
            "configuration": result.name,
            "query_id": outcome.query_id,
            "question": outcome.question,
            "document_rank": _rank_cell(outcome.document_judged, outcome.document_rank),
            "chunk_rank": _rank_cell(outcome.chunk_judged, outcome.chunk_rank),
            "unresolved": "; ".join(outcome.unresolved),
        }
        for result in report.results
        for outcome in result.outcomes
    ]
    return _csv(rows)


def report_json(report: EvaluationReport) -> str:
    document = {
        "title": report.title,
        "notes": list(report.notes),
        "depth": DEPTH,
        "winners": {level: report.winners(level) for level in report.levels()},
        "configurations": [
            {
                "name": result.name,
                "settings": result.settings,
                "excluded_unresolved": result.unresolved_questions,
                "unresolved_references": result.unresolved_references,
                "summaries": {level: _summary_json(result.summary(level)) for level in report.levels()},
                "unanswerable_questions": result.unanswerable_questions,
                "floor": {
                    measure: {
                        group: asdict(value)
                        for group, value in distributions(result.outcomes, measure).items()
                    }
                    for measure in MEASURES
                },
                "queries": [asdict(outcome) for outcome in result.outcomes],
            }
            for result in report.results
        ],
    }
    return json.dumps(document, ensure_ascii=False, indent=1)


def summary_markdown(report: EvaluationReport) -> str:
    """One table per level, each metric's winner in bold, ready to paste into docs/evaluation.md."""
    sections = []
    for level in report.levels():
        winners = report.winners(level)
        rows = [row for row in summary_rows(report) if row["level"] == level]
        metrics = list(winners)
        lines = [
            f"**{level.capitalize()} level**",
            "",
            "| configuration | questions | excluded | " + " | ".join(metrics) + " |",
            "|---|---:|---:|" + "---:|" * len(metrics),
        ]
        for row in rows:
            cells = [
                _bold_if(f"{row[m]:.3f}" if row[m] is not None else "—", row["configuration"] in winners[m])
                for m in metrics
            ]
            lines.append(
                f"| {row['configuration']} | {row['questions']} | {row['excluded_unresolved']} | "
                + " | ".join(cells)
                + " |"
            )
        lines += ["", *(f"- {finding}" for finding in hybrid_against_legs(report, level))]
        sections.append("\n".join(lines).rstrip())
    sections.append(floor_markdown(report))
    return "\n\n".join(sections) + "\n"


def floor_rows(report: EvaluationReport) -> list[dict[str, str]]:
    """Per configuration and measure: each group's 10th / 50th / 90th percentile and its size."""
    return [
        {"configuration": result.name, "measure": MEASURE_LABELS[measure]}
        | {
            group: _distribution_cell(value)
            for group, value in distributions(result.outcomes, measure).items()
        }
        for result in report.results
        for measure in MEASURES
    ]


def floor_markdown(report: EvaluationReport) -> str:
    lines = [
        "**Relevance floor: score percentiles p10 / p50 / p90 (n)**",
        "",
        "| configuration | measure | " + " | ".join(GROUPS) + " |",
        "|---|---|" + "---|" * len(GROUPS),
    ]
    lines += ["| " + " | ".join(row.values()) + " |" for row in floor_rows(report)]
    return "\n".join(lines)


def report_html(report: EvaluationReport) -> str:
    levels = report.levels()
    figures = {
        level: (
            png_data_uri(rank_density_figure(report.results, level)),
            png_data_uri(cumulative_hits_figure(report.results, level)),
        )
        for level in levels
    }
    reference = report.reference_result()
    floor_plot = png_data_uri(
        floor_figure(reference.outcomes, f"Scores of the first results: {reference.name}")
    )
    return _TEMPLATE.render(
        report=report,
        levels=levels,
        figures=figures,
        floor_plot=floor_plot,
        floor_rows=floor_rows(report),
        groups=GROUPS,
        rows=summary_rows(report),
        winners={level: report.winners(level) for level in levels},
        legs={level: hybrid_against_legs(report, level) for level in levels},
        depth=DEPTH,
    )


def _summary_json(summary: Summary | None) -> dict[str, Any] | None:
    return None if summary is None else {"questions": summary.questions, **summary.metrics()}


def _rounded(summary: Summary | None) -> dict[str, float | None]:
    if summary is None:
        return {}
    return {metric: round(value, 4) for metric, value in summary.metrics().items()}


def _distribution_cell(distribution: Distribution) -> str:
    if distribution.quantiles is None:
        return "—"
    return " / ".join(f"{value:.2f}" for value in distribution.quantiles) + f" ({distribution.count})"


def _rank_cell(judged: bool, rank: int | None) -> str:
    if not judged:
        return ""
    return f">{DEPTH}" if rank is None else str(rank)


def _bold_if(text: str, condition: bool) -> str:
    return f"**{text}**" if condition else text


def _csv(rows: Sequence[dict[str, Any]]) -> str:
    if not rows:
        return ""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    return csv_text(columns, ([row.get(column, "") for column in columns] for row in rows))


_TEMPLATE = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined).from_string(
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ report.title }}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:70rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #ccc;padding:.25rem .5rem}
td.n{text-align:right;font-variant-numeric:tabular-nums}.win{font-weight:bold;background:#e6f4ea}
figure{display:inline-block;margin:0 1rem 1rem 0}img{max-width:100%}caption{text-align:left;font-weight:bold}
</style></head><body>
<h1>{{ report.title }}</h1>
{% for note in report.notes %}<p>{{ note }}</p>{% endfor %}
<h2>Configurations</h2>
<table><tr><th>name</th><th>settings</th><th>excluded (unresolved)</th><th>unanswerable</th></tr>
{% for result in report.results %}<tr><td>{{ result.name }}</td>
<td>{% for key, value in result.settings.items() %}{{ key }}={{ value }}{% if not loop.last %}, {% endif %}{% endfor %}</td>
<td class="n">{{ result.unresolved_questions }}</td><td class="n">{{ result.unanswerable_questions }}</td></tr>
{% endfor %}
</table>
<p>Rank = position of the first relevant result in the returned order; not within {{ depth }} = reciprocal rank 0,
plotted at {{ depth }}. Questions whose relevant documents match nothing in the index are excluded from the averages.</p>
{% for level in levels %}
<h2>{{ level|capitalize }} level</h2>
<table><tr><th>configuration</th><th>questions</th>{% for metric in winners[level] %}<th>{{ metric }}</th>{% endfor %}</tr>
{% for row in rows if row.level == level %}<tr><td>{{ row.configuration }}</td><td class="n">{{ row.questions }}</td>
{% for metric, best in winners[level].items() %}<td class="n{% if row.configuration in best %} win{% endif %}">
{{ "%.3f"|format(row[metric]) if row[metric] is not none else "—" }}</td>{% endfor %}</tr>{% endfor %}
</table>
{% if legs[level] %}<ul>{% for finding in legs[level] %}<li>{{ finding }}</li>{% endfor %}</ul>{% endif %}
<p>Winners: {% for metric, best in winners[level].items() %}{{ metric }}: {{ best|join(", ") }}{% if not loop.last %};
{% endif %}{% endfor %}.</p>
<figure><img alt="density of the rank of the first relevant {{ level }}" src="{{ figures[level][0] }}">
<figcaption>Distribution of the rank of the first relevant {{ level }}.</figcaption></figure>
<figure><img alt="Hit@k against k at {{ level }} level" src="{{ figures[level][1] }}">
<figcaption>Cumulative: Hit@k against k.</figcaption></figure>
{% endfor %}
<h2>Relevance floor</h2>
<p>Scores of the first three results of answerable questions, split by whether their document is relevant, and of
the best result of questions no document answers: a floor between the groups lets the chat say "not found".
Fused scores are min-max scaled per question (the best hit of each leg gets 1), so the dense leg's raw cosine
similarity is shown too.</p>
<figure><img alt="score distributions of relevant and irrelevant results" src="{{ floor_plot }}"></figure>
<table><tr><th>configuration</th><th>measure</th>{% for group in groups %}<th>{{ group }}<br>p10 / p50 / p90 (n)</th>
{% endfor %}</tr>
{% for row in floor_rows %}<tr>{% for value in row.values() %}<td>{{ value }}</td>{% endfor %}</tr>{% endfor %}
</table>
{% for result in report.results if result.unresolved_references %}
<h2>Unresolved references ({{ result.name }})</h2>
<p>{{ result.unresolved_questions }} question(s) excluded; these references match no indexed document:</p>
<ul>{% for reference in result.unresolved_references %}<li>{{ reference }}</li>{% endfor %}</ul>
{% endfor %}
<h2>Per question</h2>
<details><summary>Rank of the first relevant document per configuration (&gt;{{ depth }} = not found, empty = not
judged)</summary>
<table><tr><th>id</th><th>question</th>{% for result in report.results %}<th>{{ result.name }}</th>{% endfor %}</tr>
{% for outcome in report.results[0].outcomes %}{% set row = loop.index0 %}<tr><td>{{ outcome.query_id }}</td>
<td>{{ outcome.question }}</td>{% for result in report.results %}{% set o = result.outcomes[row] %}<td class="n">
{% if o.document_judged %}{{ o.document_rank if o.document_rank is not none else ">" ~ depth }}{% endif %}</td>
{% endfor %}</tr>{% endfor %}
</table></details>
</body></html>
"""
)
