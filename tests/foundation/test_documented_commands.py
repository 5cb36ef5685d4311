"""Every `python -m …` command that README.md and docs/*.md show answers `--help` with exit status 0: a module
renamed or moved without its documentation following fails here.

The commands are read from the documents themselves: the module and the words after it that are not options (a
subcommand such as `api users add`, or a positional argument, which `--help` ignores). They run one after the
other in one child process, each as `python -m` runs it (`runpy`, `__main__`), so the heavy imports (torch) are
paid once and not per command; the child is apart from the test session, so no command's start-up touches it.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
COMMAND = re.compile(r"python -m ([A-Za-z_][\w.]*)((?: [a-z][a-z_-]*)*)")
COMMAND_SECONDS = 300  # one command, its imports included, on a busy machine
TIMEOUT_SECONDS = 800

# Runs in the child: reads [[module, word…], …] on stdin, writes {"module word…": [exit status, output]} on
# stdout, and the command it is starting on stderr. A command that does not answer `--help` (it starts its work
# instead, a server say) is stopped by an alarm and counts as failed.
CHILD = """
import contextlib, io, json, os, runpy, signal, sys, traceback, warnings

class Hung(BaseException):
    pass

def hung(signum, frame):
    raise Hung(f"no answer to --help within {seconds} s")

seconds = int(sys.argv[1])
signal.signal(signal.SIGALRM, hung)
results = {}
for module, *words in json.load(sys.stdin):
    name = " ".join([module, *words])
    print(name, file=sys.stderr, flush=True)
    sys.argv = [module, *words, "--help"]
    output = io.StringIO()
    status = 0
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a module imported before it runs as __main__
        signal.alarm(seconds)
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        except SystemExit as exit:
            status = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
        except BaseException:
            status = -1
            output.write(traceback.format_exc())
        finally:
            signal.alarm(0)
    results[name] = [status, output.getvalue()]
json.dump(results, sys.__stdout__)
sys.__stdout__.flush()
os._exit(0)  # not waiting on threads a failed command left running
"""


def documented_commands() -> list[tuple[str, ...]]:
    """Each distinct command the documents show, as (module, word…), in order of first appearance."""
    found: dict[tuple[str, ...], None] = {}
    for document in DOCUMENTS:
        for match in COMMAND.finditer(document.read_text(encoding="utf-8")):
            found[(match.group(1), *match.group(2).split())] = None
    return list(found)


COMMANDS = documented_commands()


@pytest.fixture(scope="module")
def help_results() -> dict[str, tuple[int, str]]:
    """Every documented command's `--help`, run once for the module: exit status and output by command."""
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(COMMAND_SECONDS)],
        input=json.dumps(COMMANDS),
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=TIMEOUT_SECONDS,
    )
    if child.returncode != 0:
        last = child.stderr.strip().splitlines()[-1:] or ["?"]
        pytest.fail(f"the commands' child process failed at `python -m {last[0]}`:\n{child.stderr[-3000:]}")
    return {name: (status, output) for name, (status, output) in json.loads(child.stdout).items()}


def test_the_documents_show_commands_of_each_package() -> None:
    """The extraction finds what it looks for: were the pattern to break, the test below would pass on nothing."""
    modules = {command[0].split(".")[0] for command in COMMANDS}

    assert {"api", "ingest", "speculative"} <= modules
    assert ("api", "users", "add") in COMMANDS


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_documented_command_answers_help(
    command: tuple[str, ...], help_results: dict[str, tuple[int, str]]
) -> None:
    status, output = help_results[" ".join(command)]

    assert status == 0, f"`python -m {' '.join(command)} --help` exited {status}:\n{output[-3000:]}"
    assert "usage:" in output
