"""Ingestion's tables: documents, ingestion jobs and their files.

A document is identified by the sha256 of its bytes; its chunks live in the search index, not here. An uploaded
document goes by its upload name (`source_path`) while its bytes lie in a stored version of our naming
(`file_path`), so a new version waits beside the live one until its job swaps them. A deleted document leaves a
tombstone that stops the jobs queued before the delete from recording it again. A job
keeps one row per file with that file's status, so a killed job can resume where it stopped and an admin can
see per file what happened; a document a pruning job removed because its file left the folder gets a
`withdrawn` row there too.
"""

from datetime import UTC, datetime
from enum import StrEnum

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


class Base(DeclarativeBase):
    pass


def _now() -> datetime:
    return datetime.now(UTC)


class JobStatus(StrEnum):
    running = "running"
    finished = "finished"


class FileStatus(StrEnum):
    queued = "queued"
    parsing = "parsing"
    embedding = "embedding"
    indexed = "indexed"
    skipped = "skipped"
    failed = "failed"
    withdrawn = "withdrawn"


FINAL_FILE_STATUSES = frozenset(
    {FileStatus.indexed, FileStatus.skipped, FileStatus.failed, FileStatus.withdrawn}
)


def _one_of(column: str, values: type[StrEnum]) -> str:
    return f"{column} IN ({', '.join(repr(v.value) for v in values)})"


class Document(Base):
    __tablename__ = "documents"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    source_path: Mapped[str] = mapped_column(String(1024), unique=True)
    file_path: Mapped[str | None] = mapped_column(String(1024))
    """Where the bytes are when not at `source_path`: an uploaded version, named by us."""
    view_path: Mapped[str | None] = mapped_column(String(1024))
    """The PDF the viewer shows when it is not the file itself: a Word file's conversion, a scan's OCR'd copy."""
    file_name: Mapped[str] = mapped_column(String(255))
    """The name as the admin gave it (an upload) or the file's own name."""
    title: Mapped[str] = mapped_column(String(500))
    metadata_title: Mapped[str | None] = mapped_column(String(500))
    """The PDF's own (cleaned) title: a title other documents carry too names none of them (`ingest/title.py`)."""
    page_count: Mapped[int] = mapped_column(Integer)
    pipeline_version: Mapped[int] = mapped_column(Integer, server_default="1")
    """The `PIPELINE_VERSION` that made the chunks: an older one's are made again by the next job over the file."""
    chunk_count: Mapped[int] = mapped_column(Integer)
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    audiences: Mapped[list[str]] = mapped_column(JSON)
    departments: Mapped[list[str]] = mapped_column(JSON)
    ingested_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    job_id: Mapped[int | None] = mapped_column(ForeignKey("ingest_jobs.id", ondelete="SET NULL"))

    @property
    def stored_file(self) -> str:
        return self.file_path or self.source_path

    @property
    def converted(self) -> bool:
        return self.view_path is not None

    @property
    def shown_file(self) -> str:
        """The PDF the viewer shows (the highlight is found in its text layer)."""
        return self.view_path or self.stored_file


class DeletedDocument(Base):
    """A document an admin deleted: jobs up to `last_job_id` (queued before the delete) must not record it."""

    __tablename__ = "deleted_documents"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    last_job_id: Mapped[int] = mapped_column(Integer)
    deleted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class Job(Base):
    __tablename__ = "ingest_jobs"
    __table_args__ = (CheckConstraint(_one_of("status", JobStatus), name="ck_ingest_jobs_status"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    status: Mapped[JobStatus] = mapped_column(String(20))
    paths: Mapped[list[str]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    owner: Mapped[str | None] = mapped_column(String(255))
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    files: Mapped[list["JobFile"]] = relationship(
        back_populates="job", order_by="JobFile.position", cascade="all, delete-orphan", passive_deletes=True
    )


class JobFile(Base):
    __tablename__ = "ingest_job_files"
    __table_args__ = (
        UniqueConstraint("job_id", "path", name="uq_ingest_job_files_job_path"),
        CheckConstraint(_one_of("status", FileStatus), name="ck_ingest_job_files_status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("ingest_jobs.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    path: Mapped[str] = mapped_column(String(1024))
    file_path: Mapped[str | None] = mapped_column(String(1024))
    """The stored version to read when the file's bytes are not at `path` (an upload)."""
    original_name: Mapped[str | None] = mapped_column(String(255))
    """An upload's name as the admin gave it: the document is recorded under it."""
    note: Mapped[str | None] = mapped_column(Text)
    """What the admin should know from before the file was read (an upload stored under another name)."""
    status: Mapped[FileStatus] = mapped_column(String(20))
    message: Mapped[str | None] = mapped_column(Text)
    document_id: Mapped[str | None] = mapped_column(String(64))
    chunks_total: Mapped[int] = mapped_column(Integer, default=0)
    chunks_done: Mapped[int] = mapped_column(Integer, default=0)
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Parsing attempts started: a job resumed after dying on a file gives it up after `parse_attempts`."""
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now, onupdate=_now)

    job: Mapped[Job] = relationship(back_populates="files")
