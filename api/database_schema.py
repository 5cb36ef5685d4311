"""The whole database schema: ingestion's tables first (the API's may refer to them), then the API's."""

from pathlib import Path

from ingest import database
from ingest import database_schema as ingest_schema

MIGRATIONS = Path(__file__).parent / "migrations"
VERSION_TABLE = "alembic_version_api"


def migrate(url: str) -> None:
    ingest_schema.migrate(url)
    database.upgrade(url, MIGRATIONS, VERSION_TABLE)


def downgrade(url: str) -> None:
    """Remove every table, the API's first (they may refer to ingestion's)."""
    database.downgrade(url, MIGRATIONS, VERSION_TABLE)
    ingest_schema.downgrade(url)
