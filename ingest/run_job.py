"""Run an ingestion job: each file parsed, chunked, embedded and indexed, its status recorded as it goes.

Every step is safe to repeat, which is what makes a killed job resumable without duplicates or losses:
- a document is identified by its content hash and its chunks by deterministic ids, so indexing a file again
  replaces its chunks instead of adding copies;
- the new version of a changed file and the removal of the old one are one atomic index write;
- the index is written before the documents table: a crash in between leaves the document searchable and the
  resumed job, finding exactly these chunks already there, only records it (no second embedding);
- a file this very job indexed and recorded just before the kill (its status not yet written) counts as indexed;
- a file with the same content as a recorded one is skipped only while that one's path still holds it; otherwise
  (moved, or the original edited after copying) it is indexed again under its own path;
- an uploaded version is read from its stored copy and recorded under its upload name: the documents row swaps
  from the old version's copy to the new one in the same transaction that swaps the document, and the copy no
  row uses any more is removed afterwards (a failed version leaves the old one live);
- a document an admin deleted after the job was queued is not recorded again: its chunks leave the index;
- when a file's content changes, the files skipped earlier as copies of its old content (and still holding it) are
  queued in the same job, so the old content stays searchable under a copy's path once the new version replaces
  it, even when the job was asked for the edited original only.
A file recorded by an older `PIPELINE_VERSION` is parsed again even when unchanged, so a release that cleans or
names documents better rewrites their chunks at the next job over them. Before parsing, the job reads every file's
metadata title: a title that several documents carry (this job's files or recorded ones) names none of them (`ingest/title.py`), and an unchanged file recorded under such a title
is parsed again, so that it gets its own title and its chunks are rewritten with it.
One bad file never stops the job: it is marked failed with its reason and the next file goes on. Files are read
in a child process bounded in time and memory (`isolation.py`), so no file can hang or kill the job, and a file
whose parsing crashed `parse_attempts` times (in this run or in runs that died on it) is given up.
"""

import logging
import shutil
import time
import uuid
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from ingest import jobs, pruning
from ingest.documents import (
    DeletedDuringJob,
    deleted_during,
    document_at,
    document_by_id,
    record_document,
    remove_unused_copy,
    shared_metadata_titles,
)
from ingest.embedding import Embedder
from ingest.isolation import ChildDied, Limits, run_isolated
from ingest.metadata import DocumentTags, document_tags
from ingest.models import FileStatus
from ingest.pdf_reader import UnusableFile, file_sha256
from ingest.pipeline import (
    PIPELINE_VERSION,
    ParsedDocument,
    Reading,
    chunk_records,
    read_metadata_title,
    read_pdf,
)
from ingest.search.types import ChunkRecord, SearchIndex
from ingest.settings import IngestSettings
from ingest.title import is_shared

log = logging.getLogger(__name__)

PROGRESS_INTERVAL_SECONDS = 1.0
DELETED_DURING_JOB = "verwijderd door een beheerder terwijl deze taak liep: niet opnieuw opgenomen"
GROUP_BATCHES = 4
TOOL_SHARE = 0.8
"""Of a file's parsing time, the share conversion and OCR may take (the rest reads the text)."""
T = TypeVar("T")


class Progress(Protocol):
    """What a front-end (the CLI's progress bars, an API endpoint) hears while a job runs."""

    def file_started(self, path: str, position: int, total: int) -> None: ...

    def chunks_planned(self, count: int) -> None: ...

    def chunks_embedded(self, count: int) -> None: ...

    def file_finished(self, path: str, status: FileStatus, message: str | None) -> None: ...


class Silent:
    """Progress that nobody watches."""

    def file_started(self, path: str, position: int, total: int) -> None:
        pass

    def chunks_planned(self, count: int) -> None:
        pass

    def chunks_embedded(self, count: int) -> None:
        pass

    def file_finished(self, path: str, status: FileStatus, message: str | None) -> None:
        pass


@dataclass(frozen=True)
class Outcome:
    status: FileStatus
    message: str | None = None
    document_id: str | None = None


@dataclass(frozen=True)
class _Prepared:
    """A parsed and chunked file waiting for its vectors."""

    file_id: int
    path: str
    stored: str
    parsed: ParsedDocument
    tags: DocumentTags
    records: list[ChunkRecord]
    name: str | None = None
    """An upload's name as the admin gave it."""
    twins: list["_Prepared"] = field(default_factory=list)
    """Later files of the job with the same content: skipped once this file's chunks are in the index."""


class Ingestion:
    """Jobs over one index and one database; the embedder is loaded only when a file needs embedding.

    Files are parsed one by one and their chunks embedded together, a group of several small files per
    embedder call (batches of similar length across files waste less padding and fewer kernel set-ups than
    many small per-file calls); each file is still committed on its own.
    """

    def __init__(
        self,
        settings: IngestSettings,
        index: SearchIndex,
        embedder_factory: Callable[[], Embedder],
        progress: Progress | None = None,
    ) -> None:
        self.settings = settings
        self.index = index
        self._embedder_factory = embedder_factory
        self.progress: Progress = progress or Silent()
        self._group_chunks = GROUP_BATCHES * settings.embedding_batch_size

    @cached_property
    def embedder(self) -> Embedder:
        return self._embedder_factory()

    def ingest(self, paths: Sequence[Path]) -> jobs.JobSummary:
        """Create a job over these files and folders and run it to the end."""
        return self.run(jobs.create_job(self.settings.database_url, paths, owned=True))

    def prune(self, job: jobs.JobSummary) -> pruning.Pruning:
        """After a job over folders: remove the documents whose file left them (withdrawn procedures; see
        `pruning.py` for what is never pruned)."""
        return pruning.prune(self.settings.database_url, self.index, job)

    def resume_interrupted(self) -> list[jobs.JobSummary]:
        """Run every free job (queued, or left behind by a killed process) that this process gets to take,
        oldest first."""
        finished = []
        while (job_id := jobs.claim_next(self.settings.database_url)) is not None:
            finished.append(self.run(job_id))
        return finished

    def run(self, job_id: int) -> jobs.JobSummary:
        """Run a job this process owns (created `owned`, or taken with `jobs.claim_next`). Files queued meanwhile
        (copies taking an edited original's place) are read in a next round, until none is left."""
        url = self.settings.database_url
        read: set[int] = set()
        while pending := [file for file in jobs.pending_files(url, job_id) if file.id not in read]:
            read.update(file.id for file in pending)
            self._read_files(job_id, pending)
        jobs.finish(url, job_id)
        return jobs.job_summary(url, job_id)

    def _read_files(self, job_id: int, pending: Sequence[jobs.PendingFile]) -> None:
        url = self.settings.database_url
        requested = [Path(path) for path in jobs.job_summary(url, job_id).requested]
        log.info("ingestion job %d: %d files to read", job_id, len(pending))
        titles = self._metadata_titles(job_id, pending)
        shared = shared_metadata_titles(url, titles)
        group: list[_Prepared] = []
        for position, file in enumerate(pending):
            self.progress.file_started(file.path, position, len(pending))
            prepared = self._guarded(
                file.id, file.path, partial(self._prepare, job_id, file, requested, shared)
            )
            if isinstance(prepared, _Prepared):
                self._enqueue(group, prepared)
            if sum(len(waiting.records) for waiting in group) >= self._group_chunks:
                self._index_group(job_id, group)
                group = []
        self._index_group(job_id, group)

    def _metadata_titles(
        self, job_id: int, files: Sequence[jobs.PendingFile]
    ) -> dict[str, tuple[str, str | None]]:
        """Each file's content hash and cleaned metadata title, read before any file is parsed, so that the
        first of several files sharing a title is named knowing the later ones."""
        titles = {}
        for file in files:  # a file that cannot be read fails in its own step, which records why
            with suppress(Exception):
                titles[file.path] = run_isolated(
                    read_metadata_title,
                    (Path(file.stored), self._max_bytes),
                    self._limits,
                    self._tick(job_id),
                )
        return titles

    @property
    def _max_bytes(self) -> int:
        return self.settings.max_pdf_mb * 1_000_000

    @property
    def _limits(self) -> Limits:
        return Limits(self.settings.parse_timeout_seconds, self.settings.parse_memory_mb)

    def _tick(self, job_id: int) -> Callable[[], None]:
        return partial(jobs.heartbeat, self.settings.database_url, job_id)

    def _parse(
        self, job_id: int, file: jobs.PendingFile, title: str | None, shared: frozenset[str]
    ) -> ParsedDocument:
        """Parse in a bounded child; a child that died is tried again until the file's attempts are spent. A
        converted or OCR'd PDF for the viewer is kept in CONVERTED_DIR under the document's content hash."""
        reason = "het lezen brak af doordat het ingestproces stopte"
        scratch = self.settings.converted_dir.resolve() / ".work" / uuid.uuid4().hex
        reading = Reading(
            scratch,
            self.settings.ocr_language,
            self.settings.ocr_max_pages,
            self.settings.parse_timeout_seconds * TOOL_SHARE,
            self.settings.ocr_jobs,
        )
        arguments = (
            Path(file.stored),
            self._max_bytes,
            self.settings.max_pdf_pages,
            title,
            shared,
            Path(file.path),
            reading,
        )
        try:
            while jobs.start_attempt(self.settings.database_url, file.id, self.settings.parse_attempts):
                try:
                    parsed = run_isolated(read_pdf, arguments, self._limits, self._tick(job_id))
                except ChildDied as error:
                    log.warning("parsing %s: %s", file.path, error)
                    reason = str(error)
                    continue
                return self._keep_view(parsed)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        raise UnusableFile(f"opgegeven na {self.settings.parse_attempts} pogingen: {reason}")

    def _keep_view(self, parsed: ParsedDocument) -> ParsedDocument:
        """Move the viewer's PDF out of the scratch folder to its place, named by the original's content."""
        if parsed.view_pdf is None:
            return parsed
        kept = self.settings.converted_dir.resolve() / f"{parsed.sha256}.pdf"
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(parsed.view_pdf, kept)
        return replace(parsed, view_pdf=kept)

    def _enqueue(self, group: list[_Prepared], prepared: _Prepared) -> None:
        """Add a file to the group waiting for vectors; a file with the same content as one already waiting
        waits as its twin (its outcome is decided only when the first copy's index write is known)."""
        first = next((waiting for waiting in group if waiting.parsed.sha256 == prepared.parsed.sha256), None)
        if first is None:
            group.append(prepared)
        else:
            first.twins.append(prepared)

    def _guarded(self, file_id: int, path: str, step: Callable[[], T]) -> T | Outcome:
        """Run one step of one file; a failure becomes that file's outcome and the job goes on."""
        result: T | Outcome
        try:
            result = step()
        except UnusableFile as error:
            result = Outcome(FileStatus.failed, str(error))
        except Exception as error:  # one broken file must not stop the job; the reason is recorded
            log.exception("ingesting %s failed", path)
            result = Outcome(FileStatus.failed, f"onverwachte fout: {type(error).__name__}: {error}")
        if isinstance(result, Outcome):
            self._finish(file_id, path, result)
        return result

    def _finish(self, file_id: int, path: str, outcome: Outcome) -> None:
        url = self.settings.database_url
        jobs.set_file_status(url, file_id, outcome.status, outcome.message, document_id=outcome.document_id)
        remove_unused_copy(url, jobs.stored_copy(url, file_id))
        self.progress.file_finished(path, outcome.status, outcome.message)

    def _prepare(
        self, job_id: int, file: jobs.PendingFile, requested: Sequence[Path], shared: frozenset[str]
    ) -> _Prepared | Outcome:
        """Parse and chunk a file, or decide that it needs no embedding (unchanged, duplicate, already indexed,
        deleted since the job was queued); `shared`: the metadata titles several documents carry."""
        url = self.settings.database_url
        path = Path(file.path)
        searchable = self.index.document_ids()
        sha256 = _content_hash(Path(file.stored), self._max_bytes)
        if sha256 is not None and deleted_during(url, sha256, job_id):
            return Outcome(FileStatus.skipped, DELETED_DURING_JOB, sha256)
        if sha256 is not None:
            self._queue_copies_of_replaced(job_id, path, sha256)
        existing = document_by_id(url, sha256) if sha256 is not None else None
        if existing is not None and sha256 in searchable:
            if existing.source_path == str(path):
                if existing.job_id == job_id:
                    return Outcome(FileStatus.indexed, None, sha256)
                if not is_shared(existing.title, shared) and existing.pipeline_version == PIPELINE_VERSION:
                    return Outcome(FileStatus.skipped, "ongewijzigd: al geïndexeerd", sha256)
            elif file_sha256(Path(existing.stored_file)) == sha256:
                return Outcome(FileStatus.skipped, f"zelfde inhoud als {existing.source_path}", sha256)
        tags = document_tags(path, _root_of(path, requested))
        parsed = self._parse(job_id, file, tags.title, shared)
        records = chunk_records(parsed, tags, self.settings.chunk_size, self.settings.chunk_overlap)
        jobs.set_file_status(
            url,
            file.id,
            FileStatus.embedding,
            document_id=parsed.sha256,
            chunks_total=len(records),
            chunks_done=0,
        )
        prepared = _Prepared(file.id, file.path, file.stored, parsed, tags, records, file.original_name)
        if parsed.sha256 in searchable and self.index.chunks(parsed.sha256) == records:
            replaces = self._replaced(prepared)
            self.index.delete_documents(replaces)
            return self._record(job_id, prepared, replaces)
        return prepared

    def _queue_copies_of_replaced(self, job_id: int, path: Path, sha256: str) -> None:
        """The content recorded at `path` is leaving it: files once skipped as its copies, and still holding it,
        are queued in this job to take its place (else it would vanish from search with the old version)."""
        url = self.settings.database_url
        previous = document_at(url, path)
        if previous is None or previous.id == sha256:
            return
        copies = jobs.skipped_copies(url, previous.id, str(path))
        jobs.add_files(url, job_id, [copy for copy in copies if file_sha256(Path(copy)) == previous.id])

    def _index_group(self, job_id: int, group: Sequence[_Prepared]) -> None:
        """Embed the group's chunks in one call, then index and record each file on its own."""
        if not group:
            return
        texts = [record.text for waiting in group for record in waiting.records]
        self.progress.chunks_planned(len(texts))
        reporter = _ChunkProgress(self.settings.database_url, group, self.progress)
        vectors = self._guarded(
            group[0].file_id, group[0].path, partial(self.embedder.embed_passages, texts, reporter)
        )
        if isinstance(vectors, Outcome):
            for waiting in [*group[0].twins, *(f for w in group[1:] for f in (w, *w.twins))]:
                self._finish(waiting.file_id, waiting.path, vectors)
            return
        start = 0
        for waiting in group:
            own = vectors[start : start + len(waiting.records)]
            start += len(waiting.records)
            self._put_one_copy(job_id, [waiting, *waiting.twins], own)

    def _put_one_copy(self, job_id: int, copies: Sequence[_Prepared], vectors: NDArray[np.float32]) -> None:
        """Index the first copy whose write succeeds; the copies after it are skipped as its twins."""
        for position, copy in enumerate(copies):
            outcome = self._guarded(copy.file_id, copy.path, partial(self._put, job_id, copy, vectors))
            if outcome.status == FileStatus.indexed:
                for twin in copies[position + 1 :]:
                    skipped = Outcome(
                        FileStatus.skipped, f"zelfde inhoud als {copy.path}", copy.parsed.sha256
                    )
                    self._finish(twin.file_id, twin.path, skipped)
                return

    def _put(self, job_id: int, waiting: _Prepared, vectors: NDArray[np.float32]) -> Outcome:
        replaces = self._replaced(waiting)
        self.index.put_document(waiting.records, vectors, replaces)
        return self._record(job_id, waiting, replaces)

    def _replaced(self, prepared: _Prepared) -> list[str]:
        """The older document recorded at this file's path, decided just before the write: an earlier file of
        the same job may have taken that document over since this one was parsed (a copy of the original)."""
        previous = document_at(self.settings.database_url, Path(prepared.path))
        return [previous.id] if previous is not None and previous.id != prepared.parsed.sha256 else []

    def _record(self, job_id: int, prepared: _Prepared, replaces: list[str]) -> Outcome:
        """Record the indexed document, unless an admin deleted it since the job was queued: then its chunks
        leave the index again (the delete wins)."""
        parsed, tags = prepared.parsed, prepared.tags
        url = self.settings.database_url
        stored = prepared.stored if prepared.stored != prepared.path else None
        try:
            replaced_copies = record_document(
                url,
                parsed,
                len(prepared.records),
                tags.audiences,
                tags.departments,
                replaces,
                job_id,
                stored,
                prepared.name,
                str(parsed.view_pdf) if parsed.view_pdf else None,
            )
        except DeletedDuringJob:
            self.index.delete_documents([parsed.sha256])
            return Outcome(FileStatus.skipped, DELETED_DURING_JOB, parsed.sha256)
        for copy in replaced_copies:
            remove_unused_copy(url, copy)
        jobs.set_file_status(url, prepared.file_id, FileStatus.embedding, chunks_done=len(prepared.records))
        return Outcome(FileStatus.indexed, _warnings(parsed), parsed.sha256)


class _ChunkProgress:
    """Forwards embedded-chunk counts to the front-end at once, and to the group's files in the database (each
    its share) at most once a second."""

    def __init__(self, database_url: str, group: Sequence[_Prepared], progress: Progress) -> None:
        self._url, self._group, self._progress = database_url, group, progress
        self._done = 0
        self._total = sum(len(waiting.records) for waiting in group)
        self._written_at = time.monotonic()

    def __call__(self, count: int) -> None:
        self._done += count
        self._progress.chunks_embedded(count)
        if time.monotonic() - self._written_at >= PROGRESS_INTERVAL_SECONDS:
            share = self._done / self._total
            for waiting in self._group:
                done = int(share * len(waiting.records))
                jobs.set_file_status(self._url, waiting.file_id, FileStatus.embedding, chunks_done=done)
            self._written_at = time.monotonic()


def _page_list(numbers: Sequence[int], shown: int = 10) -> str:
    listed = ", ".join(str(number) for number in numbers[:shown])
    more = f" en {len(numbers) - shown} meer" if len(numbers) > shown else ""
    return f"pagina {listed}{more}"


def _root_of(path: Path, requested: Sequence[Path]) -> Path | None:
    """The requested folder a file was found in (the deepest one), for folder-name tags."""
    folders = [folder for folder in requested if path.is_relative_to(folder) and path != folder]
    return max(folders, key=lambda folder: len(folder.parts), default=None)


def _content_hash(path: Path, max_bytes: int) -> str | None:
    """What the file holds, to find it unchanged or a copy without parsing it (None: unreadable or too large,
    which its parsing reports)."""
    with suppress(OSError):
        if path.stat().st_size <= max_bytes:
            return file_sha256(path)
    return None


def _warnings(parsed: ParsedDocument) -> str | None:
    """What the admin should know about an indexed file: pages read by OCR, pages without text left unread (and
    why), blank pages."""
    pages = parsed.text.page_count
    warnings = []
    if parsed.ocr_pages:
        warnings.append(f"{parsed.ocr_pages} van {pages} pagina's gescand en met OCR gelezen")
    by_reason: dict[str, list[int]] = {}
    for page, reason in sorted(parsed.unread.items()):
        by_reason.setdefault(reason, []).append(page)
    for reason, numbers in by_reason.items():
        warnings.append(
            f"{len(numbers)} van {pages} pagina's zonder tekst niet gelezen ({_page_list(numbers)}): {reason}"
        )
    if parsed.blank_pages:
        warnings.append(f"{parsed.blank_pages} van {pages} pagina's leeg")
    return "; ".join(warnings) or None
