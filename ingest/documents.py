"""The documents table next to the search index: record, list, find, delete, reconcile.

The index is what is searchable; the table is what admins see and where the API finds a document's file.
Writes go index first, table second, so a crash in between leaves a document searchable but unrecorded (the
resumed job records it) rather than recorded but unsearchable. Deleting goes the same way: a crash leaves a
row without chunks, and deleting again finishes the job. A delete leaves a tombstone that the jobs queued before
it check, under the same lock as their write, before recording the document: a delete during a job wins.
"""

import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from ingest.database import session_scope
from ingest.models import FINAL_FILE_STATUSES, DeletedDocument, Document, Job, JobFile
from ingest.pipeline import PIPELINE_VERSION, ParsedDocument
from ingest.search.types import SearchIndex
from ingest.title import shared_titles

MIN_PREFIX = 8

log = logging.getLogger(__name__)


class DeletedDuringJob(Exception):
    """The document was deleted by an admin after the job recording it was queued."""


@dataclass(frozen=True)
class DocumentInfo:
    id: str
    title: str
    source_path: str
    page_count: int
    chunk_count: int
    audiences: tuple[str, ...]
    departments: tuple[str, ...]
    ingested_at: datetime
    job_id: int | None
    stored_file: str
    """The file its chunks came from: `source_path`, or the stored copy of an uploaded version."""
    pipeline_version: int
    view_path: str | None = None
    """The PDF the viewer shows when not the file itself (a conversion, an OCR'd copy)."""


def _info(row: Document) -> DocumentInfo:
    return DocumentInfo(
        row.id,
        row.title,
        row.source_path,
        row.page_count,
        row.chunk_count,
        tuple(row.audiences),
        tuple(row.departments),
        row.ingested_at,
        row.job_id,
        row.stored_file,
        row.pipeline_version,
        row.view_path,
    )


def record_document(
    database_url: str,
    parsed: ParsedDocument,
    chunk_count: int,
    audiences: tuple[str, ...],
    departments: tuple[str, ...],
    replaces: Collection[str],
    job_id: int | None,
    stored: str | None = None,
    name: str | None = None,
    view: str | None = None,
) -> list[str]:
    """One transaction: the replaced rows go, the document's row is written (or refreshed), `stored` being the
    uploaded copy holding its bytes (None: they are at its path), `name` the name the admin gave an upload (None:
    the file's own), `view` the PDF the viewer shows when not the file itself (a conversion, an OCR'd copy). Returns
    the stored copies and viewer copies that rows used and no longer do. Raises `DeletedDuringJob`, changing nothing, when an admin deleted the document after `job_id`
    was queued."""
    with session_scope(database_url) as session:
        _lock_document(session, parsed.sha256)
        if job_id is not None and _deleted_since(session, parsed.sha256, job_id):
            raise DeletedDuringJob(parsed.sha256)
        dropped = session.scalars(select(Document).where(Document.id.in_(list(replaces)))).all()
        left = [path for row in dropped for path in (row.file_path, row.view_path) if path]
        if replaces:
            session.execute(delete(Document).where(Document.id.in_(list(replaces))))
        row = session.get(Document, parsed.sha256) or Document(id=parsed.sha256)
        if row.file_path and row.file_path != stored:
            left.append(row.file_path)
        row.file_path = stored
        if row.view_path and row.view_path != view:
            left.append(row.view_path)
        row.view_path = view
        row.source_path = str(parsed.path)
        row.file_name = (name or parsed.path.name)[:255]
        row.title = parsed.title
        row.metadata_title = parsed.metadata_title
        row.page_count = parsed.text.page_count
        row.pipeline_version = PIPELINE_VERSION
        row.chunk_count = chunk_count
        row.size_bytes = parsed.size_bytes
        row.audiences = list(audiences)
        row.departments = list(departments)
        row.job_id = job_id
        session.add(row)
    return left


def _lock_document(session: Session, document_id: str) -> None:
    """Make the transaction a writer first, so that a delete cannot commit between its check and its write:
    PostgreSQL locks the row (an existing document being reindexed), SQLite takes its one write lock."""
    session.execute(update(Document).where(Document.id == document_id).values(id=Document.id))


def _deleted_since(session: Session, document_id: str, job_id: int) -> bool:
    tombstone = session.get(DeletedDocument, document_id)
    return tombstone is not None and job_id <= tombstone.last_job_id


def deleted_during(database_url: str, document_id: str, job_id: int) -> bool:
    """Whether an admin deleted the document after the job was queued (a job need not read it again)."""
    with session_scope(database_url) as session:
        return _deleted_since(session, document_id, job_id)


def remove_unused_copy(database_url: str, stored: str | None) -> None:
    """Remove an uploaded version's stored copy, or a viewer's copy, once no document and no unfinished job file
    uses it (a replaced version, a version whose job failed or found it unchanged)."""
    if stored is None:
        return
    with session_scope(database_url) as session:
        used = session.scalar(
            select(func.count()).where((Document.file_path == stored) | (Document.view_path == stored))
        ) or session.scalar(
            select(func.count()).where(
                JobFile.file_path == stored, JobFile.status.not_in([s.value for s in FINAL_FILE_STATUSES])
            )
        )
    if not used:
        try:
            Path(stored).unlink(missing_ok=True)
        except OSError as error:  # a read-only mount: the copy stays, nothing else is lost
            log.warning("could not remove the unused upload copy %s: %s", stored, error)


def shared_metadata_titles(
    database_url: str, incoming: Mapping[str, tuple[str, str | None]]
) -> frozenset[str]:
    """The metadata titles that several documents carry, among the recorded ones and the `incoming` files
    (path -> content hash and `clean_metadata_title`); an incoming file replaces what its path held, so a new
    version never shares its title with the old one."""
    with session_scope(database_url) as session:
        rows = session.execute(select(Document.source_path, Document.id, Document.metadata_title)).all()
    documents = {path: (sha256, title) for path, sha256, title in rows} | dict(incoming)
    return shared_titles(documents.values())


def document_by_id(database_url: str, document_id: str) -> DocumentInfo | None:
    with session_scope(database_url) as session:
        row = session.get(Document, document_id)
        return _info(row) if row else None


def document_at(database_url: str, source_path: Path) -> DocumentInfo | None:
    with session_scope(database_url) as session:
        row = session.scalars(select(Document).where(Document.source_path == str(source_path))).first()
        return _info(row) if row else None


def list_documents(database_url: str) -> list[DocumentInfo]:
    with session_scope(database_url) as session:
        return [_info(row) for row in session.scalars(select(Document).order_by(Document.title, Document.id))]


def find_document(database_url: str, reference: str) -> DocumentInfo:
    """A document by id, unambiguous id prefix (at least 8 characters) or source path."""
    with session_scope(database_url) as session:
        rows = session.scalars(
            select(Document).where(
                (Document.id == reference)
                | (Document.source_path == reference)
                | (Document.source_path == str(Path(reference).absolute()))
            )
        ).all()
        if not rows and len(reference) >= MIN_PREFIX:
            rows = session.scalars(select(Document).where(Document.id.startswith(reference.lower()))).all()
        if len(rows) > 1:
            raise LookupError(f"{reference!r} matches {len(rows)} documents; give more of the id")
        if not rows:
            raise LookupError(f"no document with id or path {reference!r} (see `python -m ingest list`)")
        return _info(rows[0])


def delete_document(database_url: str, index: SearchIndex, document_id: str) -> None:
    """Out of the index first (it stops being searchable), then out of the table leaving a tombstone for the
    jobs queued so far, then out of the index once more: a job that wrote the chunks in between and recorded
    the document before the tombstone loses them here; one that records later sees the tombstone."""
    index.delete_documents([document_id])
    with session_scope(database_url) as session:
        session.execute(delete(Document).where(Document.id == document_id))
        session.execute(delete(DeletedDocument).where(DeletedDocument.id == document_id))
        last_job = session.scalar(select(func.max(Job.id))) or 0
        session.add(DeletedDocument(id=document_id, last_job_id=last_job))
    index.delete_documents([document_id])


@dataclass(frozen=True)
class Consistency:
    """Differences between the table and the index; repaired by re-ingesting, never deleted automatically
    (a wrong DATABASE_URL or INDEX_DIR would otherwise wipe the other side)."""

    missing_from_index: tuple[str, ...]
    unrecorded: tuple[str, ...]


def consistency(database_url: str, index: SearchIndex) -> Consistency:
    """Rows whose document is not searchable, and searchable documents that no row or unfinished job claims."""
    searchable = index.document_ids()
    with session_scope(database_url) as session:
        recorded = set(session.scalars(select(Document.id)))
        pending = set(
            session.scalars(
                select(JobFile.document_id).where(
                    JobFile.document_id.is_not(None),
                    JobFile.status.not_in([s.value for s in FINAL_FILE_STATUSES]),
                )
            )
        )
    return Consistency(tuple(sorted(recorded - searchable)), tuple(sorted(searchable - recorded - pending)))
