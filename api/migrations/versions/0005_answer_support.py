"""messages keep the quote and the generated sentences' support

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("messages") as table:
        table.add_column(sa.Column("quote", sa.JSON(), nullable=True))
        table.add_column(sa.Column("sentences", sa.JSON(), nullable=False, server_default=sa.text("'[]'")))
        table.add_column(
            sa.Column("support_warning", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("messages") as table:
        table.drop_column("support_warning")
        table.drop_column("sentences")
        table.drop_column("quote")
