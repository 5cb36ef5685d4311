"""users hold several roles and can be disabled; sessions, API tokens, conversations, messages, feedback,
evaluation sets and reports

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ROLES = "role IN ('clinician', 'admin', 'evaluator')"
STATES = "state IN ('generating', 'answered', 'not_found', 'retrieval_only', 'stopped', 'failed')"
REPORT_STATUSES = "status IN ('queued', 'running', 'finished', 'failed')"


def _timestamp(name: str, nullable: bool = False) -> sa.Column[datetime]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    _users_hold_several_roles()
    _sessions_and_tokens()
    _conversations_and_messages()
    _evaluation()


def _users_hold_several_roles() -> None:
    op.create_table(
        "user_roles",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("role", sa.String(20), primary_key=True),
        sa.CheckConstraint(ROLES, name="ck_user_roles_role"),
    )
    op.execute("INSERT INTO user_roles (user_id, role) SELECT id, role FROM users")
    with op.batch_alter_table("users") as batch:
        batch.drop_constraint("ck_users_role", type_="check")
        batch.drop_column("role")
        batch.add_column(sa.Column("disabled", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("oidc_subject", sa.String(255), nullable=True))
        batch.alter_column("password_hash", existing_type=sa.String(255), nullable=True)
        batch.create_unique_constraint("uq_users_oidc_subject", ["oidc_subject"])


def _sessions_and_tokens() -> None:
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("csrf_token", sa.String(64), nullable=False),
        _timestamp("created_at"),
        _timestamp("expires_at"),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("name", sa.String(150), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        _timestamp("created_at"),
        _timestamp("last_used_at", nullable=True),
    )
    op.create_index("ix_api_tokens_user_id", "api_tokens", ["user_id"])


def _conversations_and_messages() -> None:
    op.create_table(
        "conversations",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        _timestamp("created_at"),
        _timestamp("updated_at"),
        sa.Column("answer_found", sa.Boolean(), nullable=True),
        _timestamp("answer_found_at", nullable=True),
    )
    op.create_index("ix_conversations_user_id", "conversations", ["user_id"])
    op.create_table(
        "messages",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "conversation_id",
            sa.Integer(),
            sa.ForeignKey("conversations.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("stop_reason", sa.String(40), nullable=True),
        sa.Column("retrieval_only", sa.Boolean(), nullable=False),
        sa.Column("sources", sa.JSON(), nullable=False),
        sa.Column("model", sa.String(255), nullable=True),
        sa.Column("method", sa.String(40), nullable=True),
        sa.Column("stats", sa.JSON(), nullable=False),
        _timestamp("created_at"),
        _timestamp("finished_at", nullable=True),
        sa.CheckConstraint(STATES, name="ck_messages_state"),
    )
    op.create_index("ix_messages_conversation_id", "messages", ["conversation_id"])
    op.create_table(
        "document_feedback",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "message_id", sa.Integer(), sa.ForeignKey("messages.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("document_id", sa.String(64), nullable=False),
        sa.Column("contains_answer", sa.Boolean(), nullable=True),
        sa.Column("highlight_correct", sa.Boolean(), nullable=True),
        _timestamp("updated_at"),
        sa.UniqueConstraint("message_id", "document_id", name="uq_document_feedback_message_document"),
    )
    op.create_index("ix_document_feedback_message_id", "document_feedback", ["message_id"])


def _evaluation() -> None:
    op.create_table(
        "evaluation_sets",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("questions", sa.Integer(), nullable=False),
        sa.Column("unresolved", sa.JSON(), nullable=False),
        sa.Column("created_by", sa.Integer(), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        _timestamp("created_at"),
    )
    op.create_table(
        "evaluation_reports",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "set_id", sa.Integer(), sa.ForeignKey("evaluation_sets.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("progress", sa.Float(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("metrics", sa.JSON(), nullable=False),
        sa.Column("files", sa.JSON(), nullable=False),
        sa.Column("created_by", sa.Integer(), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        _timestamp("created_at"),
        _timestamp("finished_at", nullable=True),
        sa.CheckConstraint(REPORT_STATUSES, name="ck_evaluation_reports_status"),
    )
    op.create_index("ix_evaluation_reports_set_id", "evaluation_reports", ["set_id"])


def downgrade() -> None:
    """Back to one role per user (the first by name); everything else of this revision goes."""
    for table in (
        "evaluation_reports",
        "evaluation_sets",
        "document_feedback",
        "messages",
        "conversations",
        "api_tokens",
        "sessions",
    ):
        op.drop_table(table)
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("role", sa.String(20), nullable=False, server_default="clinician"))
    op.execute(
        "UPDATE users SET role = COALESCE((SELECT MIN(role) FROM user_roles WHERE user_id = users.id), 'clinician')"
    )
    op.execute("UPDATE users SET password_hash = '!' WHERE password_hash IS NULL")
    with op.batch_alter_table("users") as batch:
        batch.drop_constraint("uq_users_oidc_subject", type_="unique")
        batch.drop_column("oidc_subject")
        batch.drop_column("disabled")
        batch.alter_column("password_hash", existing_type=sa.String(255), nullable=False)
        batch.create_check_constraint("ck_users_role", ROLES)
    op.drop_table("user_roles")
