"""Run the parsing of one file in a child process bounded in wall-clock time, memory and CPU.

pypdf bounds single streams, not page counts or total work: a hostile or broken PDF can keep a parser busy for
hours or grow until the kernel kills the process. Parsing therefore happens in a child, never in the process
that runs the job (nor in the API process, where the embedded install runs the job worker on a thread):
- the child gets an address-space limit (RLIMIT_AS) and a CPU-time limit (RLIMIT_CPU) just above the timeout,
  and a thread that ends it when the job's process is gone, so nothing survives a killed job;
- the child leads a session of its own, which every program it runs (LibreOffice, OCRmyPDF: `tools.py`) and what
  those start (tesseract, gs) stay in: when the child is gone, killed or not, the session is swept, so no
  grandchild is left running without a parent;
- the parent waits in short slices, calling `tick` (the job's heartbeat) while it waits, kills the child at the
  timeout and always reaps it (no zombies);
- children come from a fork server that has imported the parser once, so a child starts in milliseconds.
What the child raises comes back: an `UnusableFile` as itself, anything else as an `UnusableFile` that names it.
"""

import logging
import multiprocessing
import os
import resource
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, TypeVar

from ingest.pdf_reader import UnusableFile
from ingest.tools import end_session

log = logging.getLogger(__name__)

T = TypeVar("T")
TICK_SECONDS = 5.0
_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(["ingest.isolation", "ingest.pipeline"])


@dataclass(frozen=True)
class Limits:
    timeout_seconds: float
    memory_mb: int


class ChildDied(Exception):
    """The child ended without an answer and not by our timeout or its memory limit (a signal, the kernel's OOM
    killer): the attempt may be retried."""


def run_isolated(
    function: Callable[..., T], arguments: tuple[Any, ...], limits: Limits, tick: Callable[[], None]
) -> T:
    """`function(*arguments)` in a bounded child; `function` must be importable (module level)."""
    receiver, sender = _CONTEXT.Pipe(duplex=False)
    child = _CONTEXT.Process(target=_child, args=(sender, function, arguments, limits), daemon=True)
    child.start()
    session = child.pid  # the child's session: it calls setsid() first
    assert session is not None  # started
    sender.close()
    try:
        answer = _wait(receiver, child, limits.timeout_seconds, tick)
    finally:
        receiver.close()
        if child.is_alive():
            child.kill()
        child.join()
        end_session(session)
        child.close()
    kind, value = answer
    if kind == "ok":
        return value
    if kind == "unusable":
        raise UnusableFile(value)
    if kind == "memory":
        raise UnusableFile(
            f"te veel geheugen nodig bij het lezen (meer dan {limits.memory_mb} MB): afgebroken"
        )
    raise UnusableFile(f"onverwachte fout: {value}")


def _wait(receiver: Connection, child: Any, timeout: float, tick: Callable[[], None]) -> tuple[str, Any]:
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        if receiver.poll(min(left, TICK_SECONDS)):
            try:
                return receiver.recv()
            except EOFError:  # the child died before answering
                child.join()
                if child.exitcode == -signal.SIGXCPU:
                    break
                raise ChildDied(f"het leesproces stopte onverwacht (exitcode {child.exitcode})") from None
        tick()
    raise UnusableFile(f"lezen duurde te lang (langer dan {timeout:g} seconden): afgebroken")


def _child(
    sender: Connection, function: Callable[..., Any], arguments: tuple[Any, ...], limits: Limits
) -> None:
    os.setsid()
    _bound(limits)
    threading.Thread(target=_exit_with_parent, name="parent-watch", daemon=True).start()
    try:
        answer: tuple[str, Any] = ("ok", function(*arguments))
    except UnusableFile as error:
        answer = ("unusable", str(error))
    except MemoryError:
        answer = ("memory", None)
    except Exception as error:  # reported to the parent, which records it as the file's error
        log.exception("parsing failed in the child process")
        answer = ("error", f"{type(error).__name__}: {error}")
    sender.send(answer)
    sender.close()


def _bound(limits: Limits) -> None:
    """Limits the kernel enforces whatever the parent does."""
    memory = limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(limits.timeout_seconds) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))


def _exit_with_parent() -> None:
    """The job's process was killed: stop parsing for nobody (the fork server, the child's parent by fork,
    stays alive as long as its children do, so the kernel's parent-death signal would not fire)."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        wait([parent.sentinel])
        end_session(os.getpid())
        os._exit(1)
