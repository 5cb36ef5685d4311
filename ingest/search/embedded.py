"""The embedded hybrid index: Weaviate's hybrid semantics on local files, no server.

Layout of the folder: `manifest.json` (the live generation), `segments/<name>/` (immutable, memory-mapped,
see `segment.py`), `.write.lock`. Every write (a document put, a delete) creates at most one new segment,
then publishes a new manifest in one atomic rename: a document's new chunks and the removal of the version
it replaces become visible together, and a process killed at any point leaves the previous generation
intact (a half-written segment is an unreferenced temporary folder, swept by the next writer).

Matrix-vector products run on one BLAS thread: on a busy two-core machine a multi-threaded product spends
more time waiting for the other core than computing (measured: 3× slower under load).

Small segments are merged by size tier (like an LSM tree) inside the same commit, so the number of segments
stays logarithmic in the corpus and a query touches few of them. Writers take an exclusive file lock;
readers never lock: they reload when the manifest changes and reuse segments they already mapped.
"""

import fcntl
import logging
import math
import shutil
import threading
import time
import uuid
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from threadpoolctl import ThreadpoolController

from ingest.search.bm25 import CorpusStats, bm25_scores
from ingest.search.fusion import relative_score_fusion
from ingest.search.manifest import (
    MANIFEST_NAME,
    IndexFormatError,
    Manifest,
    SegmentEntry,
    read_manifest,
    write_manifest,
)
from ingest.search.segment import (
    Segment,
    SegmentData,
    data_from_records,
    fsync_folder,
    merged_data,
    write_segment,
)
from ingest.search.tokens import query_terms
from ingest.search.types import (
    DEFAULT_POOL,
    ChunkRecord,
    EmbedderMismatch,
    IndexStats,
    MissingIndex,
    SearchFilter,
    SearchHit,
    check_hybrid_arguments,
)
from ingest.search.vectors import nearest

log = logging.getLogger(__name__)

SEGMENTS = "segments"
TEMPORARY_PREFIX = ".tmp-"
MERGE_FACTOR = 8
EXPUNGE_DELETED_SHARE = 0.3
RETIRED_GRACE_SECONDS = 120.0
_FILTER_CACHE_SIZE = 64

Key = tuple[int, int]


@dataclass
class _View:
    """One generation as readers see it: the live segments, which of their rows are alive, corpus stats."""

    manifest: Manifest
    stamp: tuple[int, int, int]
    segments: list[Segment]
    alive: list[NDArray[np.bool_] | None]
    _filter_masks: dict[SearchFilter, list[NDArray[np.bool_] | None]] = field(default_factory=dict)

    @cached_property
    def stats(self) -> CorpusStats:
        live = sum(
            segment.row_count if mask is None else int(mask.sum()) for segment, mask in self._alive_pairs
        )
        length = sum(
            int(segment.lengths.sum() if mask is None else segment.lengths[mask].sum())
            for segment, mask in self._alive_pairs
        )
        return CorpusStats(live_chunks=live, average_length=length / live if live else 1.0)

    @property
    def _alive_pairs(self) -> list[tuple[Segment, NDArray[np.bool_] | None]]:
        return list(zip(self.segments, self.alive, strict=True))

    @cached_property
    def documents(self) -> dict[str, tuple[int, range]]:
        """Live document id → (segment position, rows)."""
        live: dict[str, tuple[int, range]] = {}
        for position, (segment, entry) in enumerate(zip(self.segments, self.manifest.segments, strict=True)):
            for document in segment.documents:
                if document.id not in entry.deleted:
                    live[document.id] = (position, document.rows)
        return live

    def candidates(self, filters: SearchFilter | None) -> list[NDArray[np.bool_] | None]:
        """Per segment, the rows a query may return (alive and accepted by the filter); None = every row."""
        if filters is None:
            return self.alive
        masks: list[NDArray[np.bool_] | None] | None = self._filter_masks.get(filters)
        if masks is None:
            masks = [self._filtered(position, filters) for position in range(len(self.segments))]
            if len(self._filter_masks) >= _FILTER_CACHE_SIZE:
                self._filter_masks.clear()
            self._filter_masks[filters] = masks
        return masks

    def _filtered(self, position: int, filters: SearchFilter) -> NDArray[np.bool_]:
        segment, entry = self.segments[position], self.manifest.segments[position]
        mask = np.zeros(segment.row_count, dtype=bool)
        for document in segment.documents:
            if document.id not in entry.deleted and filters.accepts(
                document.id, document.audiences, document.departments
            ):
                mask[document.first_row : document.first_row + document.row_count] = True
        return mask


class EmbeddedIndex:
    """A `SearchIndex` in a local folder; `embedding_model` guards against mixing embedders in one index.

    With `create=False` (read-only commands) a missing folder is refused with `MissingIndex`.
    """

    def __init__(self, folder: Path, embedding_model: str | None = None, *, create: bool = True) -> None:
        if not create and not folder.is_dir():
            raise MissingIndex(
                f"no search index in {folder} (INDEX_DIR): check the setting, or build one with "
                "`python -m ingest run FOLDER`"
            )
        self.folder = folder
        self.embedding_model = embedding_model
        (folder / SEGMENTS).mkdir(parents=True, exist_ok=True)
        self._segments: dict[str, Segment] = {}
        self._view: _View | None = None
        self._reload = threading.Lock()
        self._write = threading.Lock()

    # ------------------------------------------------------------------ writing

    def put_document(
        self, chunks: Sequence[ChunkRecord], vectors: NDArray[np.float32], replaces: Collection[str] = ()
    ) -> None:
        document_id = _single_document(chunks)
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(chunks):
            raise ValueError(f"expected {len(chunks)} vectors, got an array of shape {vectors.shape}")
        data = data_from_records(chunks, vectors)
        with self._writer() as manifest:
            manifest = self._checked_model(manifest, vectors.shape[1])
            name = self._write_new_segment(data, manifest.generation + 1)
            manifest = manifest.with_deleted(frozenset({document_id, *replaces}), self._holders(manifest))
            manifest = replace(manifest, segments=(*manifest.segments, SegmentEntry(name)))
            self._commit(manifest)

    def delete_documents(self, document_ids: Collection[str]) -> None:
        if not document_ids:
            return
        with self._writer() as manifest:
            self._commit(manifest.with_deleted(frozenset(document_ids), self._holders(manifest)))

    @contextmanager
    def writes_held(self) -> Iterator[None]:
        """Hold off every writer of this folder (threads and processes) until the block ends."""
        with self._writer():
            yield

    @contextmanager
    def _writer(self) -> Iterator[Manifest]:
        """Exclusive across threads and processes; yields the latest manifest, sweeps crash leftovers."""
        with self._write, (self.folder / ".write.lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                manifest = read_manifest(self.folder)
                self._sweep(manifest)
                yield manifest
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def built_with(self) -> str | None:
        """The embedding model whose vectors the index holds (None: empty, or built before indexes recorded it)."""
        return self._current().manifest.embedding_model

    def _check_embedder(self, manifest: Manifest) -> None:
        if (
            self.embedding_model
            and manifest.embedding_model
            and manifest.embedding_model != self.embedding_model
        ):
            raise EmbedderMismatch(str(self.folder), manifest.embedding_model, self.embedding_model)

    def _checked_model(self, manifest: Manifest, dimension: int) -> Manifest:
        if manifest.dimension is None:
            return replace(manifest, dimension=dimension, embedding_model=self.embedding_model)
        self._check_embedder(manifest)
        if manifest.dimension != dimension:
            raise ValueError(
                f"the index in {self.folder} holds {manifest.dimension}-dim vectors of {manifest.embedding_model!r}; "
                f"these are {dimension}-dim vectors of {self.embedding_model!r}: use another INDEX_DIR or re-ingest"
            )
        return manifest

    def _write_new_segment(self, data: SegmentData, generation: int) -> str:
        """Write into a temporary folder, then rename into place (a crash leaves only the temporary)."""
        name = f"{generation:010d}-{uuid.uuid4().hex[:8]}"
        segments = self.folder / SEGMENTS
        temporary = segments / f"{TEMPORARY_PREFIX}{name}"
        write_segment(data, temporary)
        temporary.rename(segments / name)
        fsync_folder(segments)
        return name

    def _holders(self, manifest: Manifest) -> dict[str, set[str]]:
        return {
            entry.name: set(self._segment(entry.name).by_document) - entry.deleted
            for entry in manifest.segments
        }

    def _commit(self, manifest: Manifest) -> None:
        """Publish the next generation (after merging), forgetting retired segments past their grace period."""
        now = time.time()
        recent = tuple((name, at) for name, at in manifest.retired if now - at < RETIRED_GRACE_SECONDS)
        manifest = self._merged(replace(manifest, generation=manifest.generation + 1, retired=recent))
        write_manifest(self.folder, manifest)
        self._keep_only(manifest)

    def _merged(self, manifest: Manifest) -> Manifest:
        """Merge a full size tier into one segment, expunge segments that are mostly deleted, drop empty ones."""
        live = {entry.name: self._live_rows(entry.name, entry.deleted) for entry in manifest.segments}
        empty = {name for name, rows in live.items() if len(rows) == 0}
        if empty:
            manifest = manifest.retiring(empty)
        group = self._merge_group(manifest, live)
        if not group:
            return manifest
        parts = [(self._segment(name), live[name]) for name in group]
        name = self._write_new_segment(merged_data(parts), manifest.generation)
        merged = manifest.retiring(set(group))
        log.debug("merged %d segments (%d chunks) into %s", len(group), sum(len(r) for _, r in parts), name)
        return self._merged(replace(merged, segments=(*merged.segments, SegmentEntry(name))))

    def _merge_group(self, manifest: Manifest, live: dict[str, NDArray[np.int64]]) -> list[str]:
        tiers: dict[int, list[str]] = {}
        for entry in manifest.segments:
            rows = len(live[entry.name])
            total = self._segment(entry.name).row_count
            if rows and rows < total * (1 - EXPUNGE_DELETED_SHARE):
                return [entry.name]
            if rows:
                tiers.setdefault(int(math.log(rows, MERGE_FACTOR)), []).append(entry.name)
        full = [names for names in tiers.values() if len(names) >= MERGE_FACTOR]
        return full[0] if full else []

    def _live_rows(self, name: str, deleted: frozenset[str]) -> NDArray[np.int64]:
        segment = self._segment(name)
        ranges = [
            np.arange(d.first_row, d.first_row + d.row_count)
            for d in segment.documents
            if d.id not in deleted
        ]
        return np.concatenate(ranges).astype(np.int64) if ranges else np.zeros(0, dtype=np.int64)

    def _sweep(self, manifest: Manifest) -> None:
        """Remove what no reader can need: crashed temporaries, unpublished segments, retired ones past grace."""
        segments = self.folder / SEGMENTS
        live = {entry.name for entry in manifest.segments}
        grace = {name for name, at in manifest.retired if time.time() - at < RETIRED_GRACE_SECONDS}
        for path in segments.iterdir():
            if path.name not in live and path.name not in grace:
                shutil.rmtree(path, ignore_errors=True)
        for stale in self.folder.glob(f"{TEMPORARY_PREFIX}manifest-*"):
            stale.unlink(missing_ok=True)

    # ------------------------------------------------------------------ reading

    def _segment(self, name: str) -> Segment:
        segment = self._segments.get(name)
        if segment is None:
            folder = self.folder / SEGMENTS / name
            if not folder.is_dir():
                raise IndexFormatError(
                    f"the manifest names segment {name}, which is missing from {folder.parent}"
                )
            segment = self._segments[name] = Segment(folder)
        return segment

    def _current(self) -> _View:
        """The latest published generation (one `stat` per call when nothing changed)."""
        stamp = _stamp(self.folder / MANIFEST_NAME)
        view = self._view
        if view is not None and view.stamp == stamp:
            return view
        with self._reload:
            manifest = read_manifest(self.folder)
            segments = [self._segment(entry.name) for entry in manifest.segments]
            alive = [
                _alive_mask(segment, entry.deleted)
                for segment, entry in zip(segments, manifest.segments, strict=True)
            ]
            self._view = _View(manifest, stamp, segments, alive)
            self._keep_only(manifest)
            return self._view

    def _keep_only(self, manifest: Manifest) -> None:
        """Let go of segments the manifest no longer names: each holds a few open files and maps, and a busy
        writer retires thousands. A reader still using one keeps it alive until its query ends."""
        live = {entry.name for entry in manifest.segments}
        self._segments = {name: segment for name, segment in self._segments.items() if name in live}

    def document_ids(self) -> set[str]:
        return set(self._current().documents)

    def chunks(self, document_id: str) -> list[ChunkRecord]:
        view = self._current()
        found = view.documents.get(document_id)
        if found is None:
            return []
        position, rows = found
        return [view.segments[position].record(row) for row in rows]

    def stats(self) -> IndexStats:
        view = self._current()
        return IndexStats(
            documents=len(view.documents),
            chunks=view.stats.live_chunks,
            details={"generation": view.manifest.generation, "segments": len(view.segments)},
        )

    def hybrid_search(
        self,
        query: str,
        vector: NDArray[np.float32],
        *,
        alpha: float,
        limit: int,
        filters: SearchFilter | None = None,
    ) -> list[SearchHit]:
        check_hybrid_arguments(alpha, limit)
        view = self._current()
        pool = max(DEFAULT_POOL, limit)
        candidates = view.candidates(filters)
        keyword = self._keyword_leg(view, candidates, query, pool) if alpha < 1 and query.strip() else []
        dense = self._vector_leg(view, candidates, vector, pool) if alpha > 0 else []
        uuids = {key: view.segments[key[0]].ids[key[1]].decode() for key, _ in [*keyword, *dense]}
        fused = relative_score_fusion(dense, keyword, alpha, uuids, limit)
        return [
            SearchHit(view.segments[f.key[0]].record(f.key[1]), f.score, f.vector, f.keyword) for f in fused
        ]

    def _keyword_leg(
        self, view: _View, candidates: list[NDArray[np.bool_] | None], query: str, pool: int
    ) -> list[tuple[Key, float]]:
        terms = query_terms(query)
        if not terms or view.stats.live_chunks == 0:
            return []
        scored = bm25_scores(view.segments, view.alive, candidates, terms, view.stats)
        return _top(scored, pool)

    def _vector_leg(
        self, view: _View, candidates: list[NDArray[np.bool_] | None], vector: NDArray[np.float32], pool: int
    ) -> list[tuple[Key, float]]:
        self._check_embedder(view.manifest)
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if view.manifest.dimension is not None and query.shape[0] != view.manifest.dimension:
            raise ValueError(
                f"query vector has {query.shape[0]} dimensions, the index {view.manifest.dimension}"
            )
        norm = float(np.linalg.norm(query))
        if norm == 0 or not math.isfinite(norm):
            raise ValueError("the query vector is zero or not finite")
        query = query / norm
        with _blas().limit(limits=1, user_api="blas"):
            scored = [
                nearest(segment.vectors, segment.graph, query, allowed, pool)
                for segment, allowed in zip(view.segments, candidates, strict=True)
            ]
        return _top(scored, pool)

    def close(self) -> None:
        self._view = None
        for segment in self._segments.values():
            segment.close()
        self._segments.clear()


@cache
def _blas() -> ThreadpoolController:
    """Found once: looking the BLAS libraries up costs ~2 ms, more than a small query."""
    return ThreadpoolController()


def _single_document(chunks: Sequence[ChunkRecord]) -> str:
    if not chunks:
        raise ValueError("a document needs at least one chunk")
    ids = {chunk.document_id for chunk in chunks}
    if len(ids) != 1:
        raise ValueError(f"put_document takes the chunks of one document, got {len(ids)} documents")
    return ids.pop()


def _stamp(path: Path) -> tuple[int, int, int]:
    try:
        status = path.stat()
    except FileNotFoundError:
        return (0, 0, 0)
    return (status.st_ino, status.st_mtime_ns, status.st_size)


def _alive_mask(segment: Segment, deleted: frozenset[str]) -> NDArray[np.bool_] | None:
    """Rows of documents not deleted; None when nothing in the segment is deleted (the common case)."""
    if deleted.isdisjoint(segment.by_document):
        return None
    mask = np.ones(segment.row_count, dtype=bool)
    for document in segment.documents:
        if document.id in deleted:
            mask[document.first_row : document.first_row + document.row_count] = False
    return mask


def _top(
    scored: Sequence[tuple[NDArray[np.int64], NDArray[np.float64]]], pool: int
) -> list[tuple[Key, float]]:
    """The `pool` best (segment, row) keys by score, best first, over all segments."""
    if not scored:
        return []
    positions = np.concatenate(
        [np.full(len(rows), index, dtype=np.int64) for index, (rows, _) in enumerate(scored)]
    )
    rows = np.concatenate([rows for rows, _ in scored]).astype(np.int64)
    scores = np.concatenate([values for _, values in scored]).astype(np.float32)
    if len(scores) > pool:
        best = np.argpartition(-scores, pool - 1)[:pool]
        positions, rows, scores = positions[best], rows[best], scores[best]
    order = np.argsort(-scores, kind="stable")
    return [((int(positions[i]), int(rows[i])), float(scores[i])) for i in order]
