"""The API's tables. Ingestion's tables (documents, jobs) live in `ingest.models`.

Secrets are never stored: sessions and API tokens are kept as the sha256 of the random value handed to the
client, passwords as argon2 hashes. Feedback names documents by id without a foreign key, so it outlives a
document that was deleted or replaced (evaluators still want it).
"""

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


class Base(DeclarativeBase):
    pass


def _now() -> datetime:
    return datetime.now(UTC)


def _one_of(column: str, values: type[StrEnum]) -> str:
    return f"{column} IN ({', '.join(repr(v.value) for v in values)})"


class Role(StrEnum):
    clinician = "clinician"
    admin = "admin"
    evaluator = "evaluator"


class MessageState(StrEnum):
    """`generating` while the answer streams; every other state is final."""

    generating = "generating"
    answered = "answered"
    not_found = "not_found"
    retrieval_only = "retrieval_only"
    stopped = "stopped"
    failed = "failed"


class ReportStatus(StrEnum):
    queued = "queued"
    running = "running"
    finished = "finished"
    failed = "failed"


class ProcessRole(StrEnum):
    """What a process among the replicas does (`api_instances.role`)."""

    api = "api"  # serves requests (`python -m api`)
    reports = "reports"  # runs the queued evaluation reports (`python -m api reports`)


class ReportKind(StrEnum):
    retrieval = "retrieval"  # Hit@k / MRR of the chat's retrieval
    answers = "answers"  # answer quality through the chat (quote, generated answer, support)


class User(Base):
    __tablename__ = "users"
    __table_args__ = (UniqueConstraint("oidc_subject", name="uq_users_oidc_subject"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(150), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(255))
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    oidc_subject: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)

    role_rows: Mapped[list["UserRole"]] = relationship(
        back_populates="user", cascade="all, delete-orphan", passive_deletes=True, lazy="selectin"
    )

    @property
    def roles(self) -> frozenset[Role]:
        return frozenset(Role(row.role) for row in self.role_rows)

    def has_role(self, *roles: Role) -> bool:
        return not self.roles.isdisjoint(roles)


class UserRole(Base):
    __tablename__ = "user_roles"
    __table_args__ = (CheckConstraint(_one_of("role", Role), name="ck_user_roles_role"),)

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    role: Mapped[str] = mapped_column(String(20), primary_key=True)

    user: Mapped[User] = relationship(back_populates="role_rows")


class LoginSession(Base):
    """A browser session: the cookie holds the random token, the table its sha256 and the CSRF token."""

    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class ApiInstance(Base):
    """One process of the api package (an API process or a report runner), alive while its heartbeat is recent
    (api/chat/instances.py): the answers and the report a process was running when it died are closed by the
    others, and only a live process's generation can be stopped."""

    __tablename__ = "api_instances"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    heartbeat_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    role: Mapped[str] = mapped_column(
        String(16), default=ProcessRole.api, server_default=ProcessRole.api.value
    )
    process: Mapped[str | None] = mapped_column(String(300))  # host:pid


class KnownSignInClient(Base):
    """An address an account signed in from with its password, and when last (services/login.py: there the name
    waits only for its own failed logins, not for the address's or the account's)."""

    __tablename__ = "known_sign_in_clients"
    __table_args__ = (Index("ix_known_sign_in_clients_last_at", "last_at"),)

    username: Mapped[str] = mapped_column(String(150), primary_key=True)
    client: Mapped[str] = mapped_column(String(64), primary_key=True)
    last_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LoginAttempt(Base):
    """A password login, recorded before its password is checked; the failed and unfinished ones within the
    window count against the login limits (services/login.py), a successful one is marked and no longer counts."""

    __tablename__ = "login_attempts"
    __table_args__ = (
        Index("ix_login_attempts_username_at", "username", "at"),
        Index("ix_login_attempts_client_at", "client", "at"),
        Index("ix_login_attempts_at", "at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(150))
    client: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    succeeded: Mapped[bool] = mapped_column(Boolean, default=False)


class ApiToken(Base):
    """A bearer token for scripts; only its sha256 is stored. It ends at `expires_at` or when revoked."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(150))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class AuditEntry(Base):
    """Who did what, when: sign-ins (successful or not) and admins' actions. `actor` is the name as given (a
    failed sign-in may name no account); `actor_id` links the account while it exists."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now, index=True)
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    actor: Mapped[str] = mapped_column(String(150))
    action: Mapped[str] = mapped_column(String(64))
    target: Mapped[str | None] = mapped_column(String(255))
    client: Mapped[str | None] = mapped_column(String(64))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class Conversation(Base):
    __tablename__ = "conversations"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    answer_found: Mapped[bool | None] = mapped_column(Boolean)
    answer_found_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    messages: Mapped[list["Message"]] = relationship(
        back_populates="conversation",
        order_by="Message.id",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )


class Message(Base):
    """One question and its answer, stored from the start so a broken stream still leaves a record.

    `sources` holds the retrieved chunks as shown to the user (document id, title, pages, passage, score);
    `stats` the worker's statistics (timings, tokens, τ) and retrieval's raw scores; `quote` the passage
    sentence(s) quoted before the answer, `sentences` the generated answer's sentences with their support and
    citation, `support_warning` whether most were unsupported (api/answers, docs/api.md). While `generating`,
    `instance_id` names the API process streaming it and `stop_requested_at` is set by a stop sent to any process.
    """

    __tablename__ = "messages"
    __table_args__ = (
        CheckConstraint(_one_of("state", MessageState), name="ck_messages_state"),
        Index("ix_messages_state", "state"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    conversation_id: Mapped[int] = mapped_column(
        ForeignKey("conversations.id", ondelete="CASCADE"), index=True
    )
    question: Mapped[str] = mapped_column(Text)
    answer: Mapped[str] = mapped_column(Text, default="")
    state: Mapped[str] = mapped_column(String(20), default=MessageState.generating)
    stop_reason: Mapped[str | None] = mapped_column(String(40))
    retrieval_only: Mapped[bool] = mapped_column(Boolean, default=False)
    sources: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    model: Mapped[str | None] = mapped_column(String(255))
    method: Mapped[str | None] = mapped_column(String(40))
    stats: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    quote: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    sentences: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list, server_default=text("'[]'"))
    support_warning: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    instance_id: Mapped[str | None] = mapped_column(String(32))
    stop_requested_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    conversation: Mapped[Conversation] = relationship(back_populates="messages")
    feedback: Mapped[list["DocumentFeedback"]] = relationship(
        back_populates="message",
        order_by="DocumentFeedback.id",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )


class DocumentFeedback(Base):
    """The source UI's two questions about one document shown with one answer (null = not answered)."""

    __tablename__ = "document_feedback"
    __table_args__ = (
        UniqueConstraint("message_id", "document_id", name="uq_document_feedback_message_document"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("messages.id", ondelete="CASCADE"), index=True)
    document_id: Mapped[str] = mapped_column(String(64))
    contains_answer: Mapped[bool | None] = mapped_column(Boolean)
    highlight_correct: Mapped[bool | None] = mapped_column(Boolean)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now, onupdate=_now)

    message: Mapped[Message] = relationship(back_populates="feedback")


class EvaluationSet(Base):
    """A labelled question set uploaded by an evaluator; the CSV is kept verbatim (the report reads it)."""

    __tablename__ = "evaluation_sets"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(255))
    content: Mapped[str] = mapped_column(Text)
    questions: Mapped[int] = mapped_column(Integer)
    unresolved: Mapped[list[str]] = mapped_column(JSON, default=list)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class EvaluationReport(Base):
    """A report run over one set; its files live in the report folder named by the id, listed in `files`."""

    __tablename__ = "evaluation_reports"
    __table_args__ = (CheckConstraint(_one_of("status", ReportStatus), name="ck_evaluation_reports_status"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    set_id: Mapped[int] = mapped_column(ForeignKey("evaluation_sets.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(20), default=ReportStatus.queued)
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    error: Mapped[str | None] = mapped_column(Text)
    metrics: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    files: Mapped[list[str]] = mapped_column(JSON, default=list)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The report runner (api_instances.id) that took the report: failed only once that process is gone.
    instance_id: Mapped[str | None] = mapped_column(String(32))

    @property
    def kind(self) -> ReportKind:
        """An answer report keeps its figures under "answers" in `metrics`, from the moment it is queued (an empty
        entry until it finishes): the kind needs no column of its own."""
        return ReportKind.answers if ReportKind.answers in self.metrics else ReportKind.retrieval
