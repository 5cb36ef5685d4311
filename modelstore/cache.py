"""The offline model cache and the one resolver that turns a model name into something `from_pretrained` loads.

A cache entry is a normal Hugging Face folder plus `manifest.json`, written last, which lists the source
packages and versions, the converter version, and the size and sha256 of every file. Entries are converted
in a `.tmp-*` folder inside the cache and renamed into place, so a reader sees either a complete entry or
none. A folder without a valid manifest, or whose files do not have the recorded sizes, is never used.

Checksums: sizes are checked on every resolve (a few `stat` calls, which catch truncation and a missing
file); sha256 is checked only on request (`provision --verify`), because hashing the 1 GB Gemma folder at
every start would cost seconds.
"""

import fcntl
import json
import logging
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from modelstore.checksums import file_sha256

MANIFEST_NAME = "manifest.json"
TEMP_PREFIX = ".tmp-"
_LOCK_NAME = ".lock"
_MODEL_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*(/[A-Za-z0-9_-][A-Za-z0-9_.-]*)?")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FileRecord:
    size: int
    sha256: str


@dataclass(frozen=True)
class Manifest:
    """What a cache entry was built from, and what it must contain."""

    model: str
    sources: dict[str, str]
    converter_version: int
    files: dict[str, FileRecord]


@dataclass(frozen=True)
class Staging:
    """Where a converter writes: `model` becomes the cache entry, `work` is scratch space thrown away."""

    model: Path
    work: Path


def folder_name(name: str) -> str:
    """The cache folder of a model name: `google/gemma-3-270m` → `google--gemma-3-270m`."""
    if not _is_model_name(name):
        raise ValueError(f"not a model name: {name!r} (expected 'owner/model' or 'model')")
    return name.replace("/", "--")


def resolve_model(name: str, cache_dir: Path) -> str:
    """The folder or name to load `name` from: a complete cache entry first, else `name` unchanged.

    Unchanged, a local folder loads as itself and a hub name loads the normal Hugging Face way (hub or a
    mounted HF cache, as in production); with `HF_HUB_OFFLINE=1` the latter fails loudly instead of
    reaching the network. A half-written or damaged cache entry is never returned.
    """
    if not _is_model_name(name):
        return name
    entry = cache_dir / folder_name(name)
    if is_complete(entry):
        return str(entry)
    if entry.exists():
        log.warning("ignoring %s: incomplete or damaged cache entry (run `make models`)", entry)
    return name


def is_complete(folder: Path, verify_checksums: bool = False) -> bool:
    """Whether `folder` holds a valid manifest and every file it lists with the recorded size (and hash)."""
    manifest = read_manifest(folder)
    if manifest is None or not manifest.files:
        return False
    return all(
        _file_matches(folder / relative, record, verify_checksums)
        for relative, record in manifest.files.items()
    )


def read_manifest(folder: Path) -> Manifest | None:
    """The manifest of a cache entry, or None when it is absent or malformed."""
    try:
        raw = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
        return Manifest(
            model=str(raw["model"]),
            sources={str(name): str(version) for name, version in raw["sources"].items()},
            converter_version=int(raw["converter_version"]),
            files={
                str(relative): FileRecord(size=int(record["size"]), sha256=str(record["sha256"]))
                for relative, record in raw["files"].items()
            },
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def remove_stale_temp_folders(cache_dir: Path) -> list[Path]:
    """Delete `.tmp-*` leftovers of conversions that were killed; call only while holding `cache_lock`."""
    stale = sorted(path for path in cache_dir.glob(f"{TEMP_PREFIX}*") if path.is_dir())
    for path in stale:
        log.info("removing stale temporary folder %s", path)
        shutil.rmtree(path)
    return stale


@contextmanager
def cache_lock(cache_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on the cache so two provisioning runs never touch each other's folders."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    with (cache_dir / _LOCK_NAME).open("a") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)


@contextmanager
def install_atomically(
    name: str, cache_dir: Path, sources: Mapping[str, str], converter_version: int
) -> Iterator[Staging]:
    """Give a converter an empty staging folder; on success write the manifest and rename it into place.

    On any exception the staging folder is deleted and the previous entry (if any) is left untouched.
    """
    target = cache_dir / folder_name(name)
    staging_root = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{target.name}-", dir=cache_dir))
    try:
        staging = Staging(model=staging_root / "model", work=staging_root / "work")
        staging.model.mkdir()
        staging.work.mkdir()
        yield staging
        shutil.rmtree(staging.work)
        _make_readable(staging.model)
        write_manifest(
            staging.model, Manifest(name, dict(sources), converter_version, hash_files(staging.model))
        )
        _replace_folder(staging.model, target, staging_root)
    finally:
        shutil.rmtree(staging_root, ignore_errors=True)


def hash_files(folder: Path) -> dict[str, FileRecord]:
    """Size and sha256 of every file below `folder` (the manifest itself excluded), by relative path."""
    return {
        path.relative_to(folder).as_posix(): FileRecord(size=path.stat().st_size, sha256=file_sha256(path))
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != MANIFEST_NAME
    }


def write_manifest(folder: Path, manifest: Manifest) -> None:
    """Write the manifest through a temporary file so that it is either absent or whole."""
    partial = folder / f"{MANIFEST_NAME}.partial"
    partial.write_text(json.dumps(asdict(manifest), indent=2, sort_keys=True), encoding="utf-8")
    partial.replace(folder / MANIFEST_NAME)


def _make_readable(folder: Path) -> None:
    """Some writers create files as 0600; the cache is shared with services running as other users."""
    for path in folder.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)


def _replace_folder(new: Path, target: Path, staging_root: Path) -> None:
    """Move `new` to `target`; an existing `target` is first moved aside into the staging root (deleted later)."""
    if target.exists():
        target.rename(staging_root / "previous")
    new.rename(target)


def _is_model_name(name: str) -> bool:
    """Hub-style names (`owner/model`) have a cache entry; paths (`./x`, `/srv/models/x`) never do."""
    return _MODEL_NAME.fullmatch(name) is not None and ".." not in name


def _file_matches(path: Path, record: FileRecord, verify_checksum: bool) -> bool:
    try:
        if path.stat().st_size != record.size:
            return False
    except OSError:
        return False
    return not verify_checksum or file_sha256(path) == record.sha256
