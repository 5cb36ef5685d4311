"""Request and response bodies of the routes (the OpenAPI schema is generated from these)."""

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from api.models import ReportKind, Role
from ingest.models import FileStatus, JobStatus

MAX_QUESTION_CHARS = 4000  # a clinician's question in the chat, and a question of an evaluation set


def refuse_nul(value: str) -> str:
    """PostgreSQL text cannot hold NUL and SQLite can: refusing it at the edge keeps both databases alike."""
    if "\x00" in value:
        raise ValueError("text may not contain NUL (0x00) characters")
    return value


Text = Annotated[str, AfterValidator(refuse_nul)]
"""Every string a client sends: body fields, path and query parameters."""


def _utc(moment: datetime) -> datetime:
    """SQLite gives back naive datetimes, stored in UTC: every moment a client reads carries its offset."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


UtcDatetime = Annotated[datetime, AfterValidator(_utc)]


class UserOut(BaseModel):
    id: int
    username: str
    roles: list[Role]
    disabled: bool


class LoginRequest(BaseModel):
    username: Text = Field(min_length=1, max_length=150)
    password: Text = Field(min_length=1, max_length=1024)


class SessionOut(BaseModel):
    user: UserOut
    csrf_token: str | None = Field(description="Send it as X-CSRF-Token on unsafe methods (cookie sign-in).")


class AuthConfigOut(BaseModel):
    sso: bool = Field(description="Whether the login page offers the hospital's single sign-on.")


class ConversationCreate(BaseModel):
    title: Text | None = Field(None, max_length=200)


class ConversationOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    title: str
    created_at: UtcDatetime
    updated_at: UtcDatetime


class DocumentFeedbackIn(BaseModel):
    contains_answer: bool | None = None
    highlight_correct: bool | None = None


class DocumentFeedbackOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    message_id: int
    document_id: str
    contains_answer: bool | None
    highlight_correct: bool | None
    updated_at: UtcDatetime


class MessageOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    question: str
    answer: str
    state: str
    stop_reason: str | None
    stop_requested_at: UtcDatetime | None = Field(
        None, description="When its owner asked to stop the answer (null: never), also if it ended otherwise."
    )
    created_at: UtcDatetime
    sources: list[dict[str, Any]]
    feedback: list[DocumentFeedbackOut]
    model: str | None
    method: str | None
    stats: dict[str, Any]
    quote: dict[str, Any] | None = Field(
        None,
        description="The passage sentence(s) quoted before the answer (docs/api.md `Quote`); null: none.",
    )
    sentences: list[dict[str, Any]] = Field(
        default_factory=list,
        description="The generated answer's sentences, supported or not (`AnswerSentence`).",
    )
    support_warning: bool = Field(False, description="Most sentences of the answer are not in the sources.")


class ConversationDetail(ConversationOut):
    answer_found: bool | None
    messages: list[MessageOut]


class AnswerFoundIn(BaseModel):
    answer_found: bool


class AnswerFoundOut(BaseModel):
    conversation_id: int
    answer_found: bool


class DocumentOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    title: str
    file_name: str = Field(description="The name the admin gave an upload, or the file's own name.")
    converted: bool = Field(
        False,
        description="The PDF shown (`/file`) is a conversion (Word, OpenDocument) or an OCR'd copy of a scan; "
        "the file as ingested is at `/original`.",
    )
    page_count: int
    chunk_count: int
    audiences: list[str]
    departments: list[str]
    ingested_at: UtcDatetime


class PassageOut(BaseModel):
    document_id: str
    chunk_index: int
    page_start: int
    page_end: int
    char_start: int
    char_end: int
    text: str = Field(
        description="The cleaned passage (without the `Titel:` prefix) that the viewer highlights."
    )


class JobFileOut(BaseModel):
    """A job's file by its name only: the server's folders stay on the server."""

    name: str
    status: FileStatus
    message: str | None
    note: str | None = Field(
        None,
        description="How the file was stored, when the admin should know (under another name than its own).",
    )
    chunks_total: int
    chunks_done: int


class JobOut(BaseModel):
    id: int
    status: JobStatus
    created_at: UtcDatetime
    finished_at: UtcDatetime | None
    progress: float = Field(ge=0, le=1)
    counts: dict[str, int]
    files: list[JobFileOut]


class JobCreated(BaseModel):
    job: JobOut


class UserCreate(BaseModel):
    username: Text = Field(min_length=1, max_length=150)
    password: Text = Field(min_length=1, max_length=1024)
    roles: list[Role] = Field(default_factory=lambda: [Role.clinician])


class UserUpdate(BaseModel):
    roles: list[Role] | None = None
    disabled: bool | None = None
    password: Text | None = Field(None, min_length=1, max_length=1024)


class ApiTokenOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    created_at: UtcDatetime
    expires_at: UtcDatetime
    last_used_at: UtcDatetime | None
    revoked_at: UtcDatetime | None


class AuditEntryOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    at: UtcDatetime
    actor: str = Field(description="The account name, as given at sign-in (a failed one may name none).")
    action: str
    target: str | None
    client: str | None = Field(description="The client's address (sign-ins).")
    detail: dict[str, Any]


class EvaluationSetOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    questions: int
    unresolved: list[str] = Field(
        description="References that name no indexed document (left out of averages)."
    )
    created_at: UtcDatetime


class ReportCreate(BaseModel):
    set_id: int = Field(ge=1, le=2**31 - 1)
    kind: ReportKind = Field(
        ReportKind.retrieval,
        description="retrieval: Hit@k / MRR; answers: each question asked through the chat (needs the set's "
        "`answer` column).",
    )


class ReportOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    set_id: int
    kind: ReportKind
    status: str
    progress: float
    created_at: UtcDatetime
    finished_at: UtcDatetime | None
    error: str | None
    metrics: dict[str, dict[str, float]]
    files: list[str]
