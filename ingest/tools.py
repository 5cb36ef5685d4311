"""Run an external program (LibreOffice, OCRmyPDF) from the bounded parsing child, bounded itself.

The program runs in its own process group, which is killed whole when it overruns its time; the kernel kills it
too when the child that started it dies (the job's timeout kills the child with SIGKILL, which leaves no chance to
clean up). Memory: the child's address-space and CPU limits are inherited by every process the program starts.
"""

import contextlib
import ctypes
import os
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

_PR_SET_PDEATHSIG = 1
OUTPUT_LIMIT = 4000


@dataclass(frozen=True)
class ToolResult:
    returncode: int
    output: str
    """The end of what the program printed (stdout and stderr), for the log and the admin's message."""


class ToolTimeout(Exception):
    """The program ran past its time and was killed with its whole process group."""


def run_tool(arguments: Sequence[str], timeout: float, cwd: Path | None = None) -> ToolResult:
    """`arguments` run to the end or killed after `timeout` seconds (`ToolTimeout`)."""
    process = subprocess.Popen(
        list(arguments),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=_die_with_parent,
        env=None
        if cwd is None
        else {**os.environ, "HOME": str(cwd)},  # the tool's profile and caches go there
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        raise ToolTimeout(f"{Path(arguments[0]).name} duurde langer dan {timeout:.0f} seconden") from None
    except BaseException:
        _kill_group(process)
        raise
    return ToolResult(process.returncode, output.decode("utf-8", "replace")[-OUTPUT_LIMIT:])


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate()


def _die_with_parent() -> None:
    """In the program's process, before it starts: SIGKILL when the child that started it dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
