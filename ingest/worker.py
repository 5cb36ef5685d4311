"""`python -m ingest.worker`: run, until stopped, the ingestion jobs that others queue (the API's uploads and
reindex requests).

A queued job is one nobody owns yet, which `jobs.claim_next` takes like a job a killed process left behind: the
worker runs them all, oldest first. The embedded install runs the same worker on a thread of the API process;
production runs it in the `ingest` container. Several workers may share a database: each job is taken by one.
"""

import argparse
import logging
import threading
from collections.abc import Sequence
from functools import cached_property

from ingest import database_schema, jobs
from ingest.embedding import Embedder, exit_unless_embedder_loadable
from ingest.reembed import exit_unless_index_matches_embedder
from ingest.run_job import Ingestion
from ingest.search.backends import open_search_index
from ingest.search.types import SearchIndex
from ingest.settings import IngestSettings

log = logging.getLogger(__name__)

DEFAULT_POLL_SECONDS = 5.0


class JobWorker:
    """Resumes queued and interrupted jobs whenever woken, or every `poll_seconds`."""

    def __init__(self, settings: IngestSettings, poll_seconds: float = DEFAULT_POLL_SECONDS) -> None:
        self.settings = settings
        self.poll_seconds = poll_seconds
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._index: SearchIndex | None = None

    @cached_property
    def _embedder(self) -> Embedder:
        """Loaded at the first file that needs embedding, then kept for the worker's life."""
        return Embedder.from_settings(self.settings)

    def wake(self) -> None:
        """A job was queued: look now instead of at the next poll."""
        self._wake.set()

    def run_pending(self) -> list[jobs.JobSummary]:
        if self._index is None:
            self._index = open_search_index(self.settings)
        ingestion = Ingestion(self.settings, self._index, lambda: self._embedder)
        return ingestion.resume_interrupted()

    def serve(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                for summary in self.run_pending():
                    log.info("ingestion job %d finished: %s", summary.id, dict(summary.counts))
            except Exception:  # the worker outlives a broken database connection or index; it retries
                log.exception("running queued ingestion jobs failed; retrying in %.0f s", self.poll_seconds)
            self._wake.wait(self.poll_seconds)

    def start(self) -> None:
        self._thread = threading.Thread(target=self.serve, name="ingestion-jobs", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = None) -> None:
        """Stop after the job in progress (an interrupted file is resumed by the next worker)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._index is not None and (self._thread is None or not self._thread.is_alive()):
            self._index.close()
            self._index = None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ingest.worker", description=__doc__)
    parser.add_argument("--poll", type=float, default=DEFAULT_POLL_SECONDS, help="seconds between looks")
    arguments = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    settings = IngestSettings()
    exit_unless_embedder_loadable(settings)
    exit_unless_index_matches_embedder(settings)
    database_schema.migrate(settings.database_url)
    worker = JobWorker(settings, arguments.poll)
    try:
        worker.serve()
    except KeyboardInterrupt:
        worker.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
