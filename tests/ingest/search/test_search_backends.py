"""One behaviour, two backends: the embedded index and Weaviate answer the same hybrid queries the same way.

The Weaviate run needs a server (`WEAVIATE_URL`); none can run on the development machines, so there it is
skipped with that reason. Expected results are computed here by hand from the formulas (BM25 with Weaviate's
idf, cosine similarity, min-max per leg, α-weighted sum), independently of the index code.
"""

import math
import os
import re
import uuid
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ingest.search.embedded import EmbeddedIndex
from ingest.search.types import ChunkRecord, SearchFilter, SearchIndex

CORPUS = {
    "koorts": [
        "Koorts bij kinderen: geef paracetamol en meet de temperatuur.",
        "Bij koorts boven 40 graden verwittig je de arts.",
    ],
    "wond": [
        "Wondzorg na een operatie: verwissel het verband dagelijks.",
        "Koorts na een operatie wijst op infectie.",
    ],
    "sepsis": ["Sepsis herkennen bij volwassenen: koorts, snelle ademhaling en verwardheid."],
}
AUDIENCES = {"koorts": ("kinderen",), "wond": ("volwassenen",), "sepsis": ("volwassenen",)}
DIMENSION = 6


def _vector(seed: str) -> np.ndarray:
    rng = np.random.default_rng(zlib.crc32(seed.encode()))
    vector = rng.normal(size=DIMENSION).astype(np.float32)
    return vector / np.linalg.norm(vector)


def _records(document: str, texts: list[str], version: str = "") -> list[ChunkRecord]:
    return [
        ChunkRecord(
            document_id=document + version,
            chunk_index=index,
            text=f"Titel: {document}\nTekst: {text}",
            chunk=text,
            title=document,
            source_path=f"/procedures/{document}.pdf",
            page_start=1,
            page_end=1,
            char_start=0,
            char_end=len(text),
            audiences=AUDIENCES[document],
            departments=("verpleging",),
        )
        for index, text in enumerate(texts)
    ]


def _vectors(records: list[ChunkRecord]) -> np.ndarray:
    return np.stack([_vector(record.chunk) for record in records])


@pytest.fixture(params=["embedded", "weaviate"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SearchIndex]:
    if request.param == "embedded":
        backend: SearchIndex = EmbeddedIndex(tmp_path / "index", "test-embedder")
        yield backend
        backend.close()
        return
    url = os.environ.get("WEAVIATE_URL")
    if not url:
        pytest.skip("needs a Weaviate server: set WEAVIATE_URL (none can run on these machines)")
    from ingest.search.weaviate_index import WeaviateIndex
    from ingest.search.writer_lock import postgres_writer_lock

    name = f"VraagbaakTest{uuid.uuid4().hex[:10]}"
    lock = postgres_writer_lock(request.getfixturevalue("empty_postgres_url"), name)
    backend = WeaviateIndex(
        url,
        int(os.environ.get("WEAVIATE_GRPC_PORT", "50051")),
        os.environ.get("WEAVIATE_API_KEY"),
        name,
        lock,
    )
    yield backend
    backend._client.collections.delete([name, f"{name}State"])
    backend.close()


@pytest.fixture
def filled(index: SearchIndex) -> SearchIndex:
    for document, texts in CORPUS.items():
        records = _records(document, texts)
        index.put_document(records, _vectors(records))
    return index


def _all_records() -> list[ChunkRecord]:
    return [record for document, texts in CORPUS.items() for record in _records(document, texts)]


def _bm25_by_hand(query_terms: list[str], records: list[ChunkRecord]) -> dict[str, float]:
    """Weaviate's BM25: idf = ln(1 + (N - n + 0.5)/(n + 0.5)), tf/(tf + 1.2·(1 - 0.75 + 0.75·len/avg))."""
    tokens = {r.id: [t.lower() for t in re.findall(r"[^\W_]+", r.text)] for r in records}
    average = sum(len(t) for t in tokens.values()) / len(tokens)
    scores: dict[str, float] = {}
    for term, repeats in Counter(query_terms).items():
        holding = [rid for rid, toks in tokens.items() if term in toks]
        if not holding:
            continue
        idf = math.log(1 + (len(records) - len(holding) + 0.5) / (len(holding) + 0.5))
        for rid in holding:
            tf = tokens[rid].count(term)
            norm = 1.2 * (1 - 0.75 + 0.75 * len(tokens[rid]) / average)
            scores[rid] = scores.get(rid, 0.0) + repeats * idf * tf / (tf + norm)
    return scores


def _minmax(scores: dict[str, float]) -> dict[str, float]:
    low, high = min(scores.values()), max(scores.values())
    return {key: 1.0 if high == low else (value - low) / (high - low) for key, value in scores.items()}


def test_the_keyword_leg_ranks_by_weaviates_bm25(filled: SearchIndex) -> None:
    expected = _bm25_by_hand(["koorts", "operatie"], _all_records())

    hits = filled.hybrid_search("koorts na een operatie", _vector("q"), alpha=0.0, limit=10)

    assert [hit.chunk.id for hit in hits] == sorted(expected, key=lambda rid: -expected[rid])
    if isinstance(filled, EmbeddedIndex):
        assert {hit.chunk.id: hit.keyword.raw for hit in hits if hit.keyword} == pytest.approx(
            expected, rel=1e-5
        )


def test_the_vector_leg_ranks_by_cosine_similarity(filled: SearchIndex) -> None:
    query = _vector("een vraag")
    similarity = {r.id: float(_vector(r.chunk) @ query) for r in _all_records()}

    hits = filled.hybrid_search("", query, alpha=1.0, limit=10)

    assert [hit.chunk.id for hit in hits] == sorted(similarity, key=lambda rid: -similarity[rid])
    assert {hit.chunk.id: hit.vector.raw for hit in hits if hit.vector} == pytest.approx(similarity, abs=1e-5)


def test_the_hybrid_score_is_the_alpha_weighted_sum_of_min_max_normalised_legs(filled: SearchIndex) -> None:
    query = _vector("koorts vraag")
    keyword = _minmax(_bm25_by_hand(["koorts", "kinderen"], _all_records()))
    vector = _minmax({r.id: float(_vector(r.chunk) @ query) for r in _all_records()})
    expected = {rid: 0.7 * vector[rid] + 0.3 * keyword.get(rid, 0.0) for rid in vector}

    hits = filled.hybrid_search("koorts bij kinderen", query, alpha=0.7, limit=10)

    assert [hit.chunk.id for hit in hits] == sorted(expected, key=lambda rid: -expected[rid])
    assert {hit.chunk.id: hit.score for hit in hits} == pytest.approx(expected, abs=1e-5)


def test_dutch_stopwords_are_ignored_in_the_query_only(filled: SearchIndex) -> None:
    assert filled.hybrid_search("de het een bij", _vector("q"), alpha=0.0, limit=10) == []
    assert (
        filled.hybrid_search("bij wondzorg", _vector("q"), alpha=0.0, limit=10)[0].chunk.document_id == "wond"
    )


def test_filters_restrict_both_legs(filled: SearchIndex) -> None:
    children = SearchFilter(audiences=frozenset({"kinderen"}))

    hits = filled.hybrid_search("koorts", _vector("q"), alpha=0.5, limit=10, filters=children)

    assert {hit.chunk.document_id for hit in hits} == {"koorts"}
    only = SearchFilter(document_ids=frozenset({"sepsis", "wond"}))
    assert {
        h.chunk.document_id
        for h in filled.hybrid_search("koorts", _vector("q"), alpha=0.5, limit=10, filters=only)
    } == {
        "sepsis",
        "wond",
    }


def test_a_replacement_swaps_versions_in_one_step(filled: SearchIndex) -> None:
    new = _records("koorts", ["Nieuwe versie: koorts bij kinderen behandel je met ibuprofen."], version="-v2")

    filled.put_document(new, _vectors(new), replaces=["koorts"])

    assert filled.document_ids() == {"koorts-v2", "wond", "sepsis"}
    hits = filled.hybrid_search("koorts kinderen", _vector("q"), alpha=0.5, limit=10)
    assert "koorts" not in {hit.chunk.document_id for hit in hits}
    assert filled.chunks("koorts") == []


def test_putting_a_document_again_leaves_one_copy(filled: SearchIndex) -> None:
    records = _records("sepsis", CORPUS["sepsis"])

    filled.put_document(records, _vectors(records))

    assert filled.stats().chunks == sum(len(texts) for texts in CORPUS.values())
    assert len(filled.chunks("sepsis")) == 1


def test_a_deleted_document_disappears_from_search(filled: SearchIndex) -> None:
    filled.delete_documents(["wond"])

    hits = filled.hybrid_search("wondzorg operatie", _vector("q"), alpha=0.5, limit=10)

    assert "wond" not in {hit.chunk.document_id for hit in hits}
    assert filled.document_ids() == {"koorts", "sepsis"}


def test_stored_chunks_come_back_whole_and_in_order(filled: SearchIndex) -> None:
    assert filled.chunks("koorts") == _records("koorts", CORPUS["koorts"])


def test_the_limit_is_respected(filled: SearchIndex) -> None:
    assert len(filled.hybrid_search("koorts", _vector("q"), alpha=0.7, limit=2)) == 2
