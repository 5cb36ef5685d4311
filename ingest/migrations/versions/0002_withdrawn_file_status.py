"""a job file can be `withdrawn`: its document was removed because the file left its folder

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CONSTRAINT = "ck_ingest_job_files_status"
STATUSES = ("queued", "parsing", "embedding", "indexed", "skipped", "failed")


def _allow(statuses: Sequence[str]) -> None:
    with op.batch_alter_table("ingest_job_files") as batch:
        batch.drop_constraint(CONSTRAINT, type_="check")
        batch.create_check_constraint(CONSTRAINT, f"status IN ({', '.join(repr(s) for s in statuses)})")


def upgrade() -> None:
    _allow((*STATUSES, "withdrawn"))


def downgrade() -> None:
    """The old constraint cannot hold the records of withdrawn documents; they go (the documents are gone)."""
    op.execute("DELETE FROM ingest_job_files WHERE status = 'withdrawn'")
    _allow(STATUSES)
