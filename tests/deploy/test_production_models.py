"""Production models: `python -m modelstore fetch` fills the model cache and verifies what it put there, and a
service configured with a model that is nowhere stops at start with a message naming it.

No hub is reachable here, so the models are brought in a folder, in each layout people copy models in; the source
is a real model (all-MiniLM-L6-v2 from the offline cache), loaded and used after the copy. The download path runs
the same installation and verification; here only its refusal to start with the hub off can be shown.
"""

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from sentence_transformers import SentenceTransformer

from modelstore.cache import MANIFEST_NAME, folder_name, is_complete
from modelstore.production import ModelUnavailable, require_model
from modelstore.provision import provision
from modelstore.registry import ALL_MINILM_L6_V2, REGISTRY

REPO_ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_NAME = "BAAI/bge-m3"  # stands in for the production embedder: a name the offline cache never has


@pytest.fixture(scope="module")
def real_model() -> Path:
    """A real Hugging Face folder (all-MiniLM-L6-v2 from the offline model cache), without its manifest."""
    cache = Path(os.environ.get("MODEL_CACHE", REPO_ROOT / ".models")).resolve()
    provision([REGISTRY[ALL_MINILM_L6_V2]], cache)
    return cache / folder_name(ALL_MINILM_L6_V2)


def _plain_copy(model: Path, folder: Path) -> None:
    shutil.copytree(model, folder, ignore=shutil.ignore_patterns(MANIFEST_NAME))


def owner_slash_name(model: Path, source: Path) -> None:
    """`hf download BAAI/bge-m3 --local-dir source/BAAI/bge-m3`, or a git clone."""
    _plain_copy(model, source / PRODUCTION_NAME)


def model_cache_entry(model: Path, source: Path) -> None:
    """Another machine's model cache (`fetch` run there), copied over."""
    _plain_copy(model, source / folder_name(PRODUCTION_NAME))


def hub_cache(model: Path, source: Path) -> None:
    """A Hugging Face hub cache: snapshot files are symlinks into blobs/."""
    repository = source / f"models--{folder_name(PRODUCTION_NAME)}"
    snapshot = repository / "snapshots" / "0123456789abcdef"
    (repository / "blobs").mkdir(parents=True)
    for path in sorted(model.rglob("*")):
        if path.is_file() and path.name != MANIFEST_NAME:
            blob = repository / "blobs" / f"{len(list((repository / 'blobs').iterdir())):04d}"
            shutil.copy(path, blob)
            link = snapshot / path.relative_to(model)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(os.path.relpath(blob, link.parent))


def fetch(source: Path, cache: Path, *names: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "modelstore",
            "fetch",
            "--from",
            str(source),
            "--cache",
            str(cache),
            "--models",
            *names,
        ],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        timeout=300,
    )


@pytest.mark.parametrize("layout", [owner_slash_name, model_cache_entry, hub_cache])
def test_fetch_from_a_folder_installs_a_verified_model_that_loads_from_the_cache(
    real_model: Path, tmp_path: Path, layout: Callable[[Path, Path], None]
) -> None:
    source, cache = tmp_path / "brought", tmp_path / "models"
    layout(real_model, source)

    result = fetch(source, cache, PRODUCTION_NAME)

    assert result.returncode == 0, result.stderr
    entry = cache / folder_name(PRODUCTION_NAME)
    assert is_complete(entry, verify_checksums=True)
    assert not any(path.is_symlink() for path in entry.rglob("*"))
    loaded = SentenceTransformer(require_model(PRODUCTION_NAME, cache, "EMBEDDING_MODEL"), device="cpu")
    assert loaded.encode(["Koorts bij kinderen"]).shape == (1, 384)


def test_a_second_fetch_verifies_and_keeps_what_is_there(real_model: Path, tmp_path: Path) -> None:
    source, cache = tmp_path / "brought", tmp_path / "models"
    owner_slash_name(real_model, source)
    fetch(source, cache, PRODUCTION_NAME)
    manifest = (cache / folder_name(PRODUCTION_NAME) / MANIFEST_NAME).stat().st_mtime_ns

    again = fetch(source, cache, PRODUCTION_NAME)

    assert again.returncode == 0, again.stderr
    assert "already in the cache, verified" in again.stdout
    assert (cache / folder_name(PRODUCTION_NAME) / MANIFEST_NAME).stat().st_mtime_ns == manifest


def test_a_truncated_weights_file_is_refused_and_nothing_is_installed(
    real_model: Path, tmp_path: Path
) -> None:
    source, cache = tmp_path / "brought", tmp_path / "models"
    owner_slash_name(real_model, source)
    weights = source / PRODUCTION_NAME / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])

    result = fetch(source, cache, PRODUCTION_NAME)

    assert result.returncode == 1
    assert "model.safetensors is truncated" in result.stderr
    assert PRODUCTION_NAME in result.stderr
    assert not (cache / folder_name(PRODUCTION_NAME)).exists()
    assert not any(cache.glob(".tmp-*"))


def test_a_folder_without_weights_is_refused(real_model: Path, tmp_path: Path) -> None:
    source, cache = tmp_path / "brought", tmp_path / "models"
    owner_slash_name(real_model, source)
    (source / PRODUCTION_NAME / "model.safetensors").unlink()

    result = fetch(source, cache, PRODUCTION_NAME)

    assert result.returncode == 1
    assert "no weights" in result.stderr


def test_a_model_missing_from_the_folder_is_named_with_the_places_looked(tmp_path: Path) -> None:
    (tmp_path / "brought").mkdir()

    result = fetch(tmp_path / "brought", tmp_path / "models", "meta-llama/Meta-Llama-3-8B-Instruct")

    assert result.returncode == 1
    assert "'meta-llama/Meta-Llama-3-8B-Instruct' is not in" in result.stderr
    assert "meta-llama--Meta-Llama-3-8B-Instruct" in result.stderr


def test_downloading_with_the_hub_off_says_so(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "modelstore",
            "fetch",
            "--cache",
            str(tmp_path),
            "--models",
            PRODUCTION_NAME,
        ],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        timeout=120,
    )

    assert result.returncode == 1
    assert "the hub is off (HF_HUB_OFFLINE=1)" in result.stderr
    assert "--from FOLDER" in result.stderr


def test_a_model_found_nowhere_is_named_with_its_setting_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable) as raised:
        require_model(PRODUCTION_NAME, tmp_path, "EMBEDDING_MODEL")

    message = str(raised.value)
    assert message.startswith("EMBEDDING_MODEL='BAAI/bge-m3' cannot be loaded")
    assert str(tmp_path) in message
    assert "python -m modelstore fetch" in message


def test_a_configured_folder_that_does_not_exist_is_named(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match="the folder /srv/models/llama does not exist"):
        require_model("/srv/models/llama", tmp_path, "GENERATOR_MODEL")


def test_a_model_in_the_hugging_face_cache_is_loaded_from_there(
    real_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    hub_cache(real_model, tmp_path / "hub")
    (tmp_path / "hub" / f"models--{folder_name(PRODUCTION_NAME)}" / "refs").mkdir()
    (tmp_path / "hub" / f"models--{folder_name(PRODUCTION_NAME)}" / "refs" / "main").write_text(
        "0123456789abcdef"
    )
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))

    assert require_model(PRODUCTION_NAME, tmp_path / "models", "EMBEDDING_MODEL") == PRODUCTION_NAME


def _start(command: list[str], environment: dict[str, str], folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=folder,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "MODEL_CACHE": str(folder / "models"), **environment},
        timeout=300,
    )


@pytest.mark.parametrize(
    ("command", "settings", "named"),
    [
        (["-m", "api"], {"EMBEDDING_MODEL": PRODUCTION_NAME}, "EMBEDDING_MODEL='BAAI/bge-m3'"),
        (["-m", "ingest.worker"], {"EMBEDDING_MODEL": PRODUCTION_NAME}, "EMBEDDING_MODEL='BAAI/bge-m3'"),
        (
            ["-m", "speculative.worker"],
            {
                "GENERATOR_MODEL": "meta-llama/Meta-Llama-3-8B-Instruct",
                "EAGLE_HEAD": "yuhuili/EAGLE-LLaMA3-Instruct-8B",
            },
            "GENERATOR_MODEL='meta-llama/Meta-Llama-3-8B-Instruct'",
        ),
    ],
    ids=["api", "ingest", "worker"],
)
def test_each_service_stops_at_start_naming_the_missing_model(
    tmp_path: Path, command: list[str], settings: dict[str, str], named: str
) -> None:
    result = _start(
        [sys.executable, *command],
        {
            **settings,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite'}",
            "INDEX_DIR": str(tmp_path / "index"),
        },
        tmp_path,
    )

    assert result.returncode == 1
    assert f"error: {named} cannot be loaded" in result.stderr
    assert "Traceback" not in result.stderr
    if "EAGLE_HEAD" in settings:
        assert "error: EAGLE_HEAD='yuhuili/EAGLE-LLaMA3-Instruct-8B' cannot be loaded" in result.stderr


def test_check_names_each_missing_model_and_fails(tmp_path: Path) -> None:
    result = _start(
        [sys.executable, "-m", "modelstore", "check"],
        {
            "EMBEDDING_MODEL": PRODUCTION_NAME,
            "RERANKER_MODEL": "BAAI/bge-reranker-v2-m3",
            "GENERATOR_MODEL": "meta-llama/Meta-Llama-3-8B-Instruct",
        },
        tmp_path,
    )

    assert result.returncode == 1
    assert "EMBEDDING_MODEL='BAAI/bge-m3' cannot be loaded" in result.stdout
    assert "RERANKER_MODEL='BAAI/bge-reranker-v2-m3' cannot be loaded" in result.stdout
    assert "GENERATOR_MODEL='meta-llama/Meta-Llama-3-8B-Instruct' cannot be loaded" in result.stdout
