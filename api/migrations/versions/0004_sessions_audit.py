"""sessions note when they were last used (idle timeout); API tokens expire and can be revoked; the audit log;
messages' stats lose the worker's internal URL

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25
"""

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Tokens made before expiry existed get the default lifetime from the upgrade on.
EXISTING_TOKEN_DAYS = 90


def upgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE sessions SET last_seen_at = created_at")
    with op.batch_alter_table("sessions") as batch:
        batch.alter_column("last_seen_at", existing_type=sa.DateTime(timezone=True), nullable=False)

    with op.batch_alter_table("api_tokens") as batch:
        batch.add_column(sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True))
    expires = datetime.now(UTC) + timedelta(days=EXISTING_TOKEN_DAYS)
    op.execute(sa.text("UPDATE api_tokens SET expires_at = :expires").bindparams(expires=expires))
    with op.batch_alter_table("api_tokens") as batch:
        batch.alter_column("expires_at", existing_type=sa.DateTime(timezone=True), nullable=False)

    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("actor", sa.String(150), nullable=False),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("target", sa.String(255), nullable=True),
        sa.Column("client", sa.String(64), nullable=True),
        sa.Column("detail", sa.JSON(), nullable=False),
    )
    op.create_index("ix_audit_log_at", "audit_log", ["at"])
    _forget_worker_urls()


def _forget_worker_urls() -> None:
    """Messages stored the worker's internal URL in their stats, which clinicians get back; it goes."""
    messages = sa.table("messages", sa.column("id", sa.Integer()), sa.column("stats", sa.JSON()))
    connection = op.get_bind()
    for message_id, stats in connection.execute(sa.select(messages.c.id, messages.c.stats)):
        worker = (stats or {}).get("worker")
        if isinstance(worker, dict) and "url" in worker:
            kept = {key: value for key, value in worker.items() if key != "url"}
            connection.execute(
                messages.update().where(messages.c.id == message_id).values(stats={**stats, "worker": kept})
            )


def downgrade() -> None:
    op.drop_table("audit_log")
    with op.batch_alter_table("api_tokens") as batch:
        batch.drop_column("revoked_at")
        batch.drop_column("expires_at")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("last_seen_at")
