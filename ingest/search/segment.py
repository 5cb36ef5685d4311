"""An immutable, memory-mapped piece of the embedded index: chunks, their vectors and term postings.

A segment is written once into a temporary folder, flushed to disk and renamed into place; it is never
changed afterwards (deletions live in the manifest). Its files are plain numpy arrays opened with `mmap`, so
opening costs almost nothing and the operating system's page cache holds what queries touch:

- `vectors.npy`   float32 [rows, dim], L2-normalised (cosine similarity is a dot product)
- `lengths.npy`   int32 [rows], tokens per chunk text (BM25 length normalisation)
- `postings_*.npy` the term-frequency matrix in CSC form: per term, the rows holding it and how often
- `terms.json`    the segment's vocabulary, in column order
- `ids.npy`       the chunks' UUIDs (`S36`), for Weaviate's tie-break
- `chunks.jsonl` + `chunk_offsets.npy`  the stored chunk records, read by row for results only
- `documents.json` which rows belong to which document, with its filterable tags
- `graph.hnsw`    an HNSW graph over the vectors, only in large segments (see `vectors.py`)
"""

import json
import mmap
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from ingest.search.tokens import tokenize
from ingest.search.types import ChunkRecord
from ingest.search.vectors import HNSW_MIN_ROWS, Graph, build_graph

_ID_DTYPE = "S36"
GRAPH_FILE = "graph.hnsw"


@dataclass(frozen=True)
class DocumentRows:
    """A document's rows in a segment (always contiguous) and the tags filters look at."""

    id: str
    first_row: int
    row_count: int
    audiences: tuple[str, ...]
    departments: tuple[str, ...]

    @property
    def rows(self) -> range:
        return range(self.first_row, self.first_row + self.row_count)


@dataclass(frozen=True)
class SegmentData:
    """Everything a segment holds, in memory, before it is written."""

    vectors: NDArray[np.float32]
    lengths: NDArray[np.int32]
    term_frequencies: sparse.csc_array
    terms: list[str]
    ids: NDArray[np.bytes_]
    chunk_lines: list[bytes]
    documents: list[DocumentRows]


def data_from_records(records: Sequence[ChunkRecord], vectors: NDArray[np.float32]) -> SegmentData:
    """Tokenise and lay out new chunks (grouped by document, in the given order) as segment data."""
    if len(records) != len(vectors):
        raise ValueError(f"{len(records)} chunks but {len(vectors)} vectors")
    vocabulary: dict[str, int] = {}
    rows: list[int] = []
    columns: list[int] = []
    counts: list[int] = []
    lengths = np.zeros(len(records), dtype=np.int32)
    for row, record in enumerate(records):
        tokens = tokenize(record.text)
        lengths[row] = len(tokens)
        for term, count in _counted(tokens).items():
            rows.append(row)
            columns.append(vocabulary.setdefault(term, len(vocabulary)))
            counts.append(count)
    matrix = sparse.csc_array(
        (
            np.array(counts, dtype=np.float32),
            (np.array(rows, dtype=np.int32), np.array(columns, dtype=np.int32)),
        ),
        shape=(len(records), len(vocabulary)),
    )
    return SegmentData(
        vectors=_normalised(vectors),
        lengths=lengths,
        term_frequencies=matrix,
        terms=list(vocabulary),
        ids=np.array([record.id for record in records], dtype=_ID_DTYPE),
        chunk_lines=[_record_line(record) for record in records],
        documents=_document_rows(records),
    )


def _counted(tokens: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for token in tokens:
        counts[token] = counts.get(token, 0) + 1
    return counts


def _normalised(vectors: NDArray[np.float32]) -> NDArray[np.float32]:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if np.any(norms == 0) or not np.all(np.isfinite(norms)):
        raise ValueError("a chunk vector is zero or not finite")
    return np.ascontiguousarray(vectors / norms)


def _record_line(record: ChunkRecord) -> bytes:
    return json.dumps(asdict(record), ensure_ascii=False).encode() + b"\n"


def _document_rows(records: Sequence[ChunkRecord]) -> list[DocumentRows]:
    documents: list[DocumentRows] = []
    for row, record in enumerate(records):
        if documents and documents[-1].id == record.document_id:
            last = documents[-1]
            documents[-1] = DocumentRows(
                last.id, last.first_row, last.row_count + 1, last.audiences, last.departments
            )
        elif any(document.id == record.document_id for document in documents):
            raise ValueError(f"the chunks of document {record.document_id} are not contiguous")
        else:
            documents.append(DocumentRows(record.document_id, row, 1, record.audiences, record.departments))
    return documents


def write_segment(data: SegmentData, folder: Path) -> None:
    """Write every file into `folder` (a fresh temporary folder) and flush each to disk."""
    folder.mkdir(parents=True)
    matrix = data.term_frequencies
    arrays = {
        "vectors": data.vectors,
        "lengths": data.lengths,
        "postings_indptr": matrix.indptr.astype(np.int64),
        "postings_rows": matrix.indices.astype(np.int32),
        "postings_tf": matrix.data.astype(np.float32),
        "ids": data.ids,
        "chunk_offsets": np.concatenate([[0], np.cumsum([len(line) for line in data.chunk_lines])]).astype(
            np.int64
        ),
    }
    for name, array in arrays.items():
        with _durable(folder / f"{name}.npy") as handle:
            np.save(handle, array, allow_pickle=False)
    with _durable(folder / "chunks.jsonl") as handle:
        handle.writelines(data.chunk_lines)
    with _durable(folder / "terms.json") as handle:
        handle.write(json.dumps(data.terms, ensure_ascii=False).encode())
    with _durable(folder / "documents.json") as handle:
        handle.write(json.dumps([asdict(document) for document in data.documents]).encode())
    if len(data.vectors) >= HNSW_MIN_ROWS:
        build_graph(data.vectors, folder / GRAPH_FILE)
        with (folder / GRAPH_FILE).open("rb") as graph:
            os.fsync(graph.fileno())
    fsync_folder(folder)


@contextmanager
def _durable(path: Path) -> Iterator[BinaryIO]:
    """A new binary file that is flushed and fsynced when the block ends."""
    with path.open("wb") as handle:
        yield handle
        handle.flush()
        os.fsync(handle.fileno())


def fsync_folder(folder: Path) -> None:
    """Make a rename or a new file inside `folder` durable."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _mapped(path: Path) -> NDArray[Any]:
    """A read-only memory map as a plain ndarray (numpy's memmap subclass adds overhead to every slice)."""
    return np.load(path, mmap_mode="r").view(np.ndarray)


class Segment:
    """A written segment, opened read-only with memory maps."""

    def __init__(self, folder: Path) -> None:
        self.name = folder.name
        self.folder = folder
        self.vectors: NDArray[np.float32] = _mapped(folder / "vectors.npy")
        self.lengths: NDArray[np.int32] = np.load(folder / "lengths.npy")
        self.indptr: NDArray[np.int64] = _mapped(folder / "postings_indptr.npy")
        self.posting_rows: NDArray[np.int32] = _mapped(folder / "postings_rows.npy")
        self.posting_tf: NDArray[np.float32] = _mapped(folder / "postings_tf.npy")
        self.ids: NDArray[np.bytes_] = _mapped(folder / "ids.npy")
        self._offsets: NDArray[np.int64] = np.load(folder / "chunk_offsets.npy")
        terms = json.loads((folder / "terms.json").read_text(encoding="utf-8"))
        self.terms: dict[str, int] = {term: column for column, term in enumerate(terms)}
        self.documents = [
            DocumentRows(
                d["id"], d["first_row"], d["row_count"], tuple(d["audiences"]), tuple(d["departments"])
            )
            for d in json.loads((folder / "documents.json").read_text(encoding="utf-8"))
        ]
        self.by_document = {document.id: document for document in self.documents}
        self._chunks_file = (folder / "chunks.jsonl").open("rb")
        self._chunks = mmap.mmap(self._chunks_file.fileno(), 0, access=mmap.ACCESS_READ)

    @property
    def row_count(self) -> int:
        return len(self.lengths)

    @cached_property
    def graph(self) -> Graph | None:
        """The HNSW graph of a large segment, loaded on first use; None for small segments."""
        path = self.folder / GRAPH_FILE
        return Graph(path, self.vectors.shape[1]) if path.exists() else None

    def postings(self, term: str) -> tuple[NDArray[np.int32], NDArray[np.float32]] | None:
        """Rows that contain `term` and how often, or None when the segment never saw it."""
        column = self.terms.get(term)
        if column is None:
            return None
        start, end = int(self.indptr[column]), int(self.indptr[column + 1])
        return self.posting_rows[start:end], self.posting_tf[start:end]

    def record(self, row: int) -> ChunkRecord:
        line = self._chunks[int(self._offsets[row]) : int(self._offsets[row + 1])]
        fields = json.loads(line)
        fields["audiences"] = tuple(fields["audiences"])
        fields["departments"] = tuple(fields["departments"])
        return ChunkRecord(**fields)

    def chunk_line(self, row: int) -> bytes:
        return self._chunks[int(self._offsets[row]) : int(self._offsets[row + 1])]

    def close(self) -> None:
        self._chunks.close()
        self._chunks_file.close()


def merged_data(parts: Iterable[tuple[Segment, NDArray[np.int64]]]) -> SegmentData:
    """The given rows of several segments as one segment's data (postings remapped, records copied as bytes)."""
    vocabulary: dict[str, int] = {}
    vectors, lengths, ids, matrices = [], [], [], []
    chunk_lines: list[bytes] = []
    documents: list[DocumentRows] = []
    offset = 0
    for segment, rows in parts:
        kept = set(rows.tolist())
        column_map = np.array(
            [vocabulary.setdefault(term, len(vocabulary)) for term in segment.terms], dtype=np.int64
        )
        local = sparse.csc_array(
            (segment.posting_tf, segment.posting_rows, segment.indptr),
            shape=(segment.row_count, len(segment.terms)),
        )
        selected = sparse.coo_array(local.tocsr()[rows])
        matrices.append((selected.row + offset, column_map[selected.col], selected.data))
        vectors.append(np.asarray(segment.vectors[rows]))
        lengths.append(segment.lengths[rows])
        ids.append(np.asarray(segment.ids[rows]))
        chunk_lines += [segment.chunk_line(int(row)) for row in rows]
        for document in segment.documents:
            if document.first_row in kept:
                documents.append(
                    DocumentRows(
                        document.id, offset, document.row_count, document.audiences, document.departments
                    )
                )
                offset += document.row_count
    row_index = np.concatenate([m[0] for m in matrices]) if matrices else np.zeros(0, dtype=np.int64)
    column_index = np.concatenate([m[1] for m in matrices]) if matrices else np.zeros(0, dtype=np.int64)
    values = np.concatenate([m[2] for m in matrices]) if matrices else np.zeros(0, dtype=np.float32)
    return SegmentData(
        vectors=np.concatenate(vectors),
        lengths=np.concatenate(lengths).astype(np.int32),
        term_frequencies=sparse.csc_array(
            (values, (row_index, column_index)), shape=(offset, len(vocabulary))
        ),
        terms=list(vocabulary),
        ids=np.concatenate(ids),
        chunk_lines=chunk_lines,
        documents=documents,
    )
