"""The product packages hold what the served processes run, and nothing else: every module under `api`, `ingest`,
`speculative` and `modelstore` is imported by one of the seven served entry points, and none of them loads a
module of `research` (the benchmarks, the GPU check, training and studies), statically or at run time.
"""

import json
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import grimp
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
PRODUCT_PACKAGES = ("api", "ingest", "speculative", "modelstore")
TOOLS = "research"
# What each served process runs (docker-compose.yml, the Makefile's `demo`): the command, and the module whose
# imports it starts from.
ENTRY_POINTS = {
    "python -m api": "api.__main__",
    "python -m api reports": "api.report_runner",
    "python -m api.demo": "api.demo",
    "python -m ingest": "ingest.__main__",
    "python -m ingest.worker": "ingest.worker",
    "python -m speculative.worker": "speculative.worker.__main__",
    "python -m modelstore": "modelstore.__main__",
}
# Files under the product packages that no import reaches, each with the reason it is there all the same.
NOT_IMPORTED = {
    "api/migrations": "Alembic loads the schema migrations by path (`api.database_schema`)",
    "ingest/migrations": "Alembic loads the schema migrations by path (`ingest.database_schema`)",
}
# Reading, cleaning, chunking and converting documents, and the PDF libraries under them.
PDF_PIPELINE = {
    "ingest.pipeline",
    "ingest.pdf_reader",
    "ingest.document_text",
    "ingest.tables",
    "ingest.chunking",
    "ingest.ocr",
    "ingest.conversion",
    "pdfplumber",
    "pypdf",
    "pypdfium2",
    "langchain_text_splitters",
}
COMMAND_SECONDS = 600  # all seven commands' imports (torch among them) on a busy machine

# Runs in the child: the heavy third-party imports once, then each command in a fork of its own (a clean module
# table each, sharing those imports), as `python -m` runs it, with `--help`. Each fork reports its exit status,
# its output and the `research` modules it loaded, on a pipe.
CHILD = """
import contextlib, io, json, os, runpy, sys
import fastapi, sqlalchemy, torch, transformers, uvicorn

results = {}
for command in json.load(sys.stdin):
    module, *words = command.split()[2:]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        sys.argv = [module, *words, "--help"]
        output = io.StringIO()
        status = 0
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            try:
                runpy.run_module(module, run_name="__main__", alter_sys=True)
            except SystemExit as exit:
                status = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
            except BaseException as error:
                status = -1
                output.write(repr(error))
        tools = sorted(name for name in sys.modules if name.split(".")[0] == "research")
        os.write(write, json.dumps([status, output.getvalue()[-2000:], tools]).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        results[command] = json.loads(pipe.read())
    os.waitpid(pid, 0)
json.dump(results, sys.__stdout__)
"""


def product_modules() -> dict[str, Path]:
    """Every Python file under the product packages by its module name (a package by its `__init__.py`)."""
    modules = {}
    for package in PRODUCT_PACKAGES:
        for path in sorted((REPO_ROOT / package).rglob("*.py")):
            parts = path.relative_to(REPO_ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def exempt(path: Path) -> bool:
    relative = path.relative_to(REPO_ROOT).as_posix()
    return any(relative.startswith(f"{folder}/") for folder in NOT_IMPORTED)


@pytest.fixture(scope="module")
def served_modules() -> set[str]:
    """The modules the entry points import, directly or through others (imports for type checking only left
    out), with the packages above each, which Python imports first."""
    graph = grimp.build_graph(*PRODUCT_PACKAGES, TOOLS, exclude_type_checking_imports=True, cache_dir=None)
    reached = reached_from(graph, ENTRY_POINTS.values())
    return reached | {module.rsplit(".", i)[0] for module in reached for i in range(1, module.count(".") + 1)}


def reached_from(graph: grimp.ImportGraph, modules: Iterable[str]) -> set[str]:
    """The modules `modules` import, directly or through others, themselves included."""
    reached: set[str] = set()
    waiting = list(modules)
    while waiting:
        module = waiting.pop()
        if module not in reached:
            reached.add(module)
            waiting.extend(graph.find_modules_directly_imported_by(module))
    return reached


def test_the_chat_reads_what_ingestion_stored_without_loading_the_pdf_pipeline() -> None:
    """A question's route needs the stored text's form (`ingest.text_format`), not the parsers that wrote it."""
    graph = grimp.build_graph(
        "api",
        "ingest",
        "modelstore",
        exclude_type_checking_imports=True,
        include_external_packages=True,
        cache_dir=None,
    )
    reached = reached_from(graph, ["api.routes.chat"])

    assert "ingest.retrieval" in reached
    assert sorted(reached & PDF_PIPELINE) == []


def test_the_product_modules_are_found_and_the_exceptions_still_exist() -> None:
    """The walk finds what it looks for, and every listed exception still names files that are there."""
    modules = product_modules()

    assert {"api.app", "ingest.worker", "speculative.engine.generator", "modelstore.registry"} <= set(modules)
    for folder in NOT_IMPORTED:
        assert any(path.is_relative_to(REPO_ROOT / folder) for path in modules.values()), folder


def test_every_product_module_is_imported_by_a_served_entry_point(served_modules: set[str]) -> None:
    unserved = [
        name for name, path in product_modules().items() if name not in served_modules and not exempt(path)
    ]

    assert unserved == [], (
        f"no served process imports {unserved}: move it to `research` (a tool, a study) or delete it"
    )


def test_no_served_entry_point_imports_research(served_modules: set[str]) -> None:
    assert sorted(module for module in served_modules if module.split(".")[0] == TOOLS) == []


@pytest.fixture(scope="module")
def started() -> dict[str, tuple[int, str, list[str]]]:
    """Each entry point as its process starts it (with `--help`): exit status, output, `research` modules loaded."""
    child = subprocess.run(
        [sys.executable, "-c", CHILD],
        input=json.dumps(list(ENTRY_POINTS)),
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=COMMAND_SECONDS,
        check=False,
    )
    assert child.returncode == 0, child.stderr[-3000:]
    return {
        command: (status, output, tools)
        for command, (status, output, tools) in json.loads(child.stdout).items()
    }


@pytest.mark.parametrize("command", list(ENTRY_POINTS))
def test_a_served_process_loads_no_research_module_at_start(
    command: str, started: dict[str, tuple[int, str, list[str]]]
) -> None:
    status, output, tools = started[command]

    assert status == 0 and "usage:" in output, f"`{command} --help` exited {status}:\n{output}"
    assert tools == []
