"""The thesis's two rank figures (3.12 density, 3.13 cumulative), one line per configuration, as PNG data URIs.

PNG embedded as base64 keeps the HTML page one file that opens anywhere, including offline hospital machines.
The figures are labelled in Dutch: evaluators in the hospital read them (the report page and the evaluator page).
"""

import base64
import io
from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display on servers; must precede pyplot

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from api.evaluator.metrics import CUTOFFS, DEPTH, hit_at, plotted_rank
from api.evaluator.report import ConfigurationResult, Level, judged_ranks

# "the first relevant <level>" in Dutch
LEVEL_NOUNS: dict[str, str] = {"document": "document", "chunk": "tekstfragment"}


def new_figure(columns: int = 1) -> tuple[Figure, Any]:
    """A figure sized for the report page; one or more axes side by side."""
    return plt.subplots(1, columns, figsize=(7 * columns, 3.8))


def rank_density_figure(results: Sequence[ConfigurationResult], level: Level) -> Figure:
    """Share of questions per rank of the first relevant result; misses are drawn at the depth (50)."""
    figure, axes = new_figure()
    bins = [rank - 0.5 for rank in range(1, DEPTH + 2)]
    for result in results:
        ranks = [plotted_rank(rank) for rank in judged_ranks(result.outcomes, level)]
        if ranks:
            axes.hist(ranks, bins=bins, density=True, histtype="step", linewidth=1.4, label=result.name)
    axes.set(
        xlabel=f"rang van het eerste relevante {LEVEL_NOUNS[level]} (niet gevonden = {DEPTH})",
        ylabel="aandeel van de vragen",
        xlim=(0.5, DEPTH + 0.5),
        title="Verdeling van de rang van het eerste juiste resultaat",
    )
    _finish(axes)
    return figure


def cumulative_hits_figure(results: Sequence[ConfigurationResult], level: Level) -> Figure:
    """Hit@k against k: the share of questions answered by rank k; the reported cut-offs are marked."""
    figure, axes = new_figure()
    ks = np.arange(1, DEPTH + 1)
    for result in results:
        ranks = judged_ranks(result.outcomes, level)
        if ranks:
            (line,) = axes.step(ks, [hit_at(ranks, int(k)) for k in ks], where="post", label=result.name)
            axes.plot(
                CUTOFFS, [hit_at(ranks, k) for k in CUTOFFS], "o", markersize=3.5, color=line.get_color()
            )
    axes.set(
        xlabel="k (aantal getoonde resultaten)",
        ylabel="Hit@k (aandeel gevonden)",
        xlim=(1, DEPTH),
        ylim=(0, 1.02),
        title="Cumulatief: een relevant resultaat bij de eerste k",
    )
    _finish(axes)
    return figure


def png_data_uri(figure: Figure) -> str:
    """Render and release the figure (pyplot keeps figures alive until closed)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(figure)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _finish(axes: plt.Axes) -> None:
    axes.grid(alpha=0.3)
    if axes.get_legend_handles_labels()[0]:
        axes.legend(fontsize=8, loc="best")
