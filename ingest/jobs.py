"""Ingestion jobs in the database: creating them, claiming them, recording per-file status, summarising.

A job lists its files up front (folders expanded), each `queued`; an uploaded file is listed under its upload name
with the stored version its bytes are in. The process working on a job records itself as owner and refreshes a
heartbeat; a job still `running` that nobody owns (queued by the API), whose owner has died (same host, pid gone)
or whose heartbeat is stale is free, and the next worker takes it over: files already indexed, skipped or failed
stay as they are, the others are processed again (which is safe: see `runner.py`). Taking a job is one
conditional UPDATE on the owner the worker saw, so of several workers that saw a job free, one gets it.
"""

import os
import socket
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import func, select, text, update
from sqlalchemy.orm import Session

from ingest.database import session_scope
from ingest.formats import is_document_name
from ingest.models import FINAL_FILE_STATUSES, Document, FileStatus, Job, JobFile, JobStatus

STALE_HEARTBEAT = timedelta(minutes=10)
UPLOAD_PLACES_LOCK = 7_261_918  # the PostgreSQL advisory lock key uploads choose their paths under


@dataclass(frozen=True)
class FileState:
    path: str
    status: FileStatus
    message: str | None
    document_id: str | None
    chunks_total: int
    chunks_done: int
    note: str | None = None
    """What the admin should know from before the file was read (an upload stored under another name)."""
    original_name: str | None = None
    """An upload's name as the admin gave it."""

    @property
    def name(self) -> str:
        return self.original_name or Path(self.path).name


@dataclass(frozen=True)
class Version:
    """An uploaded file: the path it goes by (`source`, what a later upload of the same name replaces), the stored
    copy of our naming that holds its bytes, the name the admin gave it and what the admin should know about how
    it was stored (`note`: under another name than its own, say)."""

    source: Path
    stored: Path
    name: str | None = None
    note: str | None = None


Placing = Callable[[dict[str, str]], list[Version]]
"""Chooses uploads' paths, given the paths in use (path → name) in their folder."""


@dataclass(frozen=True)
class PendingFile:
    id: int
    path: str
    """The name the document goes by."""
    stored: str
    """The file to read: `path` itself, or an uploaded version."""
    original_name: str | None = None
    """An upload's name as the admin gave it (None: the file's own name)."""


@dataclass(frozen=True)
class JobSummary:
    id: int
    status: JobStatus
    requested: tuple[str, ...]
    created_at: datetime
    finished_at: datetime | None
    counts: dict[FileStatus, int]
    files: tuple[FileState, ...]

    @property
    def total(self) -> int:
        return len(self.files)

    @property
    def done(self) -> int:
        return sum(self.counts.get(status, 0) for status in FINAL_FILE_STATUSES)

    @property
    def progress(self) -> float:
        """Share of files finished, counting the chunks embedded so far of the file in progress."""
        if not self.files:
            return 1.0
        partial = sum(
            file.chunks_done / file.chunks_total
            for file in self.files
            if file.status not in FINAL_FILE_STATUSES and file.chunks_total
        )
        return (self.done + partial) / self.total

    @property
    def failed(self) -> tuple[FileState, ...]:
        return tuple(file for file in self.files if file.status == FileStatus.failed)


def expand_paths(paths: Iterable[Path]) -> tuple[list[Path], dict[Path, Path]]:
    """Files to ingest (folders searched recursively for PDF, Word and OpenDocument files, sorted) and, per file,
    the folder it was found in.

    Explicitly named files are kept whatever they are, so a missing or mistyped file fails visibly instead
    of disappearing. A path that appears twice is listed once.
    """
    files: dict[Path, None] = {}
    roots: dict[Path, Path] = {}
    for path in paths:
        absolute = Path(os.path.abspath(path))
        if absolute.is_dir():
            for found in sorted(_documents_below(absolute)):
                files.setdefault(found)
                roots.setdefault(found, absolute)
        else:
            files.setdefault(absolute)
    return list(files), roots


def _documents_below(folder: Path) -> Iterable[Path]:
    """Document entries below a folder (by their names: .pdf, .docx, .doc, .odt), dangling links and other
    non-regular entries included (they fail clearly); Office's lock files (`~$x.docx`) are not documents."""
    for directory, _, names in os.walk(folder):
        for name in names:
            if is_document_name(name) and not name.startswith("~$"):
                yield Path(directory) / name


def create_job(
    database_url: str, paths: Sequence[Path], versions: Sequence[Version] = (), *, owned: bool = False
) -> int:
    """Register a job over these files and folders and uploaded versions, every file queued; returns the job id.
    `owned`: this process runs it (no worker may take it); otherwise it waits for a worker."""
    files, _ = expand_paths(paths)
    with session_scope(database_url) as session:
        job = Job(
            status=JobStatus.running,
            paths=[os.path.abspath(path) for path in paths],
            owner=owner_tag() if owned else None,
            heartbeat_at=datetime.now(UTC) if owned else None,
        )
        job.files = [_queued(position, str(path)) for position, path in enumerate(files)]
        session.add(job)
        session.flush()
        _add_versions(session, job, versions)
        return job.id


def create_upload_job(database_url: str, folder: Path, place: Placing) -> tuple[int, list[Version]]:
    """Register a job over uploaded versions whose paths `place` chooses, given the paths in use in `folder`
    (`names_in_use`); returns the job id and the versions as placed. Choosing and queuing are one transaction that
    holds the uploads' lock, so two uploads at once never choose one path (each sees the other's files)."""
    with session_scope(database_url) as session:
        job = Job(status=JobStatus.running, paths=[], owner=None, heartbeat_at=None)
        session.add(job)
        session.flush()  # on SQLite this write holds the database's write lock until the commit
        _lock_upload_places(session)
        versions = place(names_in_use(session, folder))
        _add_versions(session, job, versions)
        return job.id, versions


def _add_versions(session: Session, job: Job, versions: Sequence[Version]) -> None:
    """Uploaded versions, queued after the job's files by path."""
    first = len(job.files)
    job.paths = [*job.paths, *(str(version.source) for version in versions)]
    job.files.extend(
        _queued(first + offset, str(v.source), str(v.stored), v.name, v.note)
        for offset, v in enumerate(versions)
    )
    session.flush()


def _lock_upload_places(session: Session) -> None:
    """PostgreSQL: an advisory lock until the transaction ends, taken by every upload that chooses paths (SQLite:
    the write lock the transaction already holds)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": UPLOAD_PLACES_LOCK})


def owner_tag() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def claim_next(database_url: str) -> int | None:
    """Take the oldest free job (queued, or left by a process that is gone) for this process; None when none is
    free. A job another worker took between the look and the take is passed over."""
    with session_scope(database_url) as session:
        running = session.execute(
            select(Job.id, Job.owner, Job.heartbeat_at)
            .where(Job.status == JobStatus.running)
            .order_by(Job.id)
        ).all()
    for job_id, owner, heartbeat_at in running:
        if _abandoned(owner, heartbeat_at) and _take(database_url, job_id, owner):
            return job_id
    return None


def _take(database_url: str, job_id: int, seen_owner: str | None) -> bool:
    """Become the job's owner if it still has the owner this process saw: one statement, atomic on SQLite and on
    PostgreSQL (a second UPDATE waits for the first and then finds the owner changed)."""
    still_seen = Job.owner.is_(None) if seen_owner is None else Job.owner == seen_owner
    with session_scope(database_url) as session:
        result = session.execute(
            update(Job)
            .where(Job.id == job_id, Job.status == JobStatus.running, still_seen)
            .values(owner=owner_tag(), heartbeat_at=datetime.now(UTC))
        )
        return bool(result.rowcount == 1)  # type: ignore[attr-defined]


def _abandoned(owner: str | None, heartbeat_at: datetime | None) -> bool:
    if owner is None or heartbeat_at is None:
        return True
    host, _, pid = owner.rpartition(":")
    if host == socket.gethostname() and pid.isdigit():
        return not _process_alive(int(pid))
    return datetime.now(UTC) - _aware(heartbeat_at) > STALE_HEARTBEAT


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _aware(moment: datetime) -> datetime:
    """SQLite returns naive datetimes even for timezone-aware columns; they were stored in UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def pending_files(database_url: str, job_id: int) -> list[PendingFile]:
    """The job's files not yet finished, in job order."""
    with session_scope(database_url) as session:
        rows = session.execute(
            select(JobFile.id, JobFile.path, JobFile.file_path, JobFile.original_name)
            .where(JobFile.job_id == job_id, JobFile.status.not_in([s.value for s in FINAL_FILE_STATUSES]))
            .order_by(JobFile.position)
        ).all()
        return [PendingFile(row.id, row.path, row.file_path or row.path, row.original_name) for row in rows]


def set_file_status(
    database_url: str,
    file_id: int,
    status: FileStatus,
    message: str | None = None,
    *,
    document_id: str | None = None,
    chunks_total: int | None = None,
    chunks_done: int | None = None,
) -> None:
    """Record a file's new status (and refresh the job's heartbeat in the same transaction)."""
    values: dict[str, object] = {"status": status, "message": message, "updated_at": datetime.now(UTC)}
    if document_id is not None:
        values["document_id"] = document_id
    if chunks_total is not None:
        values["chunks_total"] = chunks_total
    if chunks_done is not None:
        values["chunks_done"] = chunks_done
    with session_scope(database_url) as session:
        job_id = session.execute(
            update(JobFile).where(JobFile.id == file_id).values(**values).returning(JobFile.job_id)
        ).scalar_one()
        session.execute(update(Job).where(Job.id == job_id).values(heartbeat_at=datetime.now(UTC)))


def start_attempt(database_url: str, file_id: int, limit: int) -> bool:
    """Count one more parsing attempt of a file (status `parsing`); False, counting nothing, when `limit`
    attempts were already made: this job (or an earlier run of it that died while parsing) gave up on it."""
    with session_scope(database_url) as session:
        file = session.get(JobFile, file_id)
        if file is None:
            raise LookupError(f"job file {file_id} does not exist")
        if file.attempts >= limit:
            return False
        file.attempts += 1
        file.status = FileStatus.parsing
        file.message = None
        session.execute(update(Job).where(Job.id == file.job_id).values(heartbeat_at=datetime.now(UTC)))
        return True


def names_in_use(session: Session, folder: Path) -> dict[str, str]:
    """The paths in `folder` that a document or an unfinished job's file goes by, each with its name as given
    (an upload's) or as recorded: an upload of another name must not take such a path."""
    prefix = f"{str(folder).rstrip(os.sep)}{os.sep}"
    documents = session.execute(
        select(Document.source_path, Document.file_name).where(
            Document.source_path.startswith(prefix, autoescape=True)
        )
    ).all()
    queued = session.execute(
        select(JobFile.path, JobFile.original_name).where(
            JobFile.path.startswith(prefix, autoescape=True),
            JobFile.status.not_in([s.value for s in FINAL_FILE_STATUSES]),
        )
    ).all()
    in_use = {path: name for path, name in documents}
    for path, name in queued:
        in_use.setdefault(path, name or Path(path).name)
    return in_use


def stored_copy(database_url: str, file_id: int) -> str | None:
    """The stored upload a job file reads (None: a file ingested by path)."""
    with session_scope(database_url) as session:
        return session.scalar(select(JobFile.file_path).where(JobFile.id == file_id))


def heartbeat(database_url: str, job_id: int) -> None:
    """The job's owner is alive (called while a file is parsed in a child process)."""
    with session_scope(database_url) as session:
        session.execute(update(Job).where(Job.id == job_id).values(heartbeat_at=datetime.now(UTC)))


def skipped_copies(database_url: str, document_id: str, original: str) -> list[str]:
    """Paths (other than `original`) that some job skipped as holding the same content as `document_id`."""
    with session_scope(database_url) as session:
        return list(
            session.scalars(
                select(JobFile.path)
                .where(
                    JobFile.document_id == document_id,
                    JobFile.status == FileStatus.skipped,
                    JobFile.path != original,
                )
                .distinct()
                .order_by(JobFile.path)
            )
        )


def add_files(database_url: str, job_id: int, paths: Iterable[str]) -> None:
    """Queue more files at the end of a running job; a path the job already lists stays as it is."""
    with session_scope(database_url) as session:
        listed = set(session.scalars(select(JobFile.path).where(JobFile.job_id == job_id)))
        position = _next_position(session, job_id)
        for path in paths:
            if path not in listed:
                listed.add(path)
                file = _queued(position, path)
                file.job_id = job_id
                session.add(file)
                position += 1


def _queued(
    position: int, path: str, stored: str | None = None, name: str | None = None, note: str | None = None
) -> JobFile:
    """A file waiting in a job; `stored`: the uploaded version to read instead of `path`, `name`: the name the
    admin gave it, `note`: what the admin should know about how it was stored."""
    return JobFile(
        position=position,
        path=path,
        file_path=stored,
        original_name=name,
        note=note,
        status=FileStatus.queued,
        chunks_total=0,
        chunks_done=0,
    )


def _next_position(session: Session, job_id: int) -> int:
    last = session.scalar(select(func.max(JobFile.position)).where(JobFile.job_id == job_id))
    return 0 if last is None else last + 1


def record_withdrawn(database_url: str, job_id: int, path: str, document_id: str, message: str) -> None:
    """Add to a job the file whose document it pruned, so the admin sees later what left search and when."""
    with session_scope(database_url) as session:
        session.add(
            JobFile(
                job_id=job_id,
                position=_next_position(session, job_id),
                path=path,
                status=FileStatus.withdrawn,
                message=message,
                document_id=document_id,
                chunks_total=0,
                chunks_done=0,
            )
        )


def finish(database_url: str, job_id: int) -> None:
    with session_scope(database_url) as session:
        session.execute(
            update(Job)
            .where(Job.id == job_id)
            .values(status=JobStatus.finished, finished_at=datetime.now(UTC), heartbeat_at=datetime.now(UTC))
        )


def job_summary(database_url: str, job_id: int) -> JobSummary:
    """The job's status, counts per file status and every file's state."""
    with session_scope(database_url) as session:
        job = session.get(Job, job_id)
        if job is None:
            raise LookupError(f"job {job_id} does not exist")
        files = tuple(
            FileState(
                f.path,
                FileStatus(f.status),
                f.message,
                f.document_id,
                f.chunks_total,
                f.chunks_done,
                f.note,
                f.original_name,
            )
            for f in job.files
        )
        return JobSummary(
            id=job.id,
            status=JobStatus(job.status),
            requested=tuple(job.paths),
            created_at=_aware(job.created_at),
            finished_at=_aware(job.finished_at) if job.finished_at else None,
            counts=dict(Counter(file.status for file in files)),
            files=files,
        )


def recent_jobs(database_url: str, limit: int = 20) -> list[JobSummary]:
    with session_scope(database_url) as session:
        ids = session.scalars(select(Job.id).order_by(Job.id.desc()).limit(limit)).all()
    return [job_summary(database_url, job_id) for job_id in ids]
