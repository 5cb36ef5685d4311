"""per evaluation report the API process that runs it (only a dead process's reports are failed), and the
addresses each account signed in from (a correct password from a known address passes address- and account-wide
login limits, after a delay)

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
    with op.batch_alter_table("evaluation_reports") as table:
        table.add_column(sa.Column("instance_id", sa.String(32), nullable=True))
    op.create_table(
        "known_sign_in_clients",
        sa.Column("username", sa.String(150), primary_key=True),
        sa.Column("client", sa.String(64), primary_key=True),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_known_sign_in_clients_last_at", "known_sign_in_clients", ["last_at"])


def downgrade() -> None:
    op.drop_table("known_sign_in_clients")
    with op.batch_alter_table("evaluation_reports") as table:
        table.drop_column("instance_id")
