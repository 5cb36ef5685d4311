"""Run an external program (LibreOffice, OCRmyPDF) from the bounded parsing child, bounded itself.

These programs parse untrusted files, so they get an environment of their own (`tool_environment`): PATH, LANG,
HOME in the caller's scratch folder and TMPDIR in a fresh folder inside it, removed when the program ends; never
the parent's (the database password, API keys, session secret).
The program runs in its own process group, which is killed whole when it overruns its time; the kernel kills it
too when the child that started it dies (the job's timeout kills the child with SIGKILL, which leaves no chance to
clean up). Memory: the child's address-space and CPU limits are inherited by every process the program starts.
"""

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

_PR_SET_PDEATHSIG = 1
OUTPUT_LIMIT = 4000
LANGUAGE = "C.UTF-8"
PASSED_ON = ("PATH", "TESSDATA_PREFIX")
"""The parent's variables a tool needs (where programs and Tesseract's languages are), passed on when set."""


@dataclass(frozen=True)
class ToolResult:
    returncode: int
    output: str
    """The end of what the program printed (stdout and stderr), for the log and the admin's message."""


class ToolTimeout(Exception):
    """The program ran past its time and was killed with its whole process group."""


def tool_environment(home: Path, temporary: Path) -> dict[str, str]:
    """All the environment a tool gets: its profile and caches in `home`, its temporary files in `temporary`."""
    passed = {name: os.environ[name] for name in PASSED_ON if name in os.environ}
    return {"PATH": os.defpath, **passed, "HOME": str(home), "TMPDIR": str(temporary), "LANG": LANGUAGE}


def run_tool(arguments: Sequence[str], timeout: float, scratch: Path) -> ToolResult:
    """`arguments` run in `scratch` to the end, or killed after `timeout` seconds (`ToolTimeout`)."""
    temporary = scratch / f"tmp-{uuid.uuid4().hex}"
    temporary.mkdir(parents=True)
    try:
        return _run(arguments, timeout, scratch, tool_environment(scratch, temporary))
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


def _run(arguments: Sequence[str], timeout: float, cwd: Path, environment: dict[str, str]) -> ToolResult:
    process = subprocess.Popen(
        list(arguments),
        cwd=cwd,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=_die_with_parent,
    )
    try:
        output, _ = process.communicate(timeout=max(timeout, 0.0))
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
