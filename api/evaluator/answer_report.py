"""The answer report's figures and files: the summary of the observations (`api.evaluator.answer_quality`) and
answers.csv, answers.json and answers.html.

The page is for an evaluator in the hospital, in Dutch, readable at 1366 px without sideways scrolling: each share
as a bar with its count, then every question with its verdict in colour and in words (colour is never the only
sign), its key phrase, the quote and the generated answer, the sentences flagged as not found in the sources marked.
"""

import html
import json
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path

import jinja2

from api.csvfile import csv_text
from api.evaluator.answer_quality import AnswerObservation
from api.models import MessageState


class Verdict(StrEnum):
    """What the automatic judgement says of one answer, as the page colours it."""

    RIGHT = "juist"
    MISSES_FACT = "kernfeit ontbreekt"
    REFUSED = "geweigerd"
    RIGHTLY_NOT_FOUND = "terecht niet gevonden"
    ANSWERED_UNANSWERABLE = "beantwoord zonder antwoord in de documenten"
    UNFINISHED = "niet afgemaakt"


GOOD = {Verdict.RIGHT, Verdict.RIGHTLY_NOT_FOUND}
BAD = {Verdict.MISSES_FACT, Verdict.ANSWERED_UNANSWERABLE}


def verdict(observation: AnswerObservation) -> Verdict:
    """The answer's verdict from its state and the key-fact judgement (by meaning, `api.evaluator.key_facts`)."""
    not_found = observation.state == MessageState.not_found
    if observation.state not in (MessageState.answered, MessageState.not_found):
        return Verdict.UNFINISHED
    if not observation.answerable:
        return Verdict.RIGHTLY_NOT_FOUND if not_found else Verdict.ANSWERED_UNANSWERABLE
    if not_found:
        return Verdict.REFUSED
    return Verdict.RIGHT if observation.answer_has_fact else Verdict.MISSES_FACT


@dataclass(frozen=True)
class AnswerSummary:
    questions: int
    answerable_with_key: int
    document_hit_rate: float | None
    passage_key_fact_rate: float | None
    quote_key_fact_rate: float | None
    quote_key_fact_when_passages: float | None
    answer_key_fact_rate: float | None
    sentences: int
    supported_share: float | None
    flagged_share: float | None
    cited_not_answer: int
    warnings: int
    numbers_unchecked: int
    unanswerable: int
    not_found_on_unanswerable: float | None
    not_found_on_answerable: float | None
    looping: int
    median_seconds_to_sources: float | None
    median_seconds_to_quote: float | None
    median_quote_after_sources_ms: float | None
    max_quote_after_sources_ms: float | None
    median_seconds_to_text: float | None


def summarise(observations: Sequence[AnswerObservation]) -> AnswerSummary:
    keyed = [o for o in observations if o.answerable and o.key_phrase]
    findable = [o for o in keyed if o.passages_have_fact]
    located = [o for o in observations if o.answerable and o.document_in_sources is not None]
    answerable = [o for o in observations if o.answerable]
    unanswerable = [o for o in observations if not o.answerable]
    sentences = sum(o.sentences for o in observations)
    gaps = [
        (o.seconds_to_quote - o.seconds_to_sources) * 1000
        for o in observations
        if o.seconds_to_quote is not None and o.seconds_to_sources is not None
    ]
    return AnswerSummary(
        questions=len(observations),
        answerable_with_key=len(keyed),
        document_hit_rate=_share(sum(bool(o.document_in_sources) for o in located), len(located)),
        passage_key_fact_rate=_share(len(findable), len(keyed)),
        quote_key_fact_rate=_share(sum(bool(o.quote_has_fact) for o in keyed), len(keyed)),
        quote_key_fact_when_passages=_share(sum(bool(o.quote_has_fact) for o in findable), len(findable)),
        answer_key_fact_rate=_share(sum(bool(o.answer_has_fact) for o in keyed), len(keyed)),
        sentences=sentences,
        supported_share=_share(sum(o.supported for o in observations), sentences),
        flagged_share=_share(sum(o.flagged for o in observations), sentences),
        cited_not_answer=sum(o.cited_not_answer for o in observations),
        warnings=sum(o.warning for o in observations),
        numbers_unchecked=sum(o.numbers_unchecked for o in observations),
        unanswerable=len(unanswerable),
        not_found_on_unanswerable=_share(
            sum(o.state == MessageState.not_found for o in unanswerable), len(unanswerable)
        ),
        not_found_on_answerable=_share(
            sum(o.state == MessageState.not_found for o in answerable), len(answerable)
        ),
        looping=sum(o.stop_reason == "repetition" for o in observations),
        median_seconds_to_sources=_median([o.seconds_to_sources for o in observations]),
        median_seconds_to_quote=_median([o.seconds_to_quote for o in observations]),
        median_quote_after_sources_ms=_median(gaps),
        max_quote_after_sources_ms=max(gaps, default=None),
        median_seconds_to_text=_median([o.seconds_to_text for o in observations]),
    )


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _median(values: Sequence[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None


LABELS = {
    "questions": "Vragen",
    "answerable_with_key": "Beantwoordbare vragen met kernzin",
    "document_hit_rate": "Juist document bij de getoonde passages (document-Hit@k)",
    "passage_key_fact_rate": "Kernfeit in een van de getoonde passages (fragment-recall)",
    "quote_key_fact_rate": "Citaat bevat het kernfeit",
    "quote_key_fact_when_passages": "Kernfeit in citaat, als een passage het bevat",
    "answer_key_fact_rate": "Gegenereerd antwoord geeft het kernfeit, ook in eigen woorden",
    "sentences": "Gegenereerde zinnen",
    "supported_share": "Zinnen gevonden in de bronnen",
    "flagged_share": "Zinnen gemarkeerd als niet gevonden in de bronnen",
    "cited_not_answer": "Zinnen met bron in antwoorden zonder het kernfeit",
    "warnings": "Antwoorden met waarschuwing",
    "numbers_unchecked": "Getallen zonder bron en zonder markering",
    "unanswerable": "Onbeantwoordbare vragen",
    "not_found_on_unanswerable": "'Niet gevonden' op onbeantwoordbare vragen",
    "not_found_on_answerable": "'Niet gevonden' op beantwoordbare vragen",
    "looping": "Antwoorden afgebroken wegens herhaling",
    "median_seconds_to_sources": "Mediaan tijd tot bronnen (s)",
    "median_seconds_to_quote": "Mediaan tijd tot citaat (s)",
    "median_quote_after_sources_ms": "Mediaan citaat na bronnen (ms)",
    "max_quote_after_sources_ms": "Maximum citaat na bronnen (ms)",
    "median_seconds_to_text": "Mediaan tijd tot eerste tekst (s)",
}
# The shares, and which way is good: a bar is green when high is good, amber when high is bad.
RATES = {
    "document_hit_rate": True,
    "passage_key_fact_rate": True,
    "quote_key_fact_rate": True,
    "quote_key_fact_when_passages": True,
    "answer_key_fact_rate": True,
    "supported_share": True,
    "flagged_share": False,
    "not_found_on_unanswerable": True,
    "not_found_on_answerable": False,
}


def summary_lines(summary: AnswerSummary) -> list[str]:
    return [f"{LABELS[name]}: {_format(name, value)}" for name, value in asdict(summary).items()]


def _format(name: str, value: object) -> str:
    if value is None:
        return "–"
    if name in RATES and isinstance(value, float):
        return f"{value:.0%}"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def write_answer_report(
    title: str, observations: Sequence[AnswerObservation], notes: Sequence[str], out: Path
) -> list[Path]:
    """answers.csv (one row per question), answers.json (summary and rows), answers.html (Dutch, one page)."""
    out.mkdir(parents=True, exist_ok=True)
    summary = summarise(observations)
    rows = [asdict(o) | {"verdict": verdict(o).value} for o in observations]
    paths = [out / "answers.csv", out / "answers.json", out / "answers.html"]
    columns = [name for name in rows[0] if name != "support"] + ["support"] if rows else []
    cells = ({**row, "support": json.dumps(row["support"], ensure_ascii=False)} for row in rows)
    table = csv_text(columns, ([row[name] for name in columns] for row in cells))
    paths[0].write_text(table, encoding="utf-8", newline="")
    payload = {"title": title, "notes": list(notes), "summary": asdict(summary), "questions": rows}
    paths[1].write_text(json.dumps(payload, ensure_ascii=False, indent=2), encoding="utf-8")
    paths[2].write_text(answer_report_html(title, observations, notes), encoding="utf-8")
    return paths


def answer_report_html(title: str, observations: Sequence[AnswerObservation], notes: Sequence[str]) -> str:
    """The report page: the shares as bars, the other figures in a list, then each question with its verdict."""
    summary = asdict(summarise(observations))
    bars = [
        {"label": LABELS[name], "value": value, "text": _format(name, value), "good_high": good_high}
        for name, good_high in RATES.items()
        if (value := summary[name]) is not None
    ]
    figures = [(LABELS[name], _format(name, value)) for name, value in summary.items() if name not in RATES]
    verdicts = [verdict(o) for o in observations]
    counts = {v: verdicts.count(v) for v in Verdict if v in verdicts}
    questions = [
        {"o": o, "verdict": v, "tone": _tone(v), "answer": _marked_answer(o)}
        for o, v in zip(observations, verdicts, strict=True)
    ]
    return _TEMPLATE.render(
        title=title, notes=notes, bars=bars, figures=figures, counts=counts, questions=questions, tone=_tone
    )


def _tone(value: Verdict) -> str:
    return "good" if value in GOOD else "bad" if value in BAD else "neutral"


def _marked_answer(observation: AnswerObservation) -> str:
    """The answer as HTML, each sentence flagged as not found in the sources in a `<mark>` with a title."""
    answer, pieces, position = observation.answer, [], 0
    for sentence in sorted(observation.support, key=lambda s: int(s["start"])):
        start, end = int(sentence["start"]), int(sentence["end"])
        pieces.append(html.escape(answer[position:start]))
        text = html.escape(answer[start:end])
        why = (
            "wijkt af van het citaat" if sentence.get("contradicts_quote") else "niet gevonden in de bronnen"
        )
        pieces.append(f'<mark title="{why}">{text}</mark>' if not sentence["supported"] else text)
        position = end
    pieces.append(html.escape(answer[position:]))
    return "".join(pieces)


_TEMPLATE = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined).from_string(
    """<!doctype html>
<html lang="nl"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Antwoordrapport: {{ title }}</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5rem auto;max-width:78rem;padding:0 1rem;color:#1f2328}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem}
.bars{display:grid;grid-template-columns:minmax(12rem,24rem) 1fr 5rem;gap:.35rem .75rem;align-items:center}
.bar{background:#eef1f4;border-radius:3px;height:1.1rem;overflow:hidden}
.bar span{display:block;height:100%}.bar .high-good{background:#2f7d32}.bar .high-bad{background:#b26a00}
.value{text-align:right;font-variant-numeric:tabular-nums}
dl.figures{display:grid;grid-template-columns:minmax(12rem,24rem) auto;gap:.2rem .75rem}dl.figures dd{margin:0}
table{border-collapse:collapse;width:100%;table-layout:fixed;margin-top:.5rem}
td,th{border:1px solid #d0d7de;padding:.35rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f6f8fa}col.verdict{width:9.5rem}col.question{width:19%}col.key{width:15%}col.quote{width:24%}
col.state{width:6.5rem}
.badge{display:inline-block;padding:.1rem .4rem;border-radius:3px;font-weight:600;font-size:.85rem}
.good{background:#dafbe1;color:#0f5323}.bad{background:#ffe2e0;color:#82071e}.neutral{background:#eaeef2;color:#32383f}
mark{background:#fff1c2;text-decoration:underline wavy #b26a00}
.legend span{margin-right:.75rem}
</style></head><body><main>
<h1>Antwoordrapport: {{ title }}</h1>
{% for note in notes %}<p>{{ note }}</p>{% endfor %}
<h2>Samenvatting</h2>
<div class="bars">
{% for bar in bars %}<span>{{ bar.label }}</span>
<div class="bar" aria-hidden="true"><span class="{{ 'high-good' if bar.good_high else 'high-bad' }}" style="width:{{ '%.1f'|format(bar.value * 100) }}%"></span></div>
<span class="value">{{ bar.text }}</span>
{% endfor %}</div>
<dl class="figures">{% for label, text in figures %}<dt>{{ label }}</dt><dd>{{ text }}</dd>{% endfor %}</dl>
<h2>Oordeel per vraag</h2>
<p class="legend">{% for value, count in counts.items() %}<span><span class="badge {{ tone(value) }}">{{ value }}</span> {{ count }}</span>{% endfor %}</p>
<p>Een <mark>gemarkeerde zin</mark> werd niet teruggevonden in de bronnen.</p>
<table><colgroup><col class="verdict"><col class="question"><col class="key"><col class="quote"><col><col class="state"></colgroup>
<thead><tr><th>Oordeel</th><th>Vraag</th><th>Kernzin</th><th>Citaat</th><th>Gegenereerd antwoord</th><th>Status</th></tr></thead>
<tbody>
{% for q in questions %}<tr><td><span class="badge {{ q.tone }}">{{ q.verdict.value }}</span></td>
<td>{{ q.o.question }}</td><td>{{ q.o.key_phrase or "—" }}</td><td>{{ q.o.quote or "—" }}</td>
<td>{{ q.answer|safe }}</td><td>{{ q.o.state }}</td></tr>
{% endfor %}</tbody></table>
</main></body></html>
"""
)
