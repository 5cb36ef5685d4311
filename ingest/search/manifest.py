"""The embedded index's single source of truth: which segments are live and which documents are deleted.

The manifest is replaced atomically (temporary file, fsync, `os.replace`, fsync of the folder), so a reader
or a process killed at any instant sees one complete generation, never a mixture. Segments that a manifest
no longer names are listed as retired with a timestamp and removed only after a grace period, so a reader
still working on the previous generation is not pulled from under its feet.
"""

import json
import os
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from ingest.search.segment import fsync_folder

MANIFEST_NAME = "manifest.json"
FORMAT_VERSION = 1


class IndexFormatError(RuntimeError):
    """The folder holds something this code cannot read as an embedded index."""


@dataclass(frozen=True)
class SegmentEntry:
    name: str
    deleted: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Manifest:
    generation: int = 0
    embedding_model: str | None = None
    dimension: int | None = None
    segments: tuple[SegmentEntry, ...] = ()
    retired: tuple[tuple[str, float], ...] = field(default=())

    def with_deleted(self, document_ids: frozenset[str], holders: dict[str, set[str]]) -> "Manifest":
        """Mark documents deleted in the segments that hold them (`holders`: segment → its live documents)."""
        segments = tuple(
            replace(entry, deleted=entry.deleted | (document_ids & holders.get(entry.name, set())))
            for entry in self.segments
        )
        return replace(self, segments=segments)

    def retiring(self, names: set[str]) -> "Manifest":
        """Drop segments from the live list, remembering when they went."""
        now = time.time()
        return replace(
            self,
            segments=tuple(entry for entry in self.segments if entry.name not in names),
            retired=self.retired + tuple((name, now) for name in sorted(names)),
        )


def read_manifest(folder: Path) -> Manifest:
    """The current manifest, or an empty one for a new index."""
    path = folder / MANIFEST_NAME
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Manifest()
    except (OSError, ValueError) as error:
        raise IndexFormatError(f"{path} is unreadable: {error}") from error
    if raw.get("format") != FORMAT_VERSION:
        raise IndexFormatError(
            f"{path} has format {raw.get('format')!r}; this version reads {FORMAT_VERSION}"
        )
    return Manifest(
        generation=int(raw["generation"]),
        embedding_model=raw.get("embedding_model"),
        dimension=raw.get("dimension"),
        segments=tuple(SegmentEntry(s["name"], frozenset(s["deleted"])) for s in raw["segments"]),
        retired=tuple((name, float(at)) for name, at in raw["retired"]),
    )


def write_manifest(folder: Path, manifest: Manifest) -> None:
    """Publish a new generation atomically and durably."""
    payload = {
        "format": FORMAT_VERSION,
        "generation": manifest.generation,
        "embedding_model": manifest.embedding_model,
        "dimension": manifest.dimension,
        "segments": [{"name": s.name, "deleted": sorted(s.deleted)} for s in manifest.segments],
        "retired": [[name, at] for name, at in manifest.retired],
    }
    descriptor, temporary = tempfile.mkstemp(prefix=".tmp-manifest-", dir=folder)
    try:
        os.fchmod(descriptor, 0o644)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(payload, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, folder / MANIFEST_NAME)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    fsync_folder(folder)
