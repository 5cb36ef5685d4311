"""The embedded index on disk: reopened intact, merged without changing answers, never corrupted by kill -9."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from ingest.search.embedded import MERGE_FACTOR, SEGMENTS, TEMPORARY_PREFIX, EmbeddedIndex
from ingest.search.types import ChunkRecord, EmbedderMismatch
from ingest.search.vectors import build_graph, nearest

REPO_ROOT = Path(__file__).resolve().parents[3]
WORDS = [
    "koorts",
    "pijn",
    "wond",
    "infectie",
    "sepsis",
    "insuline",
    "pomp",
    "katheter",
    "bloed",
    "druk",
    "zuurstof",
    "voeding",
]


def _document(document_id: str, chunks: int, seed: int) -> tuple[list[ChunkRecord], np.ndarray]:
    rng = np.random.default_rng(seed)
    records = []
    for index in range(chunks):
        text = " ".join(rng.choice(WORDS, size=12))
        records.append(
            ChunkRecord(
                document_id,
                index,
                f"Titel: {document_id}\nTekst: {text}",
                text,
                document_id,
                f"/{document_id}.pdf",
                1,
                1,
                0,
                len(text),
            )
        )
    return records, rng.normal(size=(chunks, 8)).astype(np.float32)


def _fill(index: EmbeddedIndex, documents: int) -> None:
    for number in range(documents):
        index.put_document(*_document(f"doc{number}", 1 + number % 4, number))


def _answers(index: EmbeddedIndex) -> list[tuple[str, float]]:
    query = np.random.default_rng(99).normal(size=8).astype(np.float32)
    return [
        (hit.chunk.id, round(hit.score, 5))
        for hit in index.hybrid_search("koorts wond pomp", query, alpha=0.7, limit=20)
    ]


def test_a_reopened_index_gives_the_same_answers(tmp_path: Path) -> None:
    index = EmbeddedIndex(tmp_path, "model")
    _fill(index, 5)
    before = _answers(index)
    index.close()

    assert _answers(EmbeddedIndex(tmp_path, "model")) == before


def test_merging_small_segments_keeps_every_answer(tmp_path: Path) -> None:
    merged = EmbeddedIndex(tmp_path / "merged", "model")
    _fill(merged, 3 * MERGE_FACTOR)
    single = EmbeddedIndex(tmp_path / "single", "model")
    everything = [_document(f"doc{n}", 1 + n % 4, n) for n in range(3 * MERGE_FACTOR)]
    for records, vectors in everything:
        single.put_document(records, vectors)

    assert merged.stats().details["segments"] < 3 * MERGE_FACTOR
    assert _answers(merged) == _answers(single)
    assert merged.document_ids() == {f"doc{n}" for n in range(3 * MERGE_FACTOR)}


def test_deleted_documents_are_expunged_from_disk_and_search(tmp_path: Path) -> None:
    index = EmbeddedIndex(tmp_path, "model")
    _fill(index, MERGE_FACTOR)

    index.delete_documents([f"doc{n}" for n in range(MERGE_FACTOR - 1)])

    assert index.document_ids() == {f"doc{MERGE_FACTOR - 1}"}
    assert {
        hit.chunk.document_id
        for hit in index.hybrid_search("koorts", np.ones(8, np.float32), alpha=0.5, limit=50)
    } == {f"doc{MERGE_FACTOR - 1}"}


def test_vectors_of_another_embedder_are_refused(tmp_path: Path) -> None:
    EmbeddedIndex(tmp_path, "e5").put_document(*_document("a", 1, 0))
    records, vectors = _document("b", 1, 1)

    with pytest.raises(EmbedderMismatch, match="built with 'e5', but EMBEDDING_MODEL is 'bge-m3'"):
        EmbeddedIndex(tmp_path, "bge-m3").put_document(records, vectors)
    with pytest.raises(ValueError, match="8-dim"):
        EmbeddedIndex(tmp_path, "e5").put_document(records, np.ones((1, 4), np.float32))
    assert EmbeddedIndex(tmp_path, "e5").document_ids() == {"a"}


def test_an_index_is_never_searched_with_another_embedders_query_vectors(tmp_path: Path) -> None:
    EmbeddedIndex(tmp_path, "e5").put_document(*_document("a", 1, 0))
    other = EmbeddedIndex(tmp_path, "embeddinggemma")

    assert other.built_with() == "e5"
    with pytest.raises(EmbedderMismatch, match="python -m ingest reembed"):
        other.hybrid_search("koorts", np.ones(8, np.float32), alpha=0.7, limit=3)


def test_a_reader_sees_each_new_generation(tmp_path: Path) -> None:
    reader = EmbeddedIndex(tmp_path, "model")
    writer = EmbeddedIndex(tmp_path, "model")
    assert reader.document_ids() == set()

    writer.put_document(*_document("nieuw", 2, 3))

    assert reader.document_ids() == {"nieuw"}


def test_hnsw_finds_nearly_the_same_neighbours_as_exact_search_and_honours_filters(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(3000, 32)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    build_graph(vectors, tmp_path / "graph.hnsw")
    from ingest.search.vectors import Graph

    graph = Graph(tmp_path / "graph.hnsw", 32)
    query = vectors[7] + 0.1 * rng.normal(size=32).astype(np.float32)
    query /= np.linalg.norm(query)

    exact, _ = nearest(vectors, None, query, None, 10)
    approximate, similarities = nearest(vectors, graph, query, None, 10)
    even = np.arange(3000) % 2 == 0
    filtered, _ = graph.search(query, 10, even.tolist().__getitem__)

    assert len(set(exact) & set(approximate)) >= 9
    assert np.allclose(similarities, vectors[approximate] @ query, atol=1e-5)
    assert all(row % 2 == 0 for row in filtered)


WRITER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from pathlib import Path
    from ingest.search.embedded import EmbeddedIndex
    from ingest.search.types import ChunkRecord, EmbedderMismatch

    index = EmbeddedIndex(Path(sys.argv[1]), "model")
    rng = np.random.default_rng(int(sys.argv[2]))
    version = 0
    while True:
        version += 1
        family = int(rng.integers(0, 6))
        chunks = int(rng.integers(1, 40))
        document = f"family{family}-v{version}-n{chunks}"
        records = [
            ChunkRecord(document, i, f"Titel: t\\nTekst: koorts {document} {i}", f"koorts {i}", "t", "/x.pdf", 1, 1, 0, 5)
            for i in range(chunks)
        ]
        old = [d for d in index.document_ids() if d.startswith(f"family{family}-")]
        index.put_document(records, rng.normal(size=(chunks, 8)).astype(np.float32), replaces=old)
        print(f"family{family}", flush=True)
    """
)


def test_kill_9_during_writes_never_leaves_a_corrupt_or_half_updated_index(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    committed: set[str] = set()
    for round_number in range(4):
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(folder), str(round_number)],
            cwd=REPO_ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert writer.stdout is not None
        # start-up time varies by machine: kill only once writes are under way
        first = writer.stdout.readline()
        time.sleep(0.2 + 0.37 * round_number)
        os.kill(writer.pid, signal.SIGKILL)
        output, _ = writer.communicate()
        assert first, "the writer ended before its first commit"
        committed |= set((first + output).split())

        index = EmbeddedIndex(folder, "model")
        documents = index.document_ids()
        families = [document.split("-")[0] for document in documents]
        assert len(families) == len(set(families)), (
            f"two versions of one document are searchable: {documents}"
        )
        assert committed <= set(families), "a committed document is no longer searchable"
        for document in documents:
            expected = int(document.rsplit("-n", 1)[1])
            assert [c.chunk_index for c in index.chunks(document)] == list(range(expected))
        index.hybrid_search("koorts", np.ones(8, np.float32), alpha=0.7, limit=5)

    assert committed, "the writer never committed: the test did not exercise anything"
    EmbeddedIndex(folder, "model").delete_documents(["nothing"])
    assert not [p for p in (folder / SEGMENTS).iterdir() if p.name.startswith(TEMPORARY_PREFIX)]


def test_open_files_stay_bounded_however_many_segments_were_retired(tmp_path: Path) -> None:
    index = EmbeddedIndex(tmp_path, "model")
    before = len(os.listdir("/proc/self/fd"))

    for number in range(200):
        index.put_document(*_document(f"doc{number}", 2, number))
        index.document_ids()

    assert len(os.listdir("/proc/self/fd")) - before < 150
