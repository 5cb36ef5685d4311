"""Extracted features on disk: shards of (token ids, target features) and a manifest that makes runs resumable.

A shard is one safetensors file with `tokens` (int32 `[T]`), `features` (float16 `[T, H]`, the target's post-norm
hidden states) and `lengths` (int32 `[S]`, the sequences it holds, concatenated). It is written to a temporary
name and renamed, and only then recorded in `manifest.json` (also replaced atomically), so an interrupted run
loses at most the sequences of the shard it was filling, and resuming skips every sequence the manifest lists.
"""

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

MANIFEST_NAME = "manifest.json"
SHARD_DIR = "shards"
FEATURE_DTYPE = torch.float16


class ShardStoreError(ValueError):
    """The feature folder belongs to another target or is damaged."""


@dataclass
class Manifest:
    """What a feature folder holds: the target it came from, its shards and the counts of the summary."""

    target: str
    hidden_size: int
    vocab_size: int
    max_length: int
    shards: list[dict[str, object]] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    truncated: int = 0
    truncated_tokens: int = 0
    answers: dict[str, list[int]] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return sum(int(str(shard["tokens"])) for shard in self.shards)


@dataclass(frozen=True)
class Sequence:
    """One extracted sequence: its token ids `[T]` and the target's features `[T, H]`."""

    tokens: torch.Tensor
    features: torch.Tensor


class ShardWriter:
    """Buffers extracted sequences and writes a shard whenever `shard_tokens` tokens have accumulated."""

    def __init__(self, folder: Path, manifest: Manifest, shard_tokens: int) -> None:
        self.folder = folder
        self.manifest = manifest
        self.shard_tokens = shard_tokens
        self._pending: list[tuple[str, Sequence]] = []
        (folder / SHARD_DIR).mkdir(parents=True, exist_ok=True)

    def add(self, source_id: str, sequence: Sequence) -> None:
        self._pending.append((source_id, sequence))
        if sum(len(item.tokens) for _, item in self._pending) >= self.shard_tokens:
            self.flush()

    def flush(self) -> None:
        """Write the buffered sequences as one shard and record them as done."""
        if not self._pending:
            self.save_manifest()
            return
        name = f"{SHARD_DIR}/shard-{len(self.manifest.shards):05d}.safetensors"
        tensors = {
            "tokens": torch.cat([item.tokens for _, item in self._pending]).to(torch.int32),
            "features": torch.cat([item.features for _, item in self._pending]).to(FEATURE_DTYPE),
            "lengths": torch.tensor([len(item.tokens) for _, item in self._pending], dtype=torch.int32),
        }
        temporary = self.folder / (name + ".tmp")
        save_file(tensors, str(temporary))
        os.replace(temporary, self.folder / name)
        self.manifest.shards.append({"file": name, "tokens": int(tensors["tokens"].numel())})
        self.manifest.done.extend(source_id for source_id, _ in self._pending)
        self._pending = []
        self.save_manifest()

    def save_manifest(self) -> None:
        save_manifest(self.folder, self.manifest)


def save_manifest(folder: Path, manifest: Manifest) -> None:
    write_json(folder / MANIFEST_NAME, asdict(manifest))


def open_manifest(folder: Path, target: str, hidden_size: int, vocab_size: int, max_length: int) -> Manifest:
    """The folder's manifest to resume, or a new one; refuses a folder made for another target or length."""
    path = folder / MANIFEST_NAME
    if not path.is_file():
        return Manifest(target, hidden_size, vocab_size, max_length)
    manifest = read_manifest(folder)
    found = (manifest.target, manifest.hidden_size, manifest.vocab_size, manifest.max_length)
    if found != (target, hidden_size, vocab_size, max_length):
        raise ShardStoreError(
            f"{folder} holds features of target {found[0]} (hidden {found[1]}, vocabulary {found[2]}, max "
            f"length {found[3]}); this run is for {target} (hidden {hidden_size}, vocabulary {vocab_size}, "
            f"max length {max_length}): use another folder"
        )
    return manifest


def read_manifest(folder: Path) -> Manifest:
    path = folder / MANIFEST_NAME
    try:
        return Manifest(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError) as error:
        raise ShardStoreError(f"{path} is missing or not a feature manifest: {error}") from error


def check_target(folders: Iterable[Path], target: str) -> None:
    """A head learns the features of one target: refuse feature folders extracted from another (e.g. the plain
    model's for a head of the adapted one)."""
    for folder in folders:
        found = read_manifest(folder).target
        if found != target:
            raise ShardStoreError(
                f"{folder} holds features of target {found}; this head is for {target} (--model, --adapter)"
            )


def read_sequences(folder: Path) -> Iterator[Sequence]:
    """Every recorded sequence of a feature folder, shard by shard."""
    for shard in read_manifest(folder).shards:
        tensors = load_file(str(folder / str(shard["file"])))
        lengths = tensors["lengths"].tolist()
        tokens = tensors["tokens"].long().split(lengths)
        features = tensors["features"].split(lengths)
        for sequence_tokens, sequence_features in zip(tokens, features, strict=True):
            yield Sequence(sequence_tokens, sequence_features)


def write_json(path: Path, data: object) -> None:
    """Replace `path` atomically with `data` as indented JSON."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(temporary, path)
