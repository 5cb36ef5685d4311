"""`python -m ingest run|status|list|delete|reembed`: the admin's command line over the job library and index.

`run` first finishes jobs a killed process left behind, then ingests the given files and folders with a
progress bar over files and one over the current file's chunks, and ends with a summary that lists every
failed file with its reason; the exit status is 1 when any file failed. With `--prune` it then removes from
search every document whose file is gone from one of the given folders, and names them.
"""

import argparse
import logging
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Never

from tqdm import tqdm

from ingest import database_schema, jobs
from ingest.documents import consistency, delete_document, find_document, list_documents
from ingest.embedding import Embedder
from ingest.models import FileStatus
from ingest.pruning import Pruning
from ingest.reembed import ReembedError, exit_unless_index_matches_embedder, reembed
from ingest.run_job import Ingestion
from ingest.search.backends import open_search_index
from ingest.search.types import EmbedderMismatch, MissingIndex, SearchIndex
from ingest.settings import IngestSettings

FAILED_EXIT = 1


class ProgressBars:
    """One bar over the job's files, one over the current file's chunks (embedding is the slow part)."""

    def __init__(self) -> None:
        self._files: tqdm[Never] | None = None
        self._chunks: tqdm[Never] | None = None

    def file_started(self, path: str, position: int, total: int) -> None:
        if self._files is None or self._files.total != total:
            self._close()
            self._files = tqdm(total=total, unit="file", desc="files", position=0, dynamic_ncols=True)
            self._chunks = tqdm(
                total=0, unit="chunk", desc="chunks", position=1, leave=False, dynamic_ncols=True
            )
        self._files.set_postfix_str(Path(path).name[-40:])

    def chunks_planned(self, count: int) -> None:
        if self._chunks is not None:
            self._chunks.reset(total=count)

    def chunks_embedded(self, count: int) -> None:
        if self._chunks is not None:
            self._chunks.update(count)

    def file_finished(self, path: str, status: FileStatus, message: str | None) -> None:
        if self._files is not None:
            self._files.update(1)
            if self._files.n == self._files.total:
                self._close()

    def _close(self) -> None:
        for bar in (self._chunks, self._files):
            if bar is not None:
                bar.close()
        self._files = self._chunks = None


def main(argv: Sequence[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    settings = IngestSettings()
    database_schema.migrate(settings.database_url)
    command: int = arguments.handler(settings, arguments)
    return command


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ingest",
        description="Ingest PDF, Word (.docx, .doc) and OpenDocument (.odt) files into Vraagbaak's search index.",
    )
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    run = commands.add_parser("run", help="ingest files and folders (and finish interrupted jobs)")
    run.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="PDF, .docx, .doc or .odt files, or folders (searched recursively)",
    )
    run.add_argument(
        "--prune",
        action="store_true",
        help="afterwards remove from search every document whose file is gone from one of the given folders "
        "(withdrawn procedures); a folder that is missing or holds no PDF prunes nothing, a file never prunes",
    )
    run.set_defaults(handler=_run)
    status = commands.add_parser("status", help="recent jobs, or one job's files")
    status.add_argument("job", nargs="?", type=int, metavar="JOB")
    status.set_defaults(handler=_status)
    listing = commands.add_parser("list", help="the ingested documents")
    listing.set_defaults(handler=_list)
    delete = commands.add_parser("delete", help="remove a document from search")
    delete.add_argument(
        "document", metavar="DOC", help="document id, id prefix (8+ characters) or source path"
    )
    delete.set_defaults(handler=_delete)
    switch = commands.add_parser(
        "reembed",
        help="re-embed the embedded index with EMBEDDING_MODEL after changing it (resumable; the old index is kept)",
    )
    switch.set_defaults(handler=_reembed)
    return parser


def _run(settings: IngestSettings, arguments: argparse.Namespace) -> int:
    if arguments.prune and not arguments.paths:
        print("--prune needs the folders to prune", file=sys.stderr)
        return 2
    exit_unless_index_matches_embedder(settings)
    index = open_search_index(settings)
    pruning: Pruning | None = None
    try:
        ingestion = Ingestion(settings, index, partial(Embedder.from_settings, settings), ProgressBars())
        summaries = ingestion.resume_interrupted()
        for summary in summaries:
            print(f"resumed interrupted job {summary.id}")
        if arguments.paths:
            summaries.append(ingestion.ingest(arguments.paths))
        if arguments.prune:
            pruning = ingestion.prune(summaries[-1])
    finally:
        index.close()
    for summary in summaries:
        _print_summary(summary)
    if pruning is not None:
        _print_pruning(pruning)
    return FAILED_EXIT if any(summary.failed for summary in summaries) else 0


def _reembed(settings: IngestSettings, _: argparse.Namespace) -> int:
    bar: tqdm[Never] | None = None

    def advance(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, unit="document", desc="re-embedding", dynamic_ncols=True)
        bar.update(done - bar.n)

    try:
        summary = reembed(settings, partial(Embedder.from_settings, settings), advance)
    except (ReembedError, EmbedderMismatch) as error:
        print(f"error: {error}", file=sys.stderr)
        return FAILED_EXIT
    finally:
        if bar is not None:
            bar.close()
    if summary.previous is None and summary.documents == 0:
        print(f"the index in {settings.index_dir} is embedded with {summary.embedding_model}: nothing to do")
        return 0
    print(
        f"re-embedded {summary.documents} documents ({summary.chunks} chunks) with {summary.embedding_model} in "
        f"{summary.seconds:.0f} s; the index built with {summary.built_with} is kept in {summary.previous}. "
        "Restart the API and the ingest worker with this EMBEDDING_MODEL."
    )
    return 0


def _print_summary(summary: jobs.JobSummary) -> None:
    counts = ", ".join(f"{summary.counts.get(status, 0)} {status.value}" for status in _REPORTED)
    print(f"job {summary.id}: {summary.total} files: {counts}")
    for file in summary.failed:
        print(f"  FAILED {file.path}: {file.message}")


_REPORTED = (FileStatus.indexed, FileStatus.skipped, FileStatus.failed)


def _print_pruning(pruning: Pruning) -> None:
    print(f"  {len(pruning.withdrawn)} withdrawn (file gone from its folder, removed from search)")
    for document in pruning.withdrawn:
        print(f"  WITHDRAWN {document.title} ({document.source_path})")
    for refusal in pruning.refused:
        print(f"  NOT PRUNED {refusal.path}: {refusal.reason}")


def _status(settings: IngestSettings, arguments: argparse.Namespace) -> int:
    if arguments.job is None:
        for summary in jobs.recent_jobs(settings.database_url):
            when = summary.created_at.strftime("%Y-%m-%d %H:%M")
            print(f"job {summary.id:>4}  {summary.status.value:<8} {when}  {summary.progress:6.1%}  ", end="")
            print(", ".join(f"{count} {status.value}" for status, count in sorted(summary.counts.items())))
        return 0
    try:
        summary = jobs.job_summary(settings.database_url, arguments.job)
    except LookupError as error:
        print(error, file=sys.stderr)
        return 2
    print(
        f"job {summary.id}: {summary.status.value}, {summary.progress:.1%} done, paths: {', '.join(summary.requested)}"
    )
    for file in summary.files:
        chunks = f" {file.chunks_done}/{file.chunks_total} chunks" if file.chunks_total else ""
        print(f"  {file.status.value:<9} {file.path}{chunks}{': ' + file.message if file.message else ''}")
    return 0


def _existing_index(settings: IngestSettings) -> SearchIndex | None:
    """The index for a read-only command; None (with the reason on stderr) when it does not exist."""
    try:
        return open_search_index(settings, create=False)
    except MissingIndex as error:
        print(error, file=sys.stderr)
        return None


def _list(settings: IngestSettings, _: argparse.Namespace) -> int:
    index = _existing_index(settings)
    if index is None:
        return 2
    try:
        documents = list_documents(settings.database_url)
        differences = consistency(settings.database_url, index)
    finally:
        index.close()
    for document in documents:
        tags = ", ".join([*document.audiences, *document.departments])
        missing = "  NOT SEARCHABLE (re-ingest)" if document.id in differences.missing_from_index else ""
        print(f"{document.id[:12]}  {document.page_count:>4}p {document.chunk_count:>5}c  {document.title}")
        print(f"{'':14}{document.source_path}{'  [' + tags + ']' if tags else ''}{missing}")
    print(f"{len(documents)} documents")
    if differences.unrecorded:
        print(f"warning: {len(differences.unrecorded)} documents are in the index but not in the database")
    return 0


def _delete(settings: IngestSettings, arguments: argparse.Namespace) -> int:
    index = _existing_index(settings)
    if index is None:
        return 2
    try:
        document = find_document(settings.database_url, arguments.document)
        delete_document(settings.database_url, index, document.id)
    except LookupError as error:
        print(error, file=sys.stderr)
        return 2
    finally:
        index.close()
    print(f"deleted {document.id[:12]} {document.title} ({document.source_path})")
    return 0
