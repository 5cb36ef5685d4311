"""`python -m api.demo` (what `make demo` runs): the whole app on one machine, no Docker, until Ctrl-C.

It prepares the embedded install (database schema, a demo account, the sample documents indexed), then runs the
generation worker, the API and the report runner as child processes (the API serves the built front-end and runs
ingestion jobs on a thread; the runner runs the evaluation reports the API queues), waits until the worker and
the API answer their health checks, and prints the address and the login. Ctrl-C, SIGTERM or any child dying stops
them all, each with the processes it started (signals that come while it stops are ignored). The API never imports
the worker's code: it is started as a process, like in production.
"""

import argparse
import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from ingest.search.manifest import MANIFEST_NAME
from ingest.settings import IngestSettings

DEMO_USER = "demo"
DEMO_ROLES = ("clinician", "admin", "evaluator")
LOGIN_FILE = Path(".data/demo-login.txt")
SAMPLES = Path("samples/documents")
STOP_GRACE_SECONDS = 15.0
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
READY_TIMEOUT_SECONDS = 900.0


class DemoFailed(Exception):
    """A step of the start-up failed; the message says which and how to see why."""


def main(argv: Sequence[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    children: list[subprocess.Popen[bytes]] = []
    for signum in STOP_SIGNALS:  # SIGINT too, even when started with it ignored
        signal.signal(signum, _interrupt)
    try:
        prepare(arguments.samples)
        password = demo_password()
        worker_token = secrets.token_urlsafe(32)  # other users of this machine cannot generate through it
        children.append(
            _start(
                "worker",
                ["speculative.worker"],
                {
                    "WORKER_HOST": "127.0.0.1",
                    "WORKER_PORT": str(arguments.worker_port),
                    "WORKER_TOKEN": worker_token,
                },
            )
        )
        workers = {"WORKER_URLS": f"http://127.0.0.1:{arguments.worker_port}", "WORKER_TOKEN": worker_token}
        children.append(
            _start("api", ["api"], {"API_HOST": "127.0.0.1", "API_PORT": str(arguments.port), **workers})
        )
        children.append(_start("report runner", ["api", "reports"], workers))
        _wait_until_ready(f"http://127.0.0.1:{arguments.port}/api/health", children, "the API")
        _wait_until_ready(
            f"http://127.0.0.1:{arguments.worker_port}/health", children, "the worker (loading the model)"
        )
        print(
            f"\nVraagbaak runs on http://127.0.0.1:{arguments.port}\n"
            f"Log in as {DEMO_USER!r} with password {password!r} (saved in {LOGIN_FILE}).\n"
            "Press Ctrl-C to stop.\n",
            flush=True,
        )
        return _watch(children)
    except KeyboardInterrupt:
        print("\nstopping…", flush=True)
        return 0
    except DemoFailed as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        _stop(children)


def prepare(samples: Path) -> None:
    """Schema up to date; an index of an earlier embedder re-embedded with today's (EMBEDDING_MODEL); the sample
    documents indexed (the ingestion run skips what is already indexed)."""
    _run("updating the database schema", [sys.executable, "-m", "api", "migrate"])
    index = IngestSettings().index_dir
    if (index / MANIFEST_NAME).is_file():
        _run(
            f"checking that {index} holds EMBEDDING_MODEL's vectors",
            [sys.executable, "-m", "ingest", "reembed"],
        )
    _run(f"indexing the sample documents in {samples}", [sys.executable, "-m", "ingest", "run", str(samples)])


def demo_password() -> str:
    """The demo account's password: made once with a random password, kept in LOGIN_FILE for later runs."""
    if LOGIN_FILE.exists():
        return LOGIN_FILE.read_text(encoding="utf-8").strip()
    password = secrets.token_urlsafe(12)
    roles = [argument for role in DEMO_ROLES for argument in ("--role", role)]
    created = _run_with_input([sys.executable, "-m", "api", "users", "add", DEMO_USER, *roles], password)
    if created.returncode != 0:  # the account exists from an earlier install: give it the new password
        _run_with_input([sys.executable, "-m", "api", "users", "password", DEMO_USER], password, check=True)
    LOGIN_FILE.parent.mkdir(parents=True, exist_ok=True)
    LOGIN_FILE.touch(mode=0o600)
    LOGIN_FILE.write_text(password + "\n", encoding="utf-8")
    return password


def _run(what: str, command: list[str]) -> None:
    print(f"{what}…", flush=True)
    if subprocess.run(command, check=False).returncode != 0:
        raise DemoFailed(f"{what} failed (see the messages above; command: {' '.join(command[1:])})")


def _run_with_input(command: list[str], text: str, check: bool = False) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, input=text + "\n", text=True, capture_output=True, check=False)
    if check and result.returncode != 0:
        raise DemoFailed(f"{' '.join(command[1:])} failed: {result.stderr.strip()}")
    return result


def _start(name: str, arguments: list[str], environment: dict[str, str]) -> subprocess.Popen[bytes]:
    """`python -m <arguments>` as a child in its own session (its process group has the child's pid): Ctrl-C
    reaches only this launcher, which then stops each child's whole group once."""
    print(f"starting the {name} (python -m {' '.join(arguments)})…", flush=True)
    return subprocess.Popen(
        [sys.executable, "-m", *arguments], env={**os.environ, **environment}, start_new_session=True
    )


def _wait_until_ready(url: str, children: list[subprocess.Popen[bytes]], what: str) -> None:
    print(f"waiting for {what}…", flush=True)
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        _check_alive(children)
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200 and json.load(response).get("status") != "loading":
                    return
        except (OSError, ValueError):
            pass
        time.sleep(1)
    raise DemoFailed(f"{what} did not become ready at {url} within {READY_TIMEOUT_SECONDS:.0f} s")


def _watch(children: list[subprocess.Popen[bytes]]) -> int:
    while True:
        _check_alive(children)
        time.sleep(0.5)


def _check_alive(children: list[subprocess.Popen[bytes]]) -> None:
    for child in children:
        if child.poll() is not None:
            raise DemoFailed(f"`{_command_line(child)}` exited with {child.returncode}")


def _command_line(child: subprocess.Popen[bytes]) -> str:
    arguments = child.args if isinstance(child.args, list) else [child.args]
    return " ".join(str(part) for part in arguments[1:])


def _stop(children: list[subprocess.Popen[bytes]]) -> None:
    """Stop every child's process group: SIGTERM, up to STOP_GRACE_SECONDS for the children to exit, then SIGKILL
    to what is left of each group. Further Ctrl-C or SIGTERM are ignored meanwhile, so a second one cannot leave
    servers running; the stop itself is bounded by the grace period."""
    _ignore_stop_signals()
    for child in children:
        _signal_group(child, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    while not all(_exited(child) for child in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    for child in children:
        _signal_group(child, signal.SIGKILL)  # a child that did not stop, or a process it left in its group
        child.wait()


def _signal_group(child: subprocess.Popen[bytes], signum: int) -> None:
    """`signum` to the child's process group (it leads one: `_start`), if anything of it is left."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signum)


def _exited(child: subprocess.Popen[bytes]) -> bool:
    """Whether the child has exited, without reaping it: until `child.wait()` its pid, and so its process group's
    id, cannot be given to another process, so `_signal_group` reaches only what the child started."""
    if child.returncode is not None:
        return True
    try:
        return os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """The first Ctrl-C or SIGTERM stops the demo; those after it (a second Ctrl-C, make passing on a SIGTERM the
    demo got itself) are ignored."""
    _ignore_stop_signals()
    raise KeyboardInterrupt


def _ignore_stop_signals() -> None:
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m api.demo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8000, help="the app's port on 127.0.0.1 (default 8000)")
    parser.add_argument("--worker-port", type=int, default=8001, help="the worker's port (default 8001)")
    parser.add_argument(
        "--samples", type=Path, default=SAMPLES, help=f"documents to index (default {SAMPLES})"
    )
    return parser


if __name__ == "__main__":
    sys.exit(main())
