"""The Dockerfiles: bases pinned by tag and digest, Debian packages by version, every Python package by version and
hash; unprivileged Python services, CUDA torch only in the worker, a tight build context."""

import fnmatch
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCKERFILES = [REPO_ROOT / "Dockerfile", REPO_ROOT / "nginx" / "Dockerfile"]
PINNED = re.compile(r"^[^:@]+:\d+\.\d+\.\d+[-\w.]*@\$\{(?P<digest>[A-Z]+_IMAGE_DIGEST)\}$")
LOCKS = REPO_ROOT / "requirements"
LOCKED = re.compile(
    r"^(?P<name>[a-z0-9][a-z0-9._-]*)==(?P<version>\S+) \\\n    --hash=sha256:[0-9a-f]{64}$", re.M
)
APT_PACKAGE = re.compile(r"^[a-z0-9][a-z0-9.+-]*=[0-9][\w.+:~-]*$")


@dataclass
class Stage:
    base: str
    name: str
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def arguments(self, instruction: str) -> list[str]:
        return [arguments for name, arguments in self.instructions if name == instruction]


def stages(dockerfile: Path) -> dict[str, Stage]:
    """The stages of a Dockerfile by name, each with its instructions (continuation lines joined)."""
    text = re.sub(r"\\\n\s*", " ", dockerfile.read_text())
    found: dict[str, Stage] = {}
    current: Stage | None = None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        instruction, _, arguments = line.strip().partition(" ")
        if instruction.upper() == "FROM":
            base, _, name = arguments.partition(" AS ")
            current = found.setdefault(
                name.strip() or f"stage{len(found)}", Stage(base.strip(), name.strip())
            )
        elif current is not None:
            current.instructions.append((instruction.upper(), arguments.strip()))
    return found


def docker_ignores(path: str) -> bool:
    """Whether `.dockerignore` keeps `path` out of the build context (last matching pattern wins)."""
    excluded = False
    for raw in (REPO_ROOT / ".dockerignore").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        pattern = line.lstrip("!").rstrip("/")
        parents = [path, *(str(parent) for parent in Path(path).parents if str(parent) != ".")]
        if any(fnmatch.fnmatchcase(candidate, pattern) for candidate in parents):
            excluded = not negated
    return excluded


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda path: str(path.relative_to(REPO_ROOT)))
def test_every_base_image_is_pinned_to_a_patch_version_and_a_digest(dockerfile: Path) -> None:
    """The digest is a build argument docker-compose.yml requires from .env (tests/deploy/test_compose.py)."""
    bases = [stage.base for stage in stages(dockerfile).values()]
    external = [base for base in bases if base not in set(stages(dockerfile))]
    declared = re.findall(r"^ARG (\w+)$", dockerfile.read_text().partition("\nFROM ")[0], re.M)

    pinned = [match["digest"] for base in external if (match := PINNED.match(base))]

    assert len(pinned) == len(external), external
    assert sorted(pinned) == sorted(declared)


@pytest.mark.parametrize("target", ["app", "worker"])
def test_the_python_images_run_as_an_unprivileged_user(target: str) -> None:
    stage = stages(REPO_ROOT / "Dockerfile")[target]

    users = stage.arguments("USER")

    assert users, f"{target} sets no USER"
    assert users[-1] not in {"root", "0"}
    assert stage.instructions[-1][0] in {"USER", "EXPOSE"}  # nothing after it runs as root


def _locked(name: str) -> dict[str, str]:
    """A hashed requirement file's packages and versions (every entry holds a sha256: the pattern says so)."""
    text = (LOCKS / name).read_text(encoding="utf-8")
    entries = [line for line in text.splitlines() if line and not line.startswith(("#", " "))]
    locked = {_canonical(match["name"]): match["version"] for match in LOCKED.finditer(text)}
    assert len(locked) == len(entries), f"{name}: an entry without its hash"
    return locked


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pip_commands(stage: Stage) -> list[str]:
    return [part.strip() for run in stage.arguments("RUN") for part in run.split("&&") if "pip " in part]


def test_only_the_worker_installs_the_cuda_build_of_torch() -> None:
    all_stages = stages(REPO_ROOT / "Dockerfile")

    assert _locked("image-app.txt")["torch"] == "2.13.0+cpu"
    assert _locked("image-worker.txt")["torch"] == "2.13.0"
    assert not any(name.startswith("nvidia-") for name in _locked("image-app.txt"))
    assert any(
        "image-app.txt" in command and "whl/cpu" in command for command in _pip_commands(all_stages["app"])
    )
    assert not any("whl/cpu" in command for command in _pip_commands(all_stages["worker"]))


def test_every_pip_install_checks_hashes_or_installs_what_the_build_made() -> None:
    """Packages come from the hashed requirement files; the wheels stage builds hnswlib (no wheel) from its hashed
    source; the project itself is copied in and installed without its dependencies (they are installed already)."""
    commands = [
        command for stage in stages(REPO_ROOT / "Dockerfile").values() for command in _pip_commands(stage)
    ]
    own_build = {"pip install --no-deps /wheels/*.whl", "pip install --no-deps --no-build-isolation ."}

    unchecked = [
        command
        for command in commands
        if command not in own_build
        and not re.search(r"--require-hashes .*-r requirements/image-\w+\.txt", command)
    ]

    assert len(commands) >= 6
    assert unchecked == []


@pytest.mark.parametrize(
    "lock", ["image-app.txt", "image-worker.txt", "image-build.txt", "image-sources.txt"]
)
def test_the_hashed_requirements_agree_with_constraints_txt(lock: str) -> None:
    """`make image-locks` writes them from constraints.txt: a pin changed there and not here fails."""
    pins = {
        _canonical(name): version
        for name, version in (
            line.split("==", 1)
            for line in (REPO_ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")
        )
    }

    locked = _locked(lock)
    disagree = {
        name: (version, pins[name])
        for name, version in locked.items()
        if name in pins and version.split("+")[0] != pins[name]
    }

    assert locked
    assert disagree == {}


def test_every_runtime_dependency_is_in_both_images() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    needed = {
        re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower()
        for requirement in project["dependencies"]
    }
    built = set(_locked("image-sources.txt"))

    for image in ("image-app.txt", "image-worker.txt"):
        assert sorted(needed - set(_locked(image)) - built) == [], image


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda path: str(path.relative_to(REPO_ROOT)))
def test_every_debian_package_is_pinned_to_a_version(dockerfile: Path) -> None:
    installs = [
        part.split("apt-get install", 1)[1].split()
        for stage in stages(dockerfile).values()
        for run in stage.arguments("RUN")
        for part in run.split("&&")
        if "apt-get install" in part
    ]
    packages = [word for words in installs for word in words if not word.startswith("-")]

    assert [package for package in packages if not APT_PACKAGE.match(package)] == []


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda path: str(path.relative_to(REPO_ROOT)))
def test_what_the_images_copy_exists_and_is_in_the_build_context(dockerfile: Path) -> None:
    sources = [
        source
        for stage in stages(dockerfile).values()
        for arguments in stage.arguments("COPY")
        if not arguments.startswith("--from")
        for source in arguments.split()[:-1]
    ]

    missing = [source for source in sources if not (REPO_ROOT / source).exists()]
    ignored = [source for source in sources if docker_ignores(source.rstrip("/"))]

    assert sources
    assert missing == []
    assert ignored == []


@pytest.mark.parametrize(
    "path",
    [
        ".env",
        ".venv/bin/python",
        ".models/BAAI--bge-m3/model.safetensors",
        ".data/vraagbaak.db",
        "tls/key.pem",
    ],
)
def test_secrets_caches_data_and_weights_stay_out_of_the_build_context(path: str) -> None:
    assert docker_ignores(path)


@pytest.mark.parametrize("path", ["api/app.py", "modelstore/cache.py", "frontend/src/main.tsx"])
def test_the_source_is_in_the_build_context(path: str) -> None:
    assert not docker_ignores(path)
