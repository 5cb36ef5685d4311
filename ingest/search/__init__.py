"""The search index behind one interface: Weaviate in production, the embedded on-disk index otherwise."""

from ingest.search.types import (
    ChunkRecord,
    IndexStats,
    LegScores,
    SearchFilter,
    SearchHit,
    SearchIndex,
    chunk_uuid,
)

__all__ = ["ChunkRecord", "IndexStats", "LegScores", "SearchFilter", "SearchHit", "SearchIndex", "chunk_uuid"]
