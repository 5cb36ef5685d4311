"""Switch the embedded index to another embedding model without mixing vectors: `python -m ingest reembed`.

The index records the model its vectors came from (`manifest.json`); a service configured with another
EMBEDDING_MODEL refuses to search or extend it. Re-embedding reads every stored chunk (its indexed text, so no
document is parsed again), embeds it with the configured model into a staging index beside the live one,
document by document, and then swaps the two folders: the old index is kept under its model's name for a way
back. The live index's writers wait while it runs, so no document changes under it. A killed run resumes where
it stopped: the staging index keeps every finished document.
"""

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ingest.embedding import Embedder
from ingest.search.embedded import EmbeddedIndex
from ingest.search.manifest import MANIFEST_NAME
from ingest.search.types import EmbedderMismatch
from ingest.settings import IngestSettings

STAGING_SUFFIX = ".reembed"


class ReembedError(RuntimeError):
    """Re-embedding cannot start or finish; the message says why and what to do."""


@dataclass(frozen=True)
class ReembedSummary:
    built_with: str | None  # the model of the index before (None: nothing to do, or an unrecorded model)
    embedding_model: str
    documents: int  # re-embedded by this run (documents a killed run finished are not counted again)
    chunks: int
    seconds: float
    previous: Path | None  # where the old index was kept


def staging_folder(index_dir: Path) -> Path:
    return index_dir.with_name(index_dir.name + STAGING_SUFFIX)


def previous_folder(index_dir: Path, model: str) -> Path:
    """Where the index built with `model` is kept: `index.intfloat--multilingual-e5-small` beside `index`."""
    return index_dir.with_name(f"{index_dir.name}.{re.sub(r'[^A-Za-z0-9._-]+', '--', model).strip('-.')}")


def exit_unless_index_matches_embedder(settings: IngestSettings) -> None:
    """Stop a service at start when the embedded index holds another model's vectors. (A Weaviate collection
    does not record its model: changing EMBEDDING_MODEL there means a new collection, docs/operations.md.)"""
    if settings.weaviate_url is not None or not (settings.index_dir / MANIFEST_NAME).is_file():
        return
    built_with = EmbeddedIndex(settings.index_dir, settings.embedding_model, create=False).built_with()
    if built_with and built_with != settings.embedding_model:
        raise SystemExit(
            f"error: {EmbedderMismatch(str(settings.index_dir), built_with, settings.embedding_model)}"
        )


def reembed(
    settings: IngestSettings,
    load_embedder: Callable[[], Embedder],
    progress: Callable[[int, int], object] | None = None,
) -> ReembedSummary:
    """Re-embed the embedded index in INDEX_DIR with EMBEDDING_MODEL (loaded by `load_embedder` only when there is
    work) and swap it in; `progress(documents done, documents in all)` after each document."""
    if settings.weaviate_url is not None:
        raise ReembedError(
            "re-embedding works on the embedded index; with Weaviate, point WEAVIATE_COLLECTION at a new "
            "collection and ingest the documents again (docs/operations.md)"
        )
    started = time.monotonic()
    model = settings.embedding_model
    index_dir, staging = settings.index_dir, staging_folder(settings.index_dir)
    if not (index_dir / MANIFEST_NAME).is_file():
        if (staging / MANIFEST_NAME).is_file():  # killed between the two renames of the swap
            staging.rename(index_dir)
            return ReembedSummary(None, model, 0, 0, time.monotonic() - started, None)
        raise ReembedError(f"no search index in {index_dir} (INDEX_DIR): nothing to re-embed")
    source = EmbeddedIndex(index_dir, create=False)
    built_with = source.built_with()
    if built_with == model:
        return ReembedSummary(built_with, model, 0, 0, time.monotonic() - started, None)
    previous = previous_folder(index_dir, built_with or "unrecorded-model")
    if previous.exists():
        raise ReembedError(
            f"{previous} already exists (an earlier switch): move it away, then run this again"
        )
    target = _staging_index(staging, model)
    with source.writes_held():
        documents, chunks = _copy_documents(source, target, load_embedder(), progress)
        _drop_documents_gone_since(source, target)
        source.close()
        target.close()
        index_dir.rename(previous)
        staging.rename(index_dir)
    return ReembedSummary(built_with, model, documents, chunks, time.monotonic() - started, previous)


def _staging_index(staging: Path, model: str) -> EmbeddedIndex:
    target = EmbeddedIndex(staging, model)
    unfinished = target.built_with()
    if unfinished and unfinished != model:
        raise ReembedError(
            f"{staging} holds an unfinished re-embedding with {unfinished!r}, not {model!r}: delete that folder to "
            "start over with this model, or set EMBEDDING_MODEL back to finish it"
        )
    return target


def _copy_documents(
    source: EmbeddedIndex,
    target: EmbeddedIndex,
    embedder: Embedder,
    progress: Callable[[int, int], object] | None,
) -> tuple[int, int]:
    wanted = sorted(source.document_ids())
    finished = target.document_ids()
    documents = chunks = 0
    for position, document_id in enumerate(wanted, start=1):
        if document_id not in finished:
            records = source.chunks(document_id)
            target.put_document(records, embedder.embed_passages([record.text for record in records]))
            documents += 1
            chunks += len(records)
        if progress is not None:
            progress(position, len(wanted))
    return documents, chunks


def _drop_documents_gone_since(source: EmbeddedIndex, target: EmbeddedIndex) -> None:
    """A document deleted from the live index between a killed run and this one leaves the staging one too."""
    target.delete_documents(target.document_ids() - source.document_ids())
