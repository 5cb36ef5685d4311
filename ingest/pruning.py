"""Withdrawn procedures stop being answerable: after a job, documents whose file left its folder are removed.

A withdrawn procedure that keeps answering is a safety problem in a hospital, so a job over folders can prune:
every document recorded inside one of the job's folders whose file no longer exists is deleted from the index
and the documents table (`delete_document`) and recorded in the job as `withdrawn`.
- Only requested folders prune, never single files.
- A folder that does not exist or holds no PDF at all prunes nothing: that is what an unmounted network share
  looks like, and it must not wipe the index.
- "Inside" compares resolved absolute paths, so `/data/docs2/x.pdf` is not inside `/data/docs`.
- What the job's own files account for is the job's to report, not withdrawn: content it found at another path
  was moved (the job indexes it there), and a path it listed itself is reported as indexed, skipped or failed.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ingest import jobs
from ingest.documents import DocumentInfo, delete_document, list_documents
from ingest.models import FileStatus
from ingest.search.types import SearchIndex

MISSING = "bestaat niet (share niet aangekoppeld?): niets ingetrokken"
NO_PDFS = "bevat geen enkele PDF (share niet aangekoppeld?): niets ingetrokken"


@dataclass(frozen=True)
class Refusal:
    """A requested path that pruned nothing, and why (in Dutch, like the per-file messages)."""

    path: str
    reason: str


@dataclass(frozen=True)
class Pruning:
    """The documents a prune removed (title and path as they were recorded) and the folders it refused."""

    withdrawn: tuple[DocumentInfo, ...]
    refused: tuple[Refusal, ...]


def prune(database_url: str, index: SearchIndex, job: jobs.JobSummary) -> Pruning:
    """Remove the documents whose file left one of the job's folders; record each in the job."""
    folders, refused = _prunable_folders(job.requested)
    withdrawn = tuple(
        document
        for document in list_documents(database_url)
        if _gone_from(document, folders) and not _accounted_for(document, job)
    )
    for document in withdrawn:
        delete_document(database_url, index, document.id)
        jobs.record_withdrawn(database_url, job.id, document.source_path, document.id, _message(document))
    return Pruning(withdrawn, refused)


def _prunable_folders(requested: Iterable[str]) -> tuple[list[Path], tuple[Refusal, ...]]:
    """The requested folders that hold PDFs (resolved); missing or PDF-less ones refused, files ignored."""
    folders: list[Path] = []
    refused: list[Refusal] = []
    for path in map(Path, requested):
        if not path.exists():
            refused.append(Refusal(str(path), MISSING))
        elif path.is_dir() and not jobs.expand_paths([path])[0]:
            refused.append(Refusal(str(path), NO_PDFS))
        elif path.is_dir():
            folders.append(path.resolve())
    return folders, tuple(refused)


def _gone_from(document: DocumentInfo, folders: Sequence[Path]) -> bool:
    """Recorded inside one of the folders, and its file (an upload's stored copy) no longer exists."""
    inside = any(Path(document.source_path).resolve().is_relative_to(folder) for folder in folders)
    return inside and not Path(document.stored_file).exists()


def _accounted_for(document: DocumentInfo, job: jobs.JobSummary) -> bool:
    """Whether one of the job's own files is this document's path or content (then it was moved, not withdrawn)."""
    return any(
        file.path == document.source_path or file.document_id == document.id
        for file in job.files
        if file.status != FileStatus.withdrawn
    )


def _message(document: DocumentInfo) -> str:
    return f"ingetrokken: bestand niet meer in de map, uit de zoekindex verwijderd ({document.title})"
