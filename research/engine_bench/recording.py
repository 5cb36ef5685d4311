"""What the engine's benchmarks (`research.engine_bench`, `research.engine_bench.worker_http`) and the adapter's training
record beside their figures: the command line that reproduces the run."""

import shlex
import sys
from collections.abc import Sequence


def command_line(module: str, argv: Sequence[str] | None) -> str:
    """The shell command that reproduces the run: `python -m module` with `argv` (None: this process's)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    return shlex.join(["python", "-m", module, *arguments])
