"""Which environment variables the code reads, found statically in `api/`, `ingest/`, `modelstore/` and `speculative/`.

Every field of every pydantic-settings class (its name, or an explicit `alias`/`validation_alias`, with the class's
`env_prefix`), and every literal name given to `os.environ.get`, `os.environ[...]` or `os.getenv`.
"""

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("api", "ingest", "modelstore", "speculative")


@dataclass(frozen=True)
class SettingRead:
    variable: str
    where: str


def _python_files() -> Iterator[Path]:
    for package in PACKAGES:
        yield from sorted((REPO_ROOT / package).rglob("*.py"))


def _settings_class_names(trees: dict[Path, ast.Module]) -> set[str]:
    """Names of classes deriving, directly or through each other, from pydantic-settings' BaseSettings."""
    bases = {
        node.name: {_name_of(base) for base in node.bases}
        for tree in trees.values()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }
    found = {"BaseSettings"}
    while True:
        more = {name for name, parents in bases.items() if parents & found} - found
        if not more:
            return found - {"BaseSettings"}
        found |= more


def _name_of(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _env_prefix(cls: ast.ClassDef) -> str:
    """The `env_prefix` given in the class's `model_config = SettingsConfigDict(...)`, if any."""
    for statement in cls.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "model_config" for target in statement.targets
        ):
            call = statement.value
            if isinstance(call, ast.Call):
                for keyword in call.keywords:
                    if keyword.arg == "env_prefix" and isinstance(keyword.value, ast.Constant):
                        return str(keyword.value.value)
    return ""


def _field_alias(value: ast.expr | None) -> str | None:
    """An explicit environment name: `Field(..., alias="X")` or `validation_alias="X"`."""
    if isinstance(value, ast.Call) and _name_of(value.func) == "Field":
        for keyword in value.keywords:
            if keyword.arg in {"alias", "validation_alias"} and isinstance(keyword.value, ast.Constant):
                return str(keyword.value.value)
    return None


def _settings_fields(cls: ast.ClassDef) -> Iterator[str]:
    prefix = _env_prefix(cls)
    for statement in cls.body:
        if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
            continue
        name = statement.target.id
        if name.startswith("_") or "ClassVar" in ast.unparse(statement.annotation):
            continue
        yield (_field_alias(statement.value) or f"{prefix}{name}").upper()


def _environment_reads(tree: ast.Module) -> Iterator[tuple[str, int]]:
    """Literal names read with os.environ.get / os.environ[...] / os.getenv."""
    for node in ast.walk(tree):
        target: ast.expr | None = None
        if isinstance(node, ast.Call) and node.args:
            function = ast.unparse(node.func)
            if function in {"os.environ.get", "os.getenv", "environ.get", "getenv", "os.environ.setdefault"}:
                target = node.args[0]
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) in {"os.environ", "environ"}:
            target = node.slice
        if isinstance(target, ast.Constant) and isinstance(target.value, str):
            yield target.value, node.lineno


def _trees() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(encoding="utf-8"), str(path)) for path in _python_files()}


@cache
def settings_classes() -> dict[str, str]:
    """Every pydantic-settings class of the code, by name, with the file that defines it."""
    trees = _trees()
    names = _settings_class_names(trees)
    return {
        node.name: path.relative_to(REPO_ROOT).as_posix()
        for path, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and node.name in names
    }


@cache
def settings_read_by_the_code() -> tuple[SettingRead, ...]:
    trees = _trees()
    classes = _settings_class_names(trees)
    reads: list[SettingRead] = []
    for path, tree in trees.items():
        where = path.relative_to(REPO_ROOT).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name in classes:
                reads += [SettingRead(field, f"{where}:{node.name}") for field in _settings_fields(node)]
        reads += [SettingRead(name, f"{where}:{line}") for name, line in _environment_reads(tree)]
    return tuple(reads)
