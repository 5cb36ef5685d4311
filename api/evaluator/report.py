"""Configurations side by side: their averages per level, what was left out, and the winner of each metric."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from api.evaluator.judgement import QueryOutcome
from api.evaluator.metrics import Summary, summarise

Level = Literal["document", "chunk"]
LEVELS: tuple[Level, ...] = ("document", "chunk")


def judged_ranks(outcomes: Sequence[QueryOutcome], level: Level) -> list[int | None]:
    """Ranks of the questions that could be judged at this level (the others are excluded, not misses)."""
    if level == "document":
        return [outcome.document_rank for outcome in outcomes if outcome.document_judged]
    return [outcome.chunk_rank for outcome in outcomes if outcome.chunk_judged]


@dataclass(frozen=True)
class ConfigurationResult:
    """One configuration's per-question outcomes and the settings that produced them."""

    name: str
    settings: dict[str, str]
    outcomes: tuple[QueryOutcome, ...]

    def summary(self, level: Level) -> Summary | None:
        return summarise(judged_ranks(self.outcomes, level))

    @property
    def unresolved_questions(self) -> int:
        """Questions left out of the averages because none of their documents is in the index."""
        return sum(1 for outcome in self.outcomes if outcome.answerable and not outcome.document_judged)

    @property
    def unanswerable_questions(self) -> int:
        """Questions no document answers: they test the relevance floor, not the ranking."""
        return sum(1 for outcome in self.outcomes if not outcome.answerable)

    @property
    def unresolved_references(self) -> list[str]:
        return sorted({reference for outcome in self.outcomes for reference in outcome.unresolved})


@dataclass(frozen=True)
class EvaluationReport:
    """What one run of the evaluator produced; `notes` say what the numbers are for (data, language, command)."""

    title: str
    results: tuple[ConfigurationResult, ...]
    notes: tuple[str, ...] = field(default=())
    reference: str | None = None

    def reference_result(self) -> ConfigurationResult:
        """The configuration the relevance-floor figure is drawn for: the named one, else the first."""
        return next((result for result in self.results if result.name == self.reference), self.results[0])

    def levels(self) -> list[Level]:
        """The levels that hold numbers: chunk level only when some question has chunk labels."""
        return [level for level in LEVELS if any(result.summary(level) for result in self.results)]

    def winners(self, level: Level) -> dict[str, tuple[str, ...]]:
        """Metric → the configuration(s) with the best value; equal values share the win."""
        summaries = {result.name: result.summary(level) for result in self.results}
        scored = {name: summary.metrics() for name, summary in summaries.items() if summary is not None}
        if not scored:
            return {}
        metrics = next(iter(scored.values())).keys()
        return {metric: _best(scored, metric) for metric in metrics}


def hybrid_against_legs(report: EvaluationReport, level: Level, *, dutch: bool = False) -> list[str]:
    """Each hybrid configuration against its single legs (α 0 and 1, all else equal), one sentence per pair
    (in Dutch for the report page).

    The source study's premise is that fusion is at least as good as either leg; a shortfall is spelled out,
    metric by metric, because it must be explained."""
    findings = []
    for hybrid in report.results:
        alpha = float(hybrid.settings.get("alpha", "nan"))
        summary = hybrid.summary(level)
        if not 0.0 < alpha < 1.0 or summary is None:
            continue
        for leg in _single_legs(report.results, hybrid, level):
            leg_summary = leg.summary(level)
            assert leg_summary is not None
            below = [
                f"{metric} {value:.3f} < {leg_summary.metrics()[metric]:.3f}"
                for metric, value in summary.metrics().items()
                if value < leg_summary.metrics()[metric] - 1e-12
            ]
            if below and dutch:
                findings.append(f"{hybrid.name} scoort lager dan {leg.name} op " + ", ".join(below) + ".")
            elif below:
                findings.append(f"{hybrid.name} is below {leg.name} on " + ", ".join(below) + ".")
            elif dutch:
                findings.append(f"{hybrid.name} is op elke maat minstens even goed als {leg.name}.")
            else:
                findings.append(f"{hybrid.name} is at least as good as {leg.name} on every metric.")
    return findings


def _single_legs(
    results: Sequence[ConfigurationResult], hybrid: ConfigurationResult, level: Level
) -> list[ConfigurationResult]:
    """The configurations with α 0 or 1 whose other settings equal the hybrid's."""
    others = {key: value for key, value in hybrid.settings.items() if key != "alpha"}
    return [
        result
        for result in results
        if result.settings.get("alpha") in ("0", "1")
        and {key: value for key, value in result.settings.items() if key != "alpha"} == others
        and result.summary(level) is not None
    ]


def _best(scored: dict[str, dict[str, float]], metric: str) -> tuple[str, ...]:
    top = max(values[metric] for values in scored.values())
    return tuple(name for name, values in scored.items() if abs(values[metric] - top) < 1e-12)
