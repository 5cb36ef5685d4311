"""The adapter on disk: written whole or not at all, checked against its sums and its base model before use.

An adapter folder holds peft's `adapter_model.safetensors` and `adapter_config.json`, `training.json` (the exact
command, data hash, split, steps, losses, and the base model's name and weights digest) and `SHA256SUMS` over
those three. Serving refuses an adapter whose files do not match their sums or whose base model is not the one
it is loaded onto: LoRA deltas applied to other weights give a different model without any error.
"""

import errno
import hashlib
import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from modelstore.cache import read_manifest
from modelstore.checksums import SUMS_NAME, SumsError, file_sha256, first_mismatch, read_sums

TRAINING_NAME = "training.json"
ADAPTER_FILES = ("adapter_model.safetensors", "adapter_config.json", TRAINING_NAME)
WEIGHT_SUFFIX = ".safetensors"
# Files peft or torch would load as weights; each must be listed in the sums.
WEIGHT_FILE_SUFFIXES = frozenset({".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".pkl"})


class AdapterError(ValueError):
    """The adapter cannot be used: files missing or changed, or trained on another base model."""


def base_weights_digest(folder: Path) -> str:
    """One digest over the model folder's weight files: from its cache manifest when it has one (hashed at
    provisioning), else by hashing the files."""
    if not folder.is_dir():
        raise AdapterError(f"the base model {folder} is not a local folder: its weights cannot be checked")
    manifest = read_manifest(folder)
    weights = sorted(path for path in folder.iterdir() if path.name.endswith(WEIGHT_SUFFIX))
    if not weights:
        raise AdapterError(f"{folder} holds no {WEIGHT_SUFFIX} weights to identify the base model by")
    records = manifest.files if manifest is not None else {}
    lines = [
        f"{path.name} {records[path.name].sha256 if path.name in records else file_sha256(path)}"
        for path in weights
    ]
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def save_adapter(output: Path, write_files: Callable[[Path], None], training: dict[str, Any]) -> None:
    """Write an adapter folder through a temporary sibling, then swap it in: a failure (a full disk) leaves the
    previous adapter at `output` as it was and no half-written folder behind."""
    output.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{output.name}.tmp-", dir=output.parent))
    try:
        write_files(staging)
        (staging / TRAINING_NAME).write_text(json.dumps(training, indent=2) + "\n", encoding="utf-8")
        sums = "".join(f"{file_sha256(staging / name)}  {name}\n" for name in ADAPTER_FILES)
        (staging / SUMS_NAME).write_text(sums, encoding="utf-8")
        _make_readable(staging)
        _swap_in(staging, output)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        if error.errno == errno.ENOSPC:
            raise AdapterError(
                f"the disk is full while saving the adapter to {output}; the previous adapter there is intact"
            ) from error
        raise


def _make_readable(folder: Path) -> None:
    """A temporary folder and peft's files are private to the owner; the adapter is an ordinary artefact."""
    folder.chmod(0o755)
    for path in folder.iterdir():
        path.chmod(0o644)


def _swap_in(staging: Path, output: Path) -> None:
    old = output.with_name(f".{output.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if output.exists():
        output.rename(old)
    staging.rename(output)
    shutil.rmtree(old, ignore_errors=True)


def verified_training(folder: Path, base_name: str, base_folder: Path) -> dict[str, Any]:
    """The adapter's training record after checking its files against SHA256SUMS and its base model against
    the one given; AdapterError says what does not match."""
    training = checked_record(folder, base_name)
    base = training["base_model"]
    digest = base_weights_digest(base_folder)
    if base.get("weights_sha256") != digest:
        raise AdapterError(
            f"the adapter {folder} was trained on other weights of {base_name} "
            f"({base.get('weights_sha256')} in {TRAINING_NAME}, {digest} in {base_folder})"
        )
    return training


def checked_record(folder: Path, base_name: str) -> dict[str, Any]:
    """The training record of an adapter whose files match SHA256SUMS and that was trained on `base_name`: what
    can be checked before the base model is found. Every file `save_adapter` writes and every weight file in the
    folder must be listed (peft would load an unlisted `adapter_model.bin` or a weights file the sums skip)."""
    listed = _read_sums(folder)
    weights = {path.name for path in folder.iterdir() if path.suffix in WEIGHT_FILE_SUFFIXES}
    for name in sorted(set(ADAPTER_FILES) | weights):
        if name not in listed:
            raise AdapterError(f"the adapter file {folder / name} is not listed in {SUMS_NAME}")
    mismatch = first_mismatch(folder, listed)
    if mismatch is not None:
        raise AdapterError(f"the adapter file {mismatch} is missing or does not match {SUMS_NAME}")
    training: dict[str, Any] = json.loads((folder / TRAINING_NAME).read_text(encoding="utf-8"))
    base = training.get("base_model", {})
    if base.get("name") != base_name:
        raise AdapterError(
            f"the adapter {folder} was trained on {base.get('name')!r}, not on GENERATOR_MODEL={base_name!r}"
        )
    return training


def _read_sums(folder: Path) -> dict[str, str]:
    """SHA256SUMS as file name → digest; each line `<64 hex digits>  <name in this folder>`."""
    sums_path = folder / SUMS_NAME
    if not sums_path.is_file():
        raise AdapterError(f"the adapter {folder} has no {SUMS_NAME}")
    try:
        return read_sums(sums_path)
    except SumsError as error:
        raise AdapterError(str(error)) from None
