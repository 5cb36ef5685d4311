"""Evaluator sets and reports over the live index: the chat's retriever settings (α, embedder) on the documents
admins ingested, written with `api.evaluator`'s exports (CSV, JSON, Markdown, HTML) plus the two rank figures
as PNG, into REPORT_DIR/<report id>/.

Two kinds: the retrieval report (Hit@k / MRR) and the answer report (each question asked through the chat's
own steps: `api.evaluator.answer_quality`, its CSV/JSON/HTML). The API only queues a report (a row): it runs in
a report runner (`api.report_runner`, a process of its own), never in the process that serves requests, since a
report embeds every question and an answer report waits for the model for each. A runner takes the oldest
queued report with one conditional UPDATE (of several runners, one gets it) and records itself as its owner. A
report whose runner is gone (or that waits while no runner is alive) is failed by a live process at its
heartbeat (with the answers dead processes were generating, api/chat/instances.py), so nobody waits for it
forever while a live runner's report goes on. At most REPORT_QUEUE_LIMIT reports wait, and a report is queued only
while a runner is alive: otherwise 503 with the reason.
"""

import logging
from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

import matplotlib.pyplot as plt
from sqlalchemy import ColumnElement, func, select, update
from sqlalchemy.orm import Session

from api.chat.instances import alive, live_instances
from api.chat.runtime import ChatRuntime
from api.evaluator.answer_quality import ask_through_chat
from api.evaluator.answer_report import summarise, write_answer_report
from api.evaluator.configs import deployed_config
from api.evaluator.export import write_report
from api.evaluator.plots import cumulative_hits_figure, rank_density_figure
from api.evaluator.queries import EvalQuery, QueryFileError, parse_csv
from api.evaluator.report import ConfigurationResult
from api.evaluator.report import EvaluationReport as Report
from api.evaluator.resolution import DocumentResolver, IndexedDocument
from api.evaluator.retrieval_runs import Embedders, ask_all
from api.models import (
    ApiInstance,
    EvaluationReport,
    EvaluationSet,
    ProcessRole,
    ReportKind,
    ReportStatus,
    User,
)
from api.schemas import MAX_QUESTION_CHARS
from api.services.errors import Conflict, Invalid, NotFound, Unavailable
from ingest.database import session_scope
from ingest.models import Document
from ingest.search.types import SearchIndex
from ingest.settings import IngestSettings

log = logging.getLogger(__name__)

SET_NOT_FOUND = "Evaluatieset niet gevonden."
REPORT_NOT_FOUND = "Rapport niet gevonden."
FILE_NOT_FOUND = "Dit rapport heeft geen bestand met die naam."
REPORT_FAILED = (
    "Het rapport kon niet gemaakt worden door een interne fout. De beheerder vindt de details in het logboek "
    "van de API (rapport {report_id})."
)
RUNNER_GONE = "onderbroken: de rapportverwerker stopte terwijl het rapport liep; start het opnieuw"
NOT_STARTED = (
    "niet gestart: er draait geen rapportverwerker; start het opnieuw als de beheerder die gestart heeft"
)
NO_RUNNER = (
    "Er draait geen rapportverwerker (python -m api reports), dus het rapport zou niet starten. Vraag de beheerder "
    "die te starten."
)
QUEUE_FULL = "Er wachten al {queued} rapporten op de rapportverwerker; probeer het later opnieuw."
ONE_AT_A_TIME = "Je hebt al een rapport in de wachtrij of bezig; start het volgende als dat klaar is."
CONFIGURATION = "chat"  # the chat's own retrieval settings; the name shows in the figures' legend
MAX_SET_BYTES = 5_000_000
MAX_SET_QUESTIONS = 2000  # an answer report asks each through the chat: at a few seconds each, over an hour
NO_KEY_PHRASES = (
    "Een antwoordrapport heeft kernzinnen nodig: een kolom answer met per vraag een zin die het juiste antwoord "
    "moet bevatten (bijvoorbeeld '20 tot 30 seconden'). Deze vragenset heeft er geen."
)
ANSWERS = ReportKind.answers.value  # the answer report's figures in `metrics`


def _resolver(db: Session) -> DocumentResolver:
    rows = db.execute(select(Document.id, Document.title, Document.file_name))
    return DocumentResolver(IndexedDocument(row.id, row.title, row.file_name) for row in rows)


def _decoded(data: bytes, name: str) -> str:
    if len(data) > MAX_SET_BYTES:
        raise Invalid(f"{name}: groter dan {MAX_SET_BYTES // 1_000_000} MB.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise Invalid(f"{name}, regel {line}: geen UTF-8-tekst (bewaar het bestand als CSV UTF-8).") from None


def _parsed(text: str, name: str) -> list[EvalQuery]:
    try:
        queries = parse_csv(text, name)
    except QueryFileError as error:
        raise Invalid(f"{name}, regel {error.line}: {error.reason}") from None
    if len(queries) > MAX_SET_QUESTIONS:
        raise Invalid(f"{name}: meer dan {MAX_SET_QUESTIONS} vragen ({len(queries)}); splits de set.")
    for query in queries:
        if len(query.question) > MAX_QUESTION_CHARS:
            where = query.id if query.id.startswith("line ") else f"vraag {query.id}"
            raise Invalid(
                f"{name}, {where.replace('line ', 'regel ')}: de vraag is langer dan {MAX_QUESTION_CHARS} tekens "
                "(zoals in de chat)."
            )
    return queries


def upload_set(db: Session, user: User, name: str, data: bytes) -> EvaluationSet:
    """Check the CSV now (line numbers in the error) and note which references name no indexed document."""
    text = _decoded(data, name)
    queries = _parsed(text, name)
    resolver = _resolver(db)
    unresolved = sorted(
        {
            reference
            for query in queries
            for reference in query.relevant_documents
            if not resolver.resolve(reference)
        }
    )
    row = EvaluationSet(
        name=name[:255], content=text, questions=len(queries), unresolved=unresolved, created_by=user.id
    )
    db.add(row)
    db.flush()
    return row


def list_sets(db: Session) -> list[EvaluationSet]:
    return list(db.scalars(select(EvaluationSet).order_by(EvaluationSet.id.desc())))


def queue_report(
    db: Session,
    user: User,
    set_id: int,
    kind: ReportKind = ReportKind.retrieval,
    *,
    queue_limit: int,
    stale_seconds: float,
) -> EvaluationReport:
    """A queued report over the set, for a report runner to take; an answer report needs key phrases (the set's
    `answer` column). Refused while no runner is alive (it would never start) and while `queue_limit` reports
    wait already (checked, not locked: replicas queuing at the same moment may each add one more)."""
    labelled = db.get(EvaluationSet, set_id)
    if labelled is None:
        raise NotFound(SET_NOT_FOUND)
    active = select(EvaluationReport.id).where(
        EvaluationReport.created_by == user.id,
        EvaluationReport.status.in_([ReportStatus.queued, ReportStatus.running]),
    )
    if db.scalars(active).first() is not None:
        raise Conflict(ONE_AT_A_TIME)
    if kind == ReportKind.answers and not any(q.answer for q in parse_csv(labelled.content, labelled.name)):
        raise Invalid(NO_KEY_PHRASES)
    if db.scalars(select(ApiInstance.id).where(_live_runner(stale_seconds))).first() is None:
        raise Unavailable(NO_RUNNER)
    queued = db.scalar(select(func.count()).where(EvaluationReport.status == ReportStatus.queued)) or 0
    if queued >= queue_limit:
        raise Unavailable(QUEUE_FULL.format(queued=queued))
    metrics: dict[str, object] = {ANSWERS: {}} if kind == ReportKind.answers else {}  # the kind's marker
    report = EvaluationReport(
        set_id=set_id, status=ReportStatus.queued, progress=0.0, metrics=metrics, files=[], created_by=user.id
    )
    db.add(report)
    db.flush()
    return report


def list_reports(db: Session) -> list[EvaluationReport]:
    return list(db.scalars(select(EvaluationReport).order_by(EvaluationReport.id.desc())))


def get_report(db: Session, report_id: int) -> EvaluationReport:
    report = db.get(EvaluationReport, report_id)
    if report is None:
        raise NotFound(REPORT_NOT_FOUND)
    return report


def report_file(db: Session, report_dir: Path, report_id: int, name: str) -> Path:
    """A file of the report, by a name the report itself listed (never a path from the request)."""
    report = get_report(db, report_id)
    if name not in report.files:
        raise NotFound(FILE_NOT_FOUND)
    return report_dir / str(report.id) / name


def _live_runner(stale_seconds: float) -> ColumnElement[bool]:
    return (ApiInstance.role == ProcessRole.reports) & alive(stale_seconds)


def claim_next(database_url: str, instance_id: str) -> tuple[int, ReportKind] | None:
    """Take the oldest queued report for the runner `instance_id` (running, owned by it): its id and kind; None
    when none waits. A report another runner took between the look and the take is passed over."""
    with session_scope(database_url) as db:
        waiting = list(
            db.scalars(
                select(EvaluationReport.id)
                .where(EvaluationReport.status == ReportStatus.queued)
                .order_by(EvaluationReport.id)
            )
        )
    for report_id in waiting:
        with session_scope(database_url) as db:
            taken = db.execute(
                update(EvaluationReport)
                .where(EvaluationReport.id == report_id, EvaluationReport.status == ReportStatus.queued)
                .values(status=ReportStatus.running, instance_id=instance_id, progress=0.0)
                .returning(EvaluationReport.metrics)
                .execution_options(synchronize_session=False)
            ).first()
        if taken is not None:
            return report_id, ReportKind.answers if ANSWERS in taken.metrics else ReportKind.retrieval
    return None


def fail_orphaned(database_url: str, stale_seconds: float) -> int:
    """Fail the reports running in processes that are gone (or in none: reports from before the owner was
    recorded), and the queued ones while no report runner is alive; a live runner's report goes on. How many
    were failed."""
    now = datetime.now(UTC)
    orphaned = (EvaluationReport.status == ReportStatus.running) & (
        EvaluationReport.instance_id.is_(None)
        | EvaluationReport.instance_id.not_in(live_instances(stale_seconds, now))
    )
    with session_scope(database_url) as db:
        failed = _fail(db, orphaned, RUNNER_GONE, now)
        if db.scalars(select(ApiInstance.id).where(_live_runner(stale_seconds))).first() is None:
            failed += _fail(db, EvaluationReport.status == ReportStatus.queued, NOT_STARTED, now)
    if failed:
        log.warning("failed %d evaluation report(s) whose report runner is gone or missing", failed)
    return failed


def _fail(db: Session, which: ColumnElement[bool], error: str, now: datetime) -> int:
    return len(
        db.scalars(
            update(EvaluationReport)
            .where(which)
            .values(status=ReportStatus.failed, error=error, finished_at=now)
            .returning(EvaluationReport.id)
            .execution_options(synchronize_session=False)
        ).all()
    )


def _set_state(database_url: str, report_id: int, **values: object) -> None:
    """Record the running report's progress or outcome; a report already failed (its runner was taken for
    gone) keeps that outcome: the evaluator may have started it again."""
    with session_scope(database_url) as db:
        db.execute(
            update(EvaluationReport)
            .where(EvaluationReport.id == report_id, EvaluationReport.status == ReportStatus.running)
            .values(**values)
        )


def run_report(
    database_url: str,
    settings: IngestSettings,
    index: Callable[[], SearchIndex],
    report_dir: Path,
    report_id: int,
) -> None:
    """Ask every question of the live index (`index()`: opened once the report runs, so that an index that cannot
    be opened fails the report), judge the results and write the report files."""

    def retrieval_report(name: str, queries: list[EvalQuery], resolver: DocumentResolver) -> Written:
        embedders = Embedders(settings)
        retriever = embedders.retriever(deployed_config(settings), index())
        prepared = embedders.prepared(settings.embedding_model, retriever, [q.question for q in queries])
        _set_state(database_url, report_id, progress=0.5)
        outcomes = ask_all(retriever, queries, prepared, resolver)
        settings_used = {"alpha": f"{settings.retrieval_alpha:g}", "embedder": settings.embedding_model}
        if retriever.reranker is not None:
            settings_used["reranker"] = f"{settings.reranker_model} over {settings.reranker_candidates}"
        result = ConfigurationResult(CONFIGURATION, settings_used, outcomes)
        note = f"{_asked(queries)}, gezocht in de geïndexeerde documenten zoals de chat zoekt."
        report = Report(name, (result,), (note,), CONFIGURATION)
        metrics: dict[str, dict[str, float]] = {
            level: {"questions": summary.questions, **summary.metrics()}
            for level in report.levels()
            if (summary := result.summary(level))
        }
        return metrics, _write(report, report_dir / str(report_id))

    _run(database_url, report_id, retrieval_report)


def run_answer_report(
    database_url: str, runtime: Callable[[], ChatRuntime], report_dir: Path, report_id: int
) -> None:
    """Ask every question through the chat's own steps (`runtime()`'s retriever and workers, built once the report
    runs; the messages kept in a temporary database) and write the answer-quality report
    (`api.evaluator.answer_quality`)."""

    def answer_report(name: str, queries: list[EvalQuery], resolver: DocumentResolver) -> Written:
        def progress(done: int, total: int) -> None:
            _set_state(database_url, report_id, progress=0.1 + 0.85 * done / total)

        chat = runtime()
        observations = ask_through_chat(
            chat.retriever, chat.settings, chat.hospital, chat.embedding_model, queries, progress, resolver
        )
        note = (
            f"{_asked(queries)}, gesteld via de chat (zoeken, citaat, het taalmodel van de chat, controle)."
        )
        files = write_answer_report(name, observations, (note,), report_dir / str(report_id))
        summary = {
            key: float(value) for key, value in asdict(summarise(observations)).items() if value is not None
        }
        return {ANSWERS: summary}, [path.name for path in files]

    _run(database_url, report_id, answer_report)


Written = tuple[dict[str, dict[str, float]], list[str]]  # the report's metrics and file names


def _run(
    database_url: str,
    report_id: int,
    make: Callable[[str, list[EvalQuery], DocumentResolver], Written],
) -> None:
    """`make` the report (taken by this runner: `claim_next`) from its set, and record the outcome: finished with
    its metrics and files, or failed with a Dutch message (the details go to the log; the runner goes on)."""
    try:
        with session_scope(database_url) as db:
            report_row = get_report(db, report_id)
            labelled = db.get(EvaluationSet, report_row.set_id)
            assert labelled is not None  # the report is removed with its set (cascade)
            queries, name, resolver = parse_csv(labelled.content, labelled.name), labelled.name, _resolver(db)
        _set_state(database_url, report_id, progress=0.1)
        metrics, files = make(name, queries, resolver)
        _set_state(
            database_url,
            report_id,
            status=ReportStatus.finished,
            progress=1.0,
            metrics=metrics,
            files=files,
            finished_at=datetime.now(UTC),
        )
    except Exception:
        log.exception("evaluation report %d failed", report_id)
        _set_state(
            database_url,
            report_id,
            status=ReportStatus.failed,
            error=REPORT_FAILED.format(report_id=report_id),
            finished_at=datetime.now(UTC),
        )


def _asked(queries: list[EvalQuery]) -> str:
    return f"{len(queries)} {'vraag' if len(queries) == 1 else 'vragen'}"


def _write(report: Report, folder: Path) -> list[str]:
    names = [path.name for path in write_report(report, folder)]
    for level in report.levels():
        for kind, draw in (
            ("rank-density", rank_density_figure),
            ("cumulative-hits", cumulative_hits_figure),
        ):
            figure = draw(report.results, level)
            file_name = f"{kind}-{level}.png"
            figure.savefig(folder / file_name, format="png", dpi=120)
            plt.close(figure)
            names.append(file_name)
    return names
