"""Replacing a document in Weaviate is atomic for readers and writers take turns.

The replace protocol (`ingest.search.versions`) runs here on an in-memory chunk store with Weaviate's
visibility rule (a query sees every stored version not in the hidden list); after every store operation the
test looks at what a reader would find. The writer lock is the real advisory lock on the real PostgreSQL.
The same protocol against a Weaviate server runs only where one is given (WEAVIATE_URL).
"""

import os
import threading
import time
from collections.abc import Collection, Iterator, Sequence

import numpy as np
import psycopg
import pytest
from numpy.typing import NDArray
from sqlalchemy.engine import make_url

from ingest.search import versions
from ingest.search.types import ChunkRecord
from ingest.search.writer_lock import lock_key, postgres_writer_lock


def _chunks(document_id: str, count: int = 3, text: str = "tekst") -> list[ChunkRecord]:
    return [
        ChunkRecord(document_id, i, f"{text} {i}", f"{text} {i}", "Titel", f"/{document_id}.pdf", 1, 1, 0, 5)
        for i in range(count)
    ]


def _vectors(count: int = 3) -> NDArray[np.float32]:
    return np.ones((count, 4), dtype=np.float32)


class Crash(Exception):
    pass


class MemoryStore:
    """Chunks by version and a hidden list, with Weaviate's rule for what a query sees; it records what a
    reader would see after every operation, and can crash at the n-th one."""

    def __init__(self) -> None:
        self.stored: dict[str, tuple[str, list[ChunkRecord]]] = {}
        self._hidden: frozenset[str] = frozenset()
        self.seen: list[dict[str, set[str]]] = []
        self.crash_at: int | None = None
        self.operations = 0

    def visible(self) -> dict[str, set[str]]:
        """Document id → its versions a query would return."""
        found: dict[str, set[str]] = {}
        for version, (document_id, _) in self.stored.items():
            if version not in self._hidden:
                found.setdefault(document_id, set()).add(version)
        return found

    def _operation(self) -> None:
        self.operations += 1
        if self.crash_at == self.operations:
            raise Crash(f"killed at operation {self.operations}")

    def _after(self) -> None:
        self.seen.append(self.visible())

    def hidden(self) -> frozenset[str]:
        return self._hidden

    def set_hidden(self, versions: Collection[str]) -> None:
        self._operation()
        self._hidden = frozenset(versions)
        self._after()

    def versions_of(self, document_ids: Collection[str]) -> frozenset[str]:
        return frozenset(v for v, (document_id, _) in self.stored.items() if document_id in document_ids)

    def import_version(
        self, chunks: Sequence[ChunkRecord], vectors: NDArray[np.float32], version: str
    ) -> None:
        for count in range(1, len(chunks) + 1):  # objects arrive one batch at a time
            self._operation()
            self.stored[version] = (chunks[0].document_id, list(chunks[:count]))
            self._after()

    def delete_versions(self, versions: Collection[str]) -> None:
        for version in sorted(versions):
            self._operation()
            self.stored.pop(version, None)
            self._after()


def test_a_reader_sees_a_replaced_document_in_exactly_one_version_at_every_moment() -> None:
    store = MemoryStore()
    versions.replace_document(store, _chunks("a"), _vectors())
    (first,) = store.visible()["a"]
    store.seen.clear()

    versions.replace_document(store, _chunks("a", text="nieuw"), _vectors())

    assert all(len(seen.get("a", ())) == 1 for seen in store.seen)
    assert store.seen[0]["a"] == {first} and store.seen[-1]["a"] != {first}
    assert store.hidden() == frozenset() and store.versions_of({"a"}) == store.visible()["a"]


def test_the_new_version_appears_in_the_same_step_as_the_replaced_document_disappears() -> None:
    store = MemoryStore()
    versions.replace_document(store, _chunks("oud"), _vectors())
    store.seen.clear()

    versions.replace_document(store, _chunks("nieuw"), _vectors(), replaces=["oud"])

    assert all(("oud" in seen) != ("nieuw" in seen) for seen in store.seen)
    assert set(store.visible()) == {"nieuw"} and store.versions_of({"oud"}) == frozenset()


def test_object_ids_differ_per_version_so_a_new_version_never_overwrites_the_old() -> None:
    chunk = _chunks("a")[0]

    assert versions.object_id(chunk, "v1") != versions.object_id(chunk, "v2")
    assert versions.object_id(chunk, "v1") == versions.object_id(chunk, "v1")


def _operations_of_a_replace() -> int:
    store = MemoryStore()
    versions.replace_document(store, _chunks("a"), _vectors())
    start = store.operations
    versions.replace_document(store, _chunks("a", text="nieuw"), _vectors(), replaces=["b"])
    return store.operations - start


@pytest.mark.parametrize("crash_at", range(1, _operations_of_a_replace() + 1))
def test_a_writer_killed_at_any_step_leaves_one_version_and_the_next_writer_cleans_up(crash_at: int) -> None:
    store = MemoryStore()
    versions.replace_document(store, _chunks("a"), _vectors())
    versions.replace_document(store, _chunks("b"), _vectors())
    store.seen.clear()
    store.crash_at = store.operations + crash_at

    with pytest.raises(Crash):
        versions.replace_document(store, _chunks("a", text="nieuw"), _vectors(), replaces=["b"])

    assert all(len(seen.get("a", ())) == 1 for seen in store.seen)
    versions.replace_document(store, _chunks("c"), _vectors())
    assert store.hidden() == frozenset()
    assert {document for document, _ in store.stored.values()} == set(store.visible())
    assert all(len(found) == 1 for found in store.visible().values())


def test_a_deleted_document_vanishes_in_one_step_and_leaves_nothing_stored() -> None:
    store = MemoryStore()
    versions.replace_document(store, _chunks("a"), _vectors())
    store.seen.clear()

    versions.delete_documents(store, ["a", "onbekend"])

    assert store.seen[0] == {} and store.stored == {}


@pytest.fixture
def lock_url(empty_postgres_url: str) -> str:
    return empty_postgres_url


def _conninfo(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _free(url: str, name: str) -> bool:
    """Whether another session could take the lock now (taking and releasing it at once)."""
    with psycopg.connect(_conninfo(url), autocommit=True) as other:
        taken = other.execute("SELECT pg_try_advisory_lock(%s)", (lock_key(name),)).fetchone()
        assert taken is not None
        if taken[0]:
            other.execute("SELECT pg_advisory_unlock(%s)", (lock_key(name),))
        return bool(taken[0])


def test_the_writer_lock_is_held_in_postgresql_for_the_duration_of_a_write(lock_url: str) -> None:
    lock = postgres_writer_lock(lock_url, "VraagbaakChunk")

    with lock():
        assert not _free(lock_url, "VraagbaakChunk")
        assert _free(lock_url, "AndereCollectie")
    assert _free(lock_url, "VraagbaakChunk")


def test_the_writer_lock_is_released_when_the_write_fails(lock_url: str) -> None:
    lock = postgres_writer_lock(lock_url, "VraagbaakChunk")

    with pytest.raises(Crash), lock():
        raise Crash

    assert _free(lock_url, "VraagbaakChunk")


def test_a_killed_holder_never_leaves_the_lock_taken(lock_url: str) -> None:
    holder = psycopg.connect(_conninfo(lock_url), autocommit=True)
    holder.execute("SELECT pg_advisory_lock(%s)", (lock_key("VraagbaakChunk"),))
    assert not _free(lock_url, "VraagbaakChunk")

    holder.close()  # what the server sees when a job's process is killed

    with postgres_writer_lock(lock_url, "VraagbaakChunk")():
        pass


def test_two_writers_take_turns_and_the_store_stays_consistent(lock_url: str) -> None:
    store = MemoryStore()
    versions.replace_document(store, _chunks("a"), _vectors())
    store.seen.clear()
    lock = postgres_writer_lock(lock_url, "VraagbaakChunk")
    inside: list[str] = []
    overlaps: list[tuple[str, ...]] = []

    def writer(name: str) -> None:
        for round_ in range(5):
            with lock():
                inside.append(name)
                if len(inside) > 1:
                    overlaps.append(tuple(inside))
                versions.replace_document(store, _chunks("a", text=f"{name} {round_}"), _vectors())
                time.sleep(0.01)
                inside.remove(name)

    threads = [threading.Thread(target=writer, args=(name,)) for name in ("job", "admin")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert overlaps == []
    assert all(len(seen.get("a", ())) == 1 for seen in store.seen)
    assert len(store.stored) == 1 and store.hidden() == frozenset()


def test_the_weaviate_backend_refuses_a_database_that_cannot_hold_the_lock() -> None:
    with pytest.raises(ValueError, match="must be a PostgreSQL URL"):
        postgres_writer_lock("sqlite:///vraagbaak.db", "VraagbaakChunk")


@pytest.fixture
def weaviate_url() -> Iterator[str]:
    url = os.environ.get("WEAVIATE_URL")
    if not url:
        pytest.skip("needs a Weaviate server: set WEAVIATE_URL (none can run on these machines)")
    yield url


def test_a_document_stays_searchable_on_a_weaviate_server_while_it_is_replaced(
    weaviate_url: str, lock_url: str
) -> None:
    from ingest.search.weaviate_index import WeaviateIndex

    name = "VraagbaakReplaceTest"
    index = WeaviateIndex(
        weaviate_url,
        int(os.environ.get("WEAVIATE_GRPC_PORT", "50051")),
        os.environ.get("WEAVIATE_API_KEY"),
        name,
        postgres_writer_lock(lock_url, name),
    )
    try:
        index.put_document(_chunks("a"), _vectors())
        seen: list[int] = []
        done = threading.Event()

        def reader() -> None:
            while not done.is_set():
                seen.append(len(index.chunks("a")))

        thread = threading.Thread(target=reader)
        thread.start()
        for round_ in range(3):
            index.put_document(_chunks("a", text=f"versie {round_}"), _vectors())
        done.set()
        thread.join()

        assert seen and set(seen) == {3}
        assert index.stats().details["hidden_versions"] == 0
    finally:
        index._client.collections.delete([name, f"{name}State"])
        index.close()
