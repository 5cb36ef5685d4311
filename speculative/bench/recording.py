"""What the engine's benchmarks (`speculative.bench`, `speculative.worker.bench`) record beside their figures.

The other benchmarks cannot share this: `ingest` may not import `speculative.bench` and `api` nothing of
`speculative` (.importlinter); `research.ingest_bench.common` keeps its own helpers, which `api.bench` could use.
"""

import shlex
import sys
from collections.abc import Sequence


def command_line(module: str, argv: Sequence[str] | None) -> str:
    """The shell command that reproduces the run: `python -m module` with `argv` (None: this process's)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    return shlex.join(["python", "-m", module, *arguments])
