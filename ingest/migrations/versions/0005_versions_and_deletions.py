"""uploaded versions keep their own stored file until their job swaps them in; a deleted document leaves a
tombstone, so that a job queued before the delete cannot record it again

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("documents", sa.Column("file_path", sa.String(1024), nullable=True))
    op.add_column("ingest_job_files", sa.Column("file_path", sa.String(1024), nullable=True))
    op.create_table(
        "deleted_documents",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("last_job_id", sa.Integer(), nullable=False),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("deleted_documents")
    with op.batch_alter_table("ingest_job_files") as batch:
        batch.drop_column("file_path")
    with op.batch_alter_table("documents") as batch:
        batch.drop_column("file_path")
