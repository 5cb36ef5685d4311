"""The production search index: a Weaviate collection of chunks with self-provided vectors.

Configuration follows what the source study measured and what Weaviate's defaults get wrong for Dutch: BM25
k1 1.2 / b 0.75, `word` tokenization on the searched text only (ids, paths and tags are not searchable),
stopword preset `none` plus a Dutch list (the `en` preset drops "in", "is", "was", "no"), cosine HNSW. Every
hybrid query passes `alpha` and `fusion_type=RELATIVE_SCORE` explicitly (the server default alpha is 0.75).

Weaviate has no transactions: a document is replaced by importing its new version under new object ids beside
the old one and switching with one write of a state object listing hidden versions, which every query
excludes (`versions.py`); writers take turns through a lock in PostgreSQL (`writer_lock.py`).
"""

import re
from collections.abc import Collection, Sequence
from dataclasses import asdict
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import weaviate
from numpy.typing import NDArray
from weaviate.classes.aggregate import GroupByAggregate
from weaviate.classes.config import Configure, DataType, Property, Tokenization, VectorDistances
from weaviate.classes.data import DataObject
from weaviate.classes.init import Auth
from weaviate.classes.query import Filter, HybridFusion, MetadataQuery
from weaviate.collections import Collection as WeaviateCollection
from weaviate.collections.classes.filters import _Filters
from weaviate.util import generate_uuid5

from ingest.search import versions
from ingest.search.bm25 import K1, B
from ingest.search.tokens import DUTCH_STOPWORDS
from ingest.search.types import (
    CHUNK_NAMESPACE,
    ChunkRecord,
    IndexStats,
    LegScores,
    MissingIndex,
    SearchFilter,
    SearchHit,
    check_hybrid_arguments,
)
from ingest.search.vectors import EF_CONSTRUCTION, EF_MAX, EF_MIN, FLAT_SEARCH_CUTOFF, MAX_CONNECTIONS
from ingest.search.versions import object_id
from ingest.search.writer_lock import WriterLock

DELETE_CAP = 10_000
IMPORT_BATCH = 500
_STATE_ID = generate_uuid5("hidden-versions", str(CHUNK_NAMESPACE))
_GROUPS_LIMIT = 1_000_000
_LEG_SCORE = re.compile(
    r"Result Set '?(keyword|vector)[^)']*'?\) Document [^:]+: original score ([-\d.e+]+), normalized score: ([-\d.e+]+)"
)


def _text(name: str, *, searchable: bool = False, filterable: bool = False, array: bool = False) -> Property:
    return Property(
        name=name,
        data_type=DataType.TEXT_ARRAY if array else DataType.TEXT,
        tokenization=Tokenization.WORD if searchable else Tokenization.FIELD,
        index_searchable=searchable,
        index_filterable=filterable,
    )


def _number(name: str) -> Property:
    return Property(name=name, data_type=DataType.INT, index_filterable=False, index_range_filters=False)


def chunk_collection_config(name: str) -> dict[str, Any]:
    """The arguments of `collections.create` for the chunk collection (kept apart so tests can read them)."""
    return {
        "name": name,
        "properties": [
            _text("text", searchable=True),
            _text("chunk"),
            _text("title"),
            _text("document_id", filterable=True),
            _text("version", filterable=True),
            _text("source_path", filterable=True),
            _text("audiences", filterable=True, array=True),
            _text("departments", filterable=True, array=True),
            _number("chunk_index"),
            _number("page_start"),
            _number("page_end"),
            _number("char_start"),
            _number("char_end"),
        ],
        "vector_config": Configure.Vectors.self_provided(
            vector_index_config=Configure.VectorIndex.hnsw(
                distance_metric=VectorDistances.COSINE,
                max_connections=MAX_CONNECTIONS,
                ef_construction=EF_CONSTRUCTION,
                dynamic_ef_min=EF_MIN,
                dynamic_ef_max=EF_MAX,
                flat_search_cutoff=FLAT_SEARCH_CUTOFF,
            )
        ),
        "inverted_index_config": Configure.inverted_index(
            bm25_k1=K1,
            bm25_b=B,
            stopwords_preset=weaviate.classes.config.StopwordsPreset.NONE,
            stopwords_additions=sorted(DUTCH_STOPWORDS),
        ),
    }


def weaviate_filter(filters: SearchFilter | None, hidden: Collection[str]) -> _Filters | None:
    """The search filter in Weaviate's terms, always excluding hidden versions (being imported or deleted)."""
    parts = []
    if hidden:
        parts.append(Filter.by_property("version").contains_none(sorted(hidden)))
    if filters is not None:
        if filters.document_ids is not None:
            parts.append(Filter.by_property("document_id").contains_any(sorted(filters.document_ids) or [""]))
        if filters.audiences is not None:
            parts.append(Filter.by_property("audiences").contains_any(sorted(filters.audiences) or [""]))
        if filters.departments is not None:
            parts.append(Filter.by_property("departments").contains_any(sorted(filters.departments) or [""]))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else Filter.all_of(parts)


class WeaviateIndex:
    """A `SearchIndex` on a Weaviate server (≥ 1.27, gRPC reachable)."""

    def __init__(
        self,
        url: str,
        grpc_port: int,
        api_key: str | None,
        collection: str,
        writer_lock: WriterLock,
        *,
        create: bool = True,
    ) -> None:
        self._writer_lock = writer_lock
        host, port, secure = _split_url(url)
        self._client = weaviate.connect_to_custom(
            http_host=host,
            http_port=port,
            http_secure=secure,
            grpc_host=host,
            grpc_port=grpc_port,
            grpc_secure=secure,
            auth_credentials=Auth.api_key(api_key) if api_key else None,
        )
        if not create and not self._client.collections.exists(collection):
            self._client.close()
            raise MissingIndex(f"no search index in collection {collection} at {url} (WEAVIATE_COLLECTION)")
        self._chunks = self._collection(collection)
        self._state = self._state_collection(f"{collection}State")

    def _collection(self, name: str) -> WeaviateCollection[Any, Any]:
        if not self._client.collections.exists(name):
            self._client.collections.create(**chunk_collection_config(name))
        return self._client.collections.get(name)

    def _state_collection(self, name: str) -> WeaviateCollection[Any, Any]:
        if not self._client.collections.exists(name):
            self._client.collections.create(
                name=name,
                properties=[_text("hidden", array=True)],
                vector_config=Configure.Vectors.self_provided(),
            )
        return self._client.collections.get(name)

    # ------------------------------------------------------------------ state (`versions.VersionedStore`)

    def hidden(self) -> frozenset[str]:
        state = self._state.query.fetch_object_by_id(_STATE_ID)
        return frozenset(state.properties.get("hidden") or []) if state is not None else frozenset()

    def set_hidden(self, versions: Collection[str]) -> None:
        properties = {"hidden": sorted(versions)}
        if self._state.data.exists(_STATE_ID):
            self._state.data.replace(uuid=_STATE_ID, properties=properties)
        else:
            self._state.data.insert(properties=properties, uuid=_STATE_ID)

    def versions_of(self, document_ids: Collection[str]) -> frozenset[str]:
        if not document_ids:
            return frozenset()
        groups = self._chunks.aggregate.over_all(
            filters=Filter.by_property("document_id").contains_any(sorted(document_ids)),
            group_by=GroupByAggregate(prop="version", limit=_GROUPS_LIMIT),
            total_count=True,
        )
        return frozenset(str(group.grouped_by.value) for group in groups.groups)

    def import_version(
        self, chunks: Sequence[ChunkRecord], vectors: NDArray[np.float32], version: str
    ) -> None:
        objects = [
            DataObject(
                properties=_properties(chunk, version), vector=vector.tolist(), uuid=object_id(chunk, version)
            )
            for chunk, vector in zip(chunks, np.asarray(vectors, dtype=np.float32), strict=True)
        ]
        for start in range(0, len(objects), IMPORT_BATCH):
            result = self._chunks.data.insert_many(objects[start : start + IMPORT_BATCH])
            if result.has_errors:
                first = next(iter(result.errors.values()))
                raise RuntimeError(f"Weaviate refused {len(result.errors)} chunks: {first.message}")
        stored = self._count(Filter.by_property("version").equal(version))
        if stored != len(chunks):
            raise RuntimeError(
                f"Weaviate holds {stored} chunks of {chunks[0].document_id}, expected {len(chunks)}"
            )

    def delete_versions(self, versions: Collection[str]) -> None:
        """`delete_many` stops at the server's QUERY_MAXIMUM_RESULTS (10,000): repeat until none are left."""
        where = Filter.by_property("version").contains_any(sorted(versions))
        while self._chunks.data.delete_many(where=where).matches >= DELETE_CAP:
            pass

    def _count(self, where: _Filters) -> int:
        return int(self._chunks.aggregate.over_all(filters=where, total_count=True).total_count or 0)

    # ------------------------------------------------------------------ writing

    def put_document(
        self, chunks: Sequence[ChunkRecord], vectors: NDArray[np.float32], replaces: Collection[str] = ()
    ) -> None:
        if len({chunk.document_id for chunk in chunks}) != 1 or len(vectors) != len(chunks):
            raise ValueError("put_document takes the chunks of exactly one document with one vector each")
        with self._writer_lock():
            versions.replace_document(self, chunks, vectors, replaces)

    def delete_documents(self, document_ids: Collection[str]) -> None:
        if not document_ids:
            return
        with self._writer_lock():
            versions.delete_documents(self, document_ids)

    # ------------------------------------------------------------------ reading

    def document_ids(self) -> set[str]:
        groups = self._chunks.aggregate.over_all(
            filters=weaviate_filter(None, self.hidden()),
            group_by=GroupByAggregate(prop="document_id", limit=_GROUPS_LIMIT),
            total_count=True,
        )
        return {str(group.grouped_by.value) for group in groups.groups}

    def chunks(self, document_id: str) -> list[ChunkRecord]:
        result = self._chunks.query.fetch_objects(
            filters=weaviate_filter(SearchFilter(document_ids=frozenset({document_id})), self.hidden()),
            limit=DELETE_CAP,
        )
        return sorted(
            (_record(item.properties) for item in result.objects), key=lambda record: record.chunk_index
        )

    def stats(self) -> IndexStats:
        hidden = self.hidden()
        total = self._chunks.aggregate.over_all(filters=weaviate_filter(None, hidden), total_count=True)
        return IndexStats(
            documents=len(self.document_ids()),
            chunks=int(total.total_count or 0),
            details={"backend": "weaviate", "hidden_versions": len(hidden)},
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
        result = self._chunks.query.hybrid(
            query=query,
            vector=np.asarray(vector, dtype=np.float32).tolist(),
            alpha=alpha,
            fusion_type=HybridFusion.RELATIVE_SCORE,
            limit=limit,
            filters=weaviate_filter(filters, self.hidden()),
            return_metadata=MetadataQuery(score=True, explain_score=True),
        )
        return [
            _hit(item.properties, item.metadata.score, item.metadata.explain_score, alpha)
            for item in result.objects
        ]

    def close(self) -> None:
        self._client.close()


def _split_url(url: str) -> tuple[str, int, bool]:
    parts = urlsplit(url)
    secure = parts.scheme == "https"
    return parts.hostname or "localhost", parts.port or (443 if secure else 8080), secure


def _properties(chunk: ChunkRecord, version: str) -> dict[str, Any]:
    properties = asdict(chunk) | {"version": version}
    properties["audiences"] = list(chunk.audiences)
    properties["departments"] = list(chunk.departments)
    return properties


def _record(properties: dict[str, Any]) -> ChunkRecord:
    values = {name: value for name, value in properties.items() if name != "version"}
    values["audiences"] = tuple(values.get("audiences") or ())
    values["departments"] = tuple(values.get("departments") or ())
    for name in ("chunk_index", "page_start", "page_end", "char_start", "char_end"):
        values[name] = int(values[name])
    return ChunkRecord(**values)


def _hit(properties: dict[str, Any], score: float | None, explanation: str | None, alpha: float) -> SearchHit:
    """A result with each leg's scores read back from Weaviate's explanation (which prints weighted values)."""
    legs: dict[str, LegScores] = {}
    for leg, original, weighted in _LEG_SCORE.findall(explanation or ""):
        weight = alpha if leg == "vector" else 1.0 - alpha
        normalised = float(weighted) / weight if weight else 0.0
        legs["vector" if leg == "vector" else "keyword"] = LegScores(float(original), normalised)
    return SearchHit(_record(properties), float(score or 0.0), legs.get("vector"), legs.get("keyword"))
