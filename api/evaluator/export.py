"""Writing a report as CSV (for spreadsheets), JSON (for the evaluator endpoints), Markdown (for docs/) and one
self-contained HTML page (tables and figures inline, so it can be mailed or archived as a single file)."""

import json
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

import jinja2

from api.csvfile import csv_text
from api.evaluator.floor import (
    DUTCH_GROUPS,
    DUTCH_MEASURE_LABELS,
    GROUPS,
    MEASURE_LABELS,
    MEASURES,
    Distribution,
    distributions,
    floor_figure,
)
from api.evaluator.metrics import DEPTH, Summary
from api.evaluator.plots import LEVEL_NOUNS, cumulative_hits_figure, png_data_uri, rank_density_figure
from api.evaluator.report import EvaluationReport, hybrid_against_legs

SUMMARY_CSV = "summary.csv"
QUERIES_CSV = "queries.csv"
REPORT_JSON = "report.json"
REPORT_HTML = "report.html"
SUMMARY_MARKDOWN = "summary.md"
LEVEL_HEADINGS = {"document": "Op documentniveau", "chunk": "Op fragmentniveau"}
MONTHS = (
    "januari",
    "februari",
    "maart",
    "april",
    "mei",
    "juni",
    "juli",
    "augustus",
    "september",
    "oktober",
    "november",
    "december",
)


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
    """Per question and configuration: ranks (empty = not judged at that level, `>50` = not found), and how many
    of the first 3 passages repeat one before them."""
    rows = [
        {
            "configuration": result.name,
            "query_id": outcome.query_id,
            "question": outcome.question,
            "document_rank": _rank_cell(outcome.document_judged, outcome.document_rank),
            "chunk_rank": _rank_cell(outcome.chunk_judged, outcome.chunk_rank),
            "top3_repeats": outcome.top_repeats,
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


def floor_rows(report: EvaluationReport, *, dutch: bool = False) -> list[dict[str, str]]:
    """Per configuration and measure: each group's 10th / 50th / 90th percentile and its size."""
    labels = DUTCH_MEASURE_LABELS if dutch else MEASURE_LABELS
    return [
        {"configuration": result.name, "measure": labels[measure]}
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


def report_html(report: EvaluationReport, created: datetime | None = None) -> str:
    """The report page, in Dutch (evaluators in the hospital read it), naming its question set and date."""
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
        floor_figure(reference.outcomes, f"Scores van de eerste resultaten: {reference.name}")
    )
    return _TEMPLATE.render(
        report=report,
        created=dutch_date(created or datetime.now().astimezone()),
        levels=levels,
        level_headings=LEVEL_HEADINGS,
        level_nouns=LEVEL_NOUNS,
        figures=figures,
        floor_plot=floor_plot,
        floor_rows=floor_rows(report, dutch=True),
        groups=[DUTCH_GROUPS[group] for group in GROUPS],
        rows=summary_rows(report),
        winners={level: report.winners(level) for level in levels},
        legs={level: hybrid_against_legs(report, level, dutch=True) for level in levels},
        depth=DEPTH,
    )


def dutch_date(moment: datetime) -> str:
    """ "25 november 2026, 21:40": how the report page names its date."""
    return f"{moment.day} {MONTHS[moment.month - 1]} {moment.year}, {moment:%H:%M}"


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
<html lang="nl"><head><meta charset="utf-8"><title>Evaluatierapport: {{ report.title }}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #ccc;padding:.25rem .5rem}
td.n{text-align:right;font-variant-numeric:tabular-nums}.win{font-weight:bold;background:#e6f4ea}
figure{display:inline-block;margin:0 1rem 1rem 0}img{max-width:100%}caption{text-align:left;font-weight:bold}
.scroll{overflow-x:auto}.uitleg{background:#f3f6fa;border-left:4px solid #0b5cad;padding:.5rem 1rem}
</style></head><body><main>
<h1>Evaluatierapport: {{ report.title }}</h1>
<p>Vragenset: <strong>{{ report.title }}</strong> · gemaakt op {{ created }}</p>
{% for note in report.notes %}<p>{{ note }}</p>{% endfor %}
<section class="uitleg"><h2>Hoe lees je dit rapport?</h2>
<p>Voor elke vraag zoekt de zoekmachine de best passende stukken tekst. De <strong>rang</strong> is de plaats van het
eerste resultaat uit een juist document: rang 1 betekent dat het juiste document bovenaan stond.</p>
<ul><li><strong>Hit@k</strong>: het aandeel van de vragen waarbij een juist document bij de eerste k resultaten stond.
Hit@3 = 0,80 betekent: bij 8 op de 10 vragen stond een juist document in de top 3 (de chat toont er 3).</li>
<li><strong>MRR</strong> (gemiddelde omgekeerde rang): 1 gedeeld door de rang, gemiddeld over de vragen. Rang 1 telt
als 1, rang 2 als 0,5, rang 3 als 0,33; niet gevonden bij de eerste {{ depth }} telt als 0. Hoe dichter bij 1, hoe
beter.</li></ul>
<p>Hoger is beter voor beide. Vragen waarvan geen enkel genoemd document in de index staat, tellen niet mee.</p>
</section>
<h2>Configuraties</h2>
<div class="scroll" role="region" tabindex="0" aria-label="Configuraties"><table><tr><th>naam</th><th>instellingen</th><th>niet meegeteld (onbekende documenten)</th>
<th>zonder antwoord in de documenten</th></tr>
{% for result in report.results %}<tr><td>{{ result.name }}</td>
<td>{% for key, value in result.settings.items() %}{{ key }}={{ value }}{% if not loop.last %}, {% endif %}{% endfor %}</td>
<td class="n">{{ result.unresolved_questions }}</td><td class="n">{{ result.unanswerable_questions }}</td></tr>
{% endfor %}
</table></div>
{% for level in levels %}
<h2>{{ level_headings[level] }}</h2>
<div class="scroll" role="region" tabindex="0" aria-label="{{ level_headings[level] }}"><table><tr><th>configuratie</th><th>vragen</th>{% for metric in winners[level] %}<th>{{ metric }}</th>
{% endfor %}</tr>
{% for row in rows if row.level == level %}<tr><td>{{ row.configuration }}</td><td class="n">{{ row.questions }}</td>
{% for metric, best in winners[level].items() %}<td class="n{% if row.configuration in best %} win{% endif %}">
{{ "%.3f"|format(row[metric]) if row[metric] is not none else "—" }}</td>{% endfor %}</tr>{% endfor %}
</table></div>
{% if legs[level] %}<ul>{% for finding in legs[level] %}<li>{{ finding }}</li>{% endfor %}</ul>{% endif %}
<p>Beste per maat: {% for metric, best in winners[level].items() %}{{ metric }}: {{ best|join(", ") }}{% if not loop.last %};
{% endif %}{% endfor %}.</p>
<figure><img alt="Verdeling van de rang van het eerste relevante {{ level_nouns[level] }}" src="{{ figures[level][0] }}">
<figcaption>Verdeling van de rang van het eerste relevante {{ level_nouns[level] }}: hoe meer links, hoe beter.
</figcaption></figure>
<figure><img alt="Hit@k tegen k, {{ level_headings[level]|lower }}" src="{{ figures[level][1] }}">
<figcaption>Cumulatief: Hit@k tegen k.</figcaption></figure>
{% endfor %}
<h2>Drempel voor "niet gevonden"</h2>
<p>Scores van de eerste drie resultaten van vragen met een antwoord, apart voor resultaten uit een juist en uit een
ander document, en van het beste resultaat van vragen waarop geen document antwoordt. Ligt er een grens tussen die
groepen, dan kan de chat met die drempel "niet gevonden" zeggen. De gecombineerde score wordt per vraag geschaald (het
beste resultaat krijgt 1); daarom staat ook de cosinusgelijkenis van de dense zoekmethode erbij.</p>
<figure><img alt="Verdeling van de scores van relevante en niet-relevante resultaten" src="{{ floor_plot }}"></figure>
<div class="scroll" role="region" tabindex="0" aria-label="Drempel voor niet gevonden"><table><tr><th>configuratie</th><th>maat</th>{% for group in groups %}<th>{{ group }}<br>p10 / p50 / p90
(n)</th>{% endfor %}</tr>
{% for row in floor_rows %}<tr>{% for value in row.values() %}<td>{{ value }}</td>{% endfor %}</tr>{% endfor %}
</table></div>
{% for result in report.results if result.unresolved_references %}
<h2>Onbekende documenten ({{ result.name }})</h2>
<p>{{ result.unresolved_questions }} {{ "vraag telt" if result.unresolved_questions == 1 else "vragen tellen" }} niet
mee; deze verwijzingen passen bij geen enkel document in de index:</p>
<ul>{% for reference in result.unresolved_references %}<li>{{ reference }}</li>{% endfor %}</ul>
{% endfor %}
<h2>Per vraag</h2>
<details><summary>Rang van het eerste relevante document per configuratie (&gt;{{ depth }} = niet gevonden, leeg = niet
beoordeeld)</summary>
<div class="scroll" role="region" tabindex="0" aria-label="Per vraag"><table><tr><th>id</th><th>vraag</th>{% for result in report.results %}<th>{{ result.name }}</th>
{% endfor %}</tr>
{% for outcome in report.results[0].outcomes %}{% set row = loop.index0 %}<tr><td>{{ outcome.query_id }}</td>
<td>{{ outcome.question }}</td>{% for result in report.results %}{% set o = result.outcomes[row] %}<td class="n">
{% if o.document_judged %}{{ o.document_rank if o.document_rank is not none else ">" ~ depth }}{% endif %}</td>
{% endfor %}</tr>{% endfor %}
</table></div></details>
</main></body></html>
"""
)
