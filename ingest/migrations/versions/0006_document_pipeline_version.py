"""documents record the version of the pipeline that made their chunks, so a new release reads old ones again

Revision ID: 0006
Revises: 0004
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "documents", sa.Column("pipeline_version", sa.Integer(), nullable=False, server_default="1")
    )


def downgrade() -> None:
    with op.batch_alter_table("documents") as batch:
        batch.drop_column("pipeline_version")
