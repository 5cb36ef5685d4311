"""Choose the search index from the settings: Weaviate when `WEAVIATE_URL` is set, else the embedded index."""

from ingest.search.embedded import EmbeddedIndex
from ingest.search.types import SearchIndex
from ingest.settings import IngestSettings


def open_search_index(settings: IngestSettings, *, create: bool = True) -> SearchIndex:
    """The configured index; `create=False` (read-only use) raises `MissingIndex` instead of creating one."""
    if settings.weaviate_url is None:
        return EmbeddedIndex(settings.index_dir, settings.embedding_model, create=create)
    from ingest.search.weaviate_index import WeaviateIndex  # the client is heavy; only production needs it
    from ingest.search.writer_lock import postgres_writer_lock

    api_key = settings.weaviate_api_key.get_secret_value() if settings.weaviate_api_key else None
    return WeaviateIndex(
        str(settings.weaviate_url),
        settings.weaviate_grpc_port,
        api_key,
        settings.weaviate_collection,
        postgres_writer_lock(settings.database_url, settings.weaviate_collection),
        create=create,
    )
