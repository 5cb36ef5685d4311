"""per process among the replicas its role (an API process or a report runner) and where it runs (host:pid): the
API queues evaluation reports only while a report runner is alive, and the runner a report ran in is known

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("api_instances") as table:
        table.add_column(sa.Column("role", sa.String(16), nullable=False, server_default="api"))
        table.add_column(sa.Column("process", sa.String(300), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("api_instances") as table:
        table.drop_column("process")
        table.drop_column("role")
