"""Creating and removing ingestion's tables through its Alembic history."""

from pathlib import Path

from ingest import database

MIGRATIONS = Path(__file__).parent / "migrations"
VERSION_TABLE = "alembic_version_ingest"


def migrate(url: str, revision: str = "head") -> None:
    database.upgrade(url, MIGRATIONS, VERSION_TABLE, revision)


def downgrade(url: str, revision: str = "base") -> None:
    database.downgrade(url, MIGRATIONS, VERSION_TABLE, revision)
