"""`python -m api reports`: the report runner, a process of its own that runs the evaluation reports the API
queues, one at a time, until stopped.

The API serves requests and only queues a report (`services.evaluation.queue_report`); a report embeds every
question and an answer report waits for the model for each, which must not hold up, slow down or take down the
process that answers clinicians. The runner registers among the processes (`api_instances`, role `reports`) and
beats its heartbeat on a thread of its own while a report runs; a report of a runner that died is failed by a live
process (`reports.fail_orphaned`). `make demo` starts it next to the API, production runs it in the `reports`
service; several runners may share a database: each report is taken by one.
"""

import logging
import threading
import uuid
from collections.abc import Callable

from sqlalchemy.exc import SQLAlchemyError

from api.chat import instances
from api.chat.runtime import ChatRuntime
from api.chat.settings import ChatSettings
from api.evaluator import reports
from api.models import ProcessRole, ReportKind
from api.settings import ProcessSettings
from ingest.search.backends import open_search_index
from ingest.search.types import SearchIndex
from ingest.settings import IngestSettings

log = logging.getLogger(__name__)

DEFAULT_POLL_SECONDS = 2.0


class ReportRunner:
    """Takes the queued reports, oldest first, and runs each; looks every `poll_seconds` when none waits.
    `chat`: the chat runtime answer reports ask through (default: built from the settings at the first one)."""

    def __init__(
        self,
        settings: ProcessSettings,
        ingest: IngestSettings,
        chat: Callable[[], ChatRuntime] | None = None,
        poll_seconds: float = DEFAULT_POLL_SECONDS,
    ) -> None:
        self.settings = settings
        self.ingest = ingest
        self.poll_seconds = poll_seconds
        self.instance_id = (
            uuid.uuid4().hex
        )  # its own, also when it runs on a thread of another process (tests)
        self._chat = chat or self._built_chat
        self._runtime: ChatRuntime | None = None
        self._index: SearchIndex | None = None
        self._heartbeat = instances.Heartbeat(
            settings.database_url,
            settings.instance_stale_seconds,
            self.instance_id,
            also_close=(reports.fail_orphaned,),
            role=ProcessRole.reports,
        )
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def run_next(self) -> int | None:
        """Take and run the oldest queued report; its id, or None when none waits."""
        taken = reports.claim_next(self.settings.database_url, self.instance_id)
        if taken is None:
            return None
        report_id, kind = taken
        log.info("running evaluation report %d (%s)", report_id, kind.value)
        database_url, report_dir = self.settings.database_url, self.settings.report_dir
        if kind == ReportKind.answers:
            reports.run_answer_report(database_url, self._chat, report_dir, report_id)
        else:
            reports.run_report(database_url, self.ingest, self._search_index, report_dir, report_id)
        return report_id

    def serve(self) -> None:
        """Beat (on a thread) and run reports until `stop`; a database that is down is logged and retried (a
        report's own failure is recorded on the report by `evaluation`)."""
        self._heartbeat.beat()  # registered before the first report is taken
        beating = threading.Thread(target=self._keep_beating, name="report-runner-heartbeat", daemon=True)
        beating.start()
        self._threads.append(beating)
        while not self._stop.is_set():
            try:
                ran = self.run_next()
            except SQLAlchemyError as error:
                log.warning(
                    "looking for queued reports failed (retrying in %.0f s): %s", self.poll_seconds, error
                )
                ran = None
            if ran is None:
                self._stop.wait(self.poll_seconds)

    def start(self) -> None:
        """Serve on a thread of this process (tests), registered among the processes when this returns; `stop`
        ends it."""
        self._heartbeat.beat()
        serving = threading.Thread(target=self.serve, name="report-runner", daemon=True)
        serving.start()
        self._threads.append(serving)

    def stop(self, timeout: float | None = None) -> None:
        """Stop after the report in progress."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout)
        if self._runtime is not None:
            self._runtime.close()
        if self._index is not None:
            self._index.close()

    def _keep_beating(self) -> None:
        while not self._stop.wait(self.settings.instance_heartbeat_seconds):
            try:
                self._heartbeat.beat()
            except SQLAlchemyError as error:
                log.warning("heartbeat not recorded: %s", error)

    def _built_chat(self) -> ChatRuntime:
        if self._runtime is None:
            self._runtime = ChatRuntime.from_settings(self.settings, ChatSettings(), self.ingest)
        return self._runtime

    def _search_index(self) -> SearchIndex:
        if self._index is None:
            self._index = open_search_index(self.ingest)
        return self._index


def main(settings: ProcessSettings) -> int:
    """Run reports until interrupted (Ctrl-C, SIGTERM from docker or the demo launcher)."""
    ingest = IngestSettings(database_url=settings.database_url)
    runner = ReportRunner(settings, ingest)
    print(f"report runner {instances.process_name()} waiting for evaluation reports", flush=True)
    try:
        runner.serve()
    except KeyboardInterrupt:
        pass
    finally:
        runner.stop(timeout=5)
    return 0
