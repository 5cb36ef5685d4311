"""Writers of a Weaviate collection take turns, through an advisory lock in PostgreSQL (where jobs live too).

Weaviate has no transactions: two writers (two jobs, or a job and an admin's delete) interleaving their
read-then-write of the hidden-versions state could hide a document forever or show a half-imported one
(`versions.py`). The lock is a session-level `pg_advisory_lock` on its own connection, held for one document
write at a time; PostgreSQL releases it when the holder's connection dies, so a killed job never leaves it
taken.
"""

import hashlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import partial

from sqlalchemy import text
from sqlalchemy.engine import make_url

from ingest.database import get_engine

WriterLock = Callable[[], AbstractContextManager[None]]


def lock_key(name: str) -> int:
    """A stable signed 64-bit key per collection (advisory locks are keyed by bigint)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


def postgres_writer_lock(database_url: str, name: str) -> WriterLock:
    """The lock of one collection; refuses a database that cannot hold it."""
    if make_url(database_url).get_backend_name() != "postgresql":
        raise ValueError(
            "the Weaviate backend serialises its writers with a lock in PostgreSQL: DATABASE_URL must be "
            f"a PostgreSQL URL, not {make_url(database_url).get_backend_name()}"
        )
    return partial(_held, database_url, lock_key(name))


@contextmanager
def _held(database_url: str, key: int) -> Iterator[None]:
    with get_engine(database_url).connect() as connection:
        connection = connection.execution_options(isolation_level="AUTOCOMMIT")
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": key})
        try:
            yield
        finally:
            if not connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key}).scalar():
                connection.invalidate()  # never hand a connection that may still hold the lock back to the pool
