"""a job file keeps the name an upload was given (a document is replaced only by the same name or the admin's
choice); a document converted or OCR'd keeps the PDF the viewer shows beside its original

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("ingest_job_files", sa.Column("original_name", sa.String(255), nullable=True))
    op.add_column("ingest_job_files", sa.Column("note", sa.Text(), nullable=True))
    op.add_column("documents", sa.Column("view_path", sa.String(1024), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("documents") as batch:
        batch.drop_column("view_path")
    with op.batch_alter_table("ingest_job_files") as batch:
        batch.drop_column("note")
        batch.drop_column("original_name")
