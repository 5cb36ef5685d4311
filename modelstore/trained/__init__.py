"""Trained EAGLE heads and generator adapters shipped with the code; `make models` installs them into the cache.

Training a head takes about 15 minutes of CPU here and is not bit-reproducible across machines and thread
counts, so provisioning does not train: each head is committed as a small file (float16 weights, < 5 MB) in
its own folder with `SHA256SUMS` and `training.json`, which records the exact commands, data, vocabulary and
hyperparameters that made it (see docs/speculative-engine.md, "The committed heads"). Provisioning checks the
sums and copies the folder into the cache under the head's name, so `EAGLE_HEAD=vraagbaak/eagle2-gemma-3-270m`
works offline; a cache entry made from older committed files is replaced (its version is the sums' digest).
The LoRA adapters of the generator (`python -m research.adapt`, docs/speculative-engine.md) are committed the same way,
so `GENERATOR_ADAPTER=vraagbaak/lora-gemma-3-270m` works offline too.
"""

import shutil
from pathlib import Path

from modelstore.checksums import SUMS_NAME, file_sha256, first_mismatch, read_sums
from modelstore.errors import ModelProvisioningError

HERE = Path(__file__).resolve().parent

TRAINED_HEADS: dict[str, str] = {
    "vraagbaak/eagle2-gemma-3-270m": "gemma-3-270m",
    "vraagbaak/eagle2-gemma-3-270m-lora": "gemma-3-270m-lora",
    "vraagbaak/eagle2-smollm2-135m-instruct": "smollm2-135m-instruct",
}
TRAINED_ADAPTERS: dict[str, str] = {"vraagbaak/lora-gemma-3-270m": "lora-gemma-3-270m"}
COMMITTED_FOLDERS = TRAINED_HEADS | TRAINED_ADAPTERS


def install_trained_head(name: str, output: Path, work: Path | None = None) -> None:
    """Copy the committed head or adapter `name` into `output` after checking every file against its SHA256SUMS.

    Signature of a model builder (`work` is unused), so the heads provision like the models.
    """
    folder = HERE / COMMITTED_FOLDERS[name]
    sums = read_sums(folder / SUMS_NAME)
    mismatch = first_mismatch(folder, sums)
    if mismatch is not None:
        raise ModelProvisioningError(
            f"the committed file set {name}: {mismatch} is missing or does not match {SUMS_NAME}; "
            f"restore it with `git checkout -- {folder}`"
        )
    for relative in sums:
        shutil.copy(folder / relative, output / relative)
    shutil.copy(folder / SUMS_NAME, output / SUMS_NAME)  # an adapter is checked against its sums when served


def committed_head_version(name: str) -> str:
    """The digest of the head's (or adapter's) SHA256SUMS: it changes whenever a committed file does."""
    return file_sha256(HERE / COMMITTED_FOLDERS[name] / SUMS_NAME)
