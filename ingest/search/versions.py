"""Replacing a document in a store without transactions (Weaviate) so that readers never see it missing or twice.

Every write imports a document as a new *version* under its own object ids; one small state object lists the
hidden versions, which every query excludes. A replace runs:
1. hide the new version, import it (readers still see the old version),
2. one state write switches: the new version shown, the old versions (and the replaced documents') hidden,
3. delete the old versions' objects, then empty the hidden list.
Writers are serialised (see `writer_lock.py`), so a writer that finds hidden versions when it starts knows they
are a crashed writer's leftovers (a half import, or a switched-out version not yet deleted) and removes them.
A crash at any point therefore leaves each document visible in exactly one version, or not at all only when
it never was (a first import) or was being deleted.
"""

import uuid
from collections.abc import Collection, Sequence
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from ingest.search.types import CHUNK_NAMESPACE, ChunkRecord


def new_version() -> str:
    return uuid.uuid4().hex


def object_id(chunk: ChunkRecord, version: str) -> str:
    """Ids differ per version, so a new version is imported beside the old one instead of over it."""
    return str(uuid.uuid5(CHUNK_NAMESPACE, f"{chunk.document_id}/{version}/{chunk.chunk_index}"))


class VersionedStore(Protocol):
    """The few operations of a chunk store that the replace protocol needs (Weaviate implements them)."""

    def hidden(self) -> frozenset[str]: ...

    def set_hidden(self, versions: Collection[str]) -> None:
        """One atomic write of the hidden list: the moment readers switch."""
        ...

    def versions_of(self, document_ids: Collection[str]) -> frozenset[str]:
        """Every stored version of these documents, hidden or not."""
        ...

    def import_version(
        self, chunks: Sequence[ChunkRecord], vectors: NDArray[np.float32], version: str
    ) -> None:
        """Store all chunks under this version, or raise."""
        ...

    def delete_versions(self, versions: Collection[str]) -> None: ...


def remove_leftovers(store: VersionedStore) -> None:
    """Delete what a crashed writer left hidden; call only while holding the writer lock."""
    leftovers = store.hidden()
    if leftovers:
        store.delete_versions(leftovers)
        store.set_hidden(())


def replace_document(
    store: VersionedStore,
    chunks: Sequence[ChunkRecord],
    vectors: NDArray[np.float32],
    replaces: Collection[str] = (),
) -> None:
    """Show the new version of one document and hide its old versions and the replaced documents in one step."""
    remove_leftovers(store)
    old = store.versions_of({chunks[0].document_id, *replaces})
    version = new_version()
    store.set_hidden({version})
    store.import_version(chunks, vectors, version)
    _switch_and_delete(store, old)


def delete_documents(store: VersionedStore, document_ids: Collection[str]) -> None:
    remove_leftovers(store)
    _switch_and_delete(store, store.versions_of(document_ids))


def _switch_and_delete(store: VersionedStore, old: frozenset[str]) -> None:
    store.set_hidden(old)
    if old:
        store.delete_versions(old)
        store.set_hidden(())
