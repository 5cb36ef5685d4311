"""What the benchmarks share: timing, percentiles, the machine they ran on, their sections of a Markdown file."""

import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np


def timed(run: Callable[[], object]) -> float:
    """Seconds one call takes."""
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def percentiles_ms(seconds: Sequence[float]) -> dict[str, float]:
    """p50, p95 (linear interpolation), mean and max of timings in seconds, in milliseconds."""
    values = np.array(seconds) * 1000
    return {
        "p50": float(np.percentile(values, 50)),
        "p95": float(np.percentile(values, 95)),
        "mean": float(values.mean()),
        "max": float(values.max()),
    }


def machine() -> str:
    return f"{len(os.sched_getaffinity(0))} CPU cores shared with other work, {time.strftime('%Y-%m-%d')}"


def command(module: str, argv: Sequence[str] | None) -> str:
    """The command line that ran the benchmark, as the Markdown section quotes it."""
    return f"python -m {module} " + " ".join(argv or sys.argv[1:])


def replace_section(path: Path, section: str) -> None:
    """Put the section (its first line is its `## ` heading) into the file, replacing an earlier version of
    it and nothing else."""
    heading = section.split("\n", 1)[0]
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    pattern = re.compile(rf"^{re.escape(heading)}\n.*?(?=^## |\Z)", re.DOTALL | re.MULTILINE)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text, encoding="utf-8")
