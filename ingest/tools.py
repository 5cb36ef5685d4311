"""Run an external program (LibreOffice, OCRmyPDF) from the bounded parsing child, bounded itself.

These programs parse untrusted files, so they get only what they need:
- an environment of their own (`tool_environment`): PATH, LANG, HOME in the caller's scratch folder and TMPDIR in a
  fresh folder inside it; never the parent's (the database password, API keys, session secret);
- a deadline: the program runs in a process group of its own, killed whole (ocrmypdf's workers, tesseract, gs)
  when it overruns; its temporary folder goes with it, killed or not;
- the limits of the child that starts it (address space, CPU time), which every process it starts inherits; and it
  dies with that child (the kernel's parent-death signal). What it started lives on in the child's session, which
  the job's process sweeps when the child is gone (`isolation.py`, `end_session`).
"""

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import time
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
        process_group=0,
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


def end_session(session: int, rounds: int = 20) -> None:
    """SIGKILL every live process of `session` but the caller, until none is left (one being killed may have
    just forked). Linux: the members are found in /proc, and each is signalled through a pidfd opened before its
    session is checked, so a recycled process id is never hit."""
    for _ in range(rounds):
        members = [pid for pid in _session_members(session) if pid != os.getpid()]
        if not members:
            return
        for pid in members:
            _kill_member(pid, session)
        time.sleep(0.01)


def _session_members(session: int) -> list[int]:
    return [
        int(entry)
        for entry in os.listdir("/proc")
        if entry.isdigit() and _live_session(int(entry)) == session
    ]


def _live_session(pid: int) -> int | None:
    """The session of a process not yet dead (a zombie is no longer a threat), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state, _parent, _group, session = stat.rpartition(")")[2].split()[:4]
    return None if state in ("Z", "X") else int(session)


def _kill_member(pid: int, session: int) -> None:
    try:
        handle = os.pidfd_open(pid)
    except OSError:
        return
    try:
        if _live_session(pid) == session:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(handle, signal.SIGKILL)
    finally:
        os.close(handle)
