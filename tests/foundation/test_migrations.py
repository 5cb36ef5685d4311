"""The schema is created and removed only through the Alembic histories, on SQLite and PostgreSQL alike."""

from typing import Any

from sqlalchemy import inspect

from api import database_schema
from ingest.database import get_engine


def _tables(url: str) -> set[str]:
    return set(inspect(get_engine(url)).get_table_names())


def test_migrations_create_every_table_of_both_packages(empty_database_url: str) -> None:
    database_schema.migrate(empty_database_url)

    tables = _tables(empty_database_url)
    assert {"users", "alembic_version_api", "alembic_version_ingest"} <= tables


def test_migrating_twice_changes_nothing(empty_database_url: str) -> None:
    database_schema.migrate(empty_database_url)
    before = _tables(empty_database_url)

    database_schema.migrate(empty_database_url)

    assert _tables(empty_database_url) == before


def test_downgrade_removes_every_table_and_upgrade_restores_them(empty_database_url: str) -> None:
    database_schema.migrate(empty_database_url)
    created = _tables(empty_database_url)

    database_schema.downgrade(empty_database_url)
    assert _tables(empty_database_url) <= {"alembic_version_api", "alembic_version_ingest"}

    database_schema.migrate(empty_database_url)
    assert _tables(empty_database_url) == created


def _table_of(change: Any) -> str:
    """The table a difference is about (the other package's tables and indexes are not this metadata's)."""
    if isinstance(change, list):  # column modifications: [(kind, schema, table, column, ...), ...]
        return str(change[0][2])
    if change[0] in ("add_table", "remove_table"):
        return str(change[1].name)
    if change[0] in ("add_column", "remove_column"):
        return str(change[2])
    return str(change[1].table.name)


def test_the_models_match_the_migrations(database_url: str) -> None:
    """A model changed without a migration (or the reverse) would break in production only."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from api.models import Base as ApiBase
    from ingest.models import Base as IngestBase

    with get_engine(database_url).connect() as connection:
        context = MigrationContext.configure(connection)
        for metadata in (IngestBase.metadata, ApiBase.metadata):
            diff = [
                change
                for change in compare_metadata(context, metadata)
                if _table_of(change) in metadata.tables
            ]
            assert diff == []
