"""The database connection and the migration runner shared by `ingest` and `api`.

Each package owns its tables and its Alembic history (own version table), so `ingest` can create its schema
without importing `api`. SQLite is the embedded default, PostgreSQL production.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.orm import Session, sessionmaker

SUPPORTED_DRIVERS = ("sqlite", "postgresql+psycopg")
# The API runs blocking database calls on a pool of up to 40 threads. With SQLAlchemy's default pool (5 kept, 10
# more opened and closed again) a burst of requests opened a new PostgreSQL connection per call past the fifth,
# 6–27 ms each (measured, docs/benchmarks.md "API load"): keep enough connections for a burst.
POOL_SIZE = 20
POOL_OVERFLOW = 20
MIGRATION_LOCK = 7_261_917  # the PostgreSQL advisory lock key migrations take turns on


def check_database_url(url: str) -> str:
    """Refuse at start what would only fail at the first query."""
    try:
        driver = make_url(url).drivername
    except ArgumentError as error:
        raise ValueError(f"not a database URL: {url!r} ({error})") from None
    if driver not in SUPPORTED_DRIVERS:
        raise ValueError(f"unsupported database driver {driver!r}; accepted: {', '.join(SUPPORTED_DRIVERS)}")
    return url


def _enable_sqlite_foreign_keys(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()


@cache
def get_engine(url: str) -> Engine:
    """One engine per URL for the process; SQLite gets foreign keys and WAL (readers never block the writer)."""
    parsed = make_url(check_database_url(url))
    if parsed.drivername == "sqlite":
        pool: dict[str, int] = {}  # an in-memory database lives in one connection: SQLAlchemy keeps just that
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
            pool = {"pool_size": POOL_SIZE, "max_overflow": POOL_OVERFLOW}
        engine = create_engine(url, connect_args={"timeout": 30}, **pool)
        event.listen(engine, "connect", _enable_sqlite_foreign_keys)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW)


@contextmanager
def session_scope(url: str) -> Iterator[Session]:
    """A transaction: committed when the block ends, rolled back when it raises."""
    factory = sessionmaker(get_engine(url), expire_on_commit=False)
    with factory.begin() as session:
        yield session


def alembic_config(url: str, migrations: Path, version_table: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(migrations))
    config.attributes["url"] = url
    config.attributes["version_table"] = version_table
    return config


def upgrade(url: str, migrations: Path, version_table: str, revision: str = "head") -> None:
    """Migrate; processes starting together (API replicas, the ingest service) take turns on PostgreSQL."""
    with _one_migration_at_a_time(url):
        command.upgrade(alembic_config(url, migrations, version_table), revision)


@contextmanager
def _one_migration_at_a_time(url: str) -> Iterator[None]:
    """A PostgreSQL advisory lock held while the block runs (on its own connection: Alembic uses another); SQLite
    serves one process (the embedded mode) and locks its file for each write anyway."""
    engine = get_engine(url)
    if engine.dialect.name != "postgresql":
        yield
        return
    with engine.connect() as connection:
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})


def downgrade(url: str, migrations: Path, version_table: str, revision: str = "base") -> None:
    command.downgrade(alembic_config(url, migrations, version_table), revision)


def run_migrations_in_env(target_metadata: Any) -> None:
    """The body of every package's Alembic `env.py`: online migrations on the URL the runner passed in."""
    from alembic import context

    config = context.config
    engine = get_engine(config.attributes["url"])
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            version_table=config.attributes["version_table"],
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()
