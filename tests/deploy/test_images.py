"""The Dockerfiles: pinned bases, unprivileged Python services, CUDA torch only in the worker, a tight build context."""

import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCKERFILES = [REPO_ROOT / "Dockerfile", REPO_ROOT / "nginx" / "Dockerfile"]
PINNED_TAG = re.compile(r"^[^:@]+:\d+\.\d+\.\d+[-\w.]*$")


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
def test_every_base_image_is_pinned_to_a_patch_version(dockerfile: Path) -> None:
    bases = [stage.base for stage in stages(dockerfile).values()]
    local = set(stages(dockerfile))

    unpinned = [base for base in bases if base not in local and not PINNED_TAG.match(base)]

    assert unpinned == []


@pytest.mark.parametrize("target", ["app", "worker"])
def test_the_python_images_run_as_an_unprivileged_user(target: str) -> None:
    stage = stages(REPO_ROOT / "Dockerfile")[target]

    users = stage.arguments("USER")

    assert users, f"{target} sets no USER"
    assert users[-1] not in {"root", "0"}
    assert stage.instructions[-1][0] in {"USER", "EXPOSE"}  # nothing after it runs as root


def test_only_the_worker_installs_the_cuda_build_of_torch() -> None:
    all_stages = stages(REPO_ROOT / "Dockerfile")
    torch_installs = {
        name: [run for run in stage.arguments("RUN") if "torch==" in run]
        for name, stage in all_stages.items()
    }

    assert torch_installs["worker"] and torch_installs["app"]
    assert all("download.pytorch.org/whl/cpu" in run for run in torch_installs["app"])
    assert not any("whl/cpu" in run for run in torch_installs["worker"])
    assert not torch_installs.get("base")


def test_every_pip_install_uses_the_constraints_file() -> None:
    runs = [run for stage in stages(REPO_ROOT / "Dockerfile").values() for run in stage.arguments("RUN")]

    installs = [part for run in runs for part in run.split("&&") if "pip install" in part]

    assert installs
    assert all("-c constraints.txt" in install for install in installs), installs


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
