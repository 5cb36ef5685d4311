"""Where a relevance floor could go: score distributions of relevant and irrelevant results, from labelled data.

The chat says "not found" when its best result scores below a floor. Three groups tell where that floor belongs:
results among the first three whose document is relevant, those whose document is not, and the best result of
questions no document answers. Both the fused score and the dense leg's raw cosine similarity are shown: min-max
fusion scales every query's best hit towards 1, so the fused score says how a result compares with the others
for the same question, not how well it matches.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from matplotlib.figure import Figure

from api.evaluator.judgement import QueryOutcome, ScoredResult
from api.evaluator.plots import new_figure

Measure = Literal["score", "dense_similarity"]
MEASURES: tuple[Measure, ...] = ("score", "dense_similarity")
MEASURE_LABELS = {"score": "fused score", "dense_similarity": "dense cosine similarity"}
GROUPS = ("relevant (top 3)", "irrelevant (top 3)", "unanswerable (top 1)")
# The report page and the figures speak Dutch; GROUPS and MEASURES stay the JSON's and Markdown's keys.
DUTCH_MEASURE_LABELS = {"score": "gecombineerde score", "dense_similarity": "cosinusgelijkenis (dense)"}
DUTCH_GROUPS = dict(
    zip(GROUPS, ("relevant (top 3)", "niet relevant (top 3)", "geen antwoord (top 1)"), strict=True)
)
QUANTILES = (0.1, 0.5, 0.9)


@dataclass(frozen=True)
class Distribution:
    """How many values a group holds and its 10th, 50th and 90th percentiles (None when it holds none)."""

    count: int
    quantiles: tuple[float, ...] | None


def score_groups(outcomes: Sequence[QueryOutcome], measure: Measure) -> dict[str, list[float]]:
    """Group → values of the measure; results without a dense score are left out of the dense groups."""
    groups: dict[str, list[float]] = {group: [] for group in GROUPS}
    for outcome in outcomes:
        if outcome.document_judged:
            for result in outcome.top_results:
                _append(groups[GROUPS[0] if result.relevant else GROUPS[1]], result, measure)
        elif not outcome.answerable and outcome.top_results:
            _append(groups[GROUPS[2]], outcome.top_results[0], measure)
    return groups


def distributions(outcomes: Sequence[QueryOutcome], measure: Measure) -> dict[str, Distribution]:
    return {group: _distribution(values) for group, values in score_groups(outcomes, measure).items()}


def floor_figure(outcomes: Sequence[QueryOutcome], title: str) -> Figure:
    """Histograms of both measures per group, side by side."""
    figure, axes_pair = new_figure(columns=2)
    for axes, measure in zip(axes_pair, MEASURES, strict=True):
        groups = {group: values for group, values in score_groups(outcomes, measure).items() if values}
        if groups:
            # shared bins over the values' own range: one embedder's cosine similarities span a narrow band
            bins = np.histogram_bin_edges(np.concatenate(list(groups.values())), bins=30)
            for group, values in groups.items():
                axes.hist(
                    values, bins=bins, density=True, histtype="step", linewidth=1.4, label=DUTCH_GROUPS[group]
                )
        axes.set(xlabel=DUTCH_MEASURE_LABELS[measure], ylabel="dichtheid")
        axes.grid(alpha=0.3)
        if axes.get_legend_handles_labels()[0]:
            axes.legend(fontsize=8, loc="upper left")
    figure.suptitle(title)
    return figure


def _append(values: list[float], result: ScoredResult, measure: Measure) -> None:
    value = result.score if measure == "score" else result.dense_similarity
    if value is not None:
        values.append(value)


def _distribution(values: list[float]) -> Distribution:
    if not values:
        return Distribution(0, None)
    return Distribution(len(values), tuple(float(q) for q in np.quantile(values, QUANTILES)))
