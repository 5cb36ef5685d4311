"""API instances with their heartbeat, and per message its instance and a stop request, so several API processes
behind one proxy behave as one

Revision ID: 0006
Revises: 0005
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
    op.create_table(
        "api_instances",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("messages") as table:
        table.add_column(sa.Column("instance_id", sa.String(32), nullable=True))
        table.add_column(sa.Column("stop_requested_at", sa.DateTime(timezone=True), nullable=True))
        table.create_index("ix_messages_state", ["state"])


def downgrade() -> None:
    with op.batch_alter_table("messages") as table:
        table.drop_index("ix_messages_state")
        table.drop_column("stop_requested_at")
        table.drop_column("instance_id")
    op.drop_table("api_instances")
