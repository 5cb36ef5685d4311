"""The admin's work: ingestion jobs over uploaded files, deleting and reindexing documents, user accounts."""

from collections.abc import Iterable, Sequence
from pathlib import Path

from sqlalchemy.orm import Session

from api.models import LoginSession, Role, User
from api.services import documents, users
from api.services.errors import Conflict, NotFound
from ingest import jobs
from ingest.documents import delete_document
from ingest.search.types import SearchIndex

JOB_NOT_FOUND = "Taak niet gevonden."
USER_NOT_FOUND = "Gebruiker niet gevonden."
TOKEN_NOT_FOUND = "Token niet gevonden."
KEEP_YOURSELF = "Je kunt je eigen account niet uitschakelen of je eigen beheerdersrol afnemen."
IN_A_FOLDER = (
    "{name} komt uit de documentmap {folder}, die `python -m ingest run` inleest: vervang het bestand daar. "
    "Een nieuwe versie die hier wordt geüpload, zou bij de volgende run over die map weer door het bestand "
    "uit de map worden vervangen."
)


def queue_job(
    database_url: str, paths: Iterable[Path], versions: Iterable[jobs.Version] = ()
) -> jobs.JobSummary:
    """A job nobody owns yet over files by path and uploaded versions; the job worker (API thread or ingest
    container) picks it up."""
    return jobs.job_summary(database_url, jobs.create_job(database_url, list(paths), list(versions)))


def job(database_url: str, job_id: int) -> jobs.JobSummary:
    try:
        return jobs.job_summary(database_url, job_id)
    except LookupError:
        raise NotFound(JOB_NOT_FOUND) from None


def delete(db: Session, database_url: str, index: SearchIndex, upload_dir: Path, document_id: str) -> None:
    """Out of search at once, then out of the table (a job in flight does not bring it back); an uploaded file
    and the viewer's copy go too (others are the hospital's)."""
    row = documents.get_document(db, document_id)
    files = [Path(path) for path in (row.stored_file, row.view_path) if path]
    db.rollback()  # the row is read; the delete runs in its own transactions
    delete_document(database_url, index, document_id)
    for path in files:
        if path.resolve().is_relative_to(upload_dir.resolve()):
            path.unlink(missing_ok=True)


def replaceable_source(db: Session, document_id: str, upload_dir: Path) -> Path:
    """The path a new version of the document goes by (it keeps the document's place: search, sources).

    Only an uploaded document takes a version here: one that lives in a folder `python -m ingest run` reads has
    that folder's file as its source, and the next run over the folder would put the file's bytes back in search
    over the version uploaded here (`Conflict`, saying where to replace it instead)."""
    document = documents.get_document(db, document_id)
    path, name = Path(document.source_path), document.file_name
    db.rollback()
    if not path.resolve().is_relative_to(upload_dir.resolve()):
        raise Conflict(IN_A_FOLDER.format(name=name, folder=path.parent))
    return path


def reindex(
    db: Session, database_url: str, index: SearchIndex, document_id: str, folders: Sequence[Path] | None
) -> jobs.JobSummary:
    """Parse, chunk and embed the document's file again (after a change of chunking or embedder); `folders`:
    where the API may open files (`documents.document_file`).

    The old chunks leave the index first (otherwise the job would skip the unchanged file), so the document is
    unsearchable until the job has indexed it again.
    """
    source = Path(documents.get_document(db, document_id).source_path)
    stored, _ = documents.document_file(db, document_id, folders, original=True)
    db.rollback()
    index.delete_documents([document_id])
    if stored == source:
        return queue_job(database_url, [source])
    return queue_job(database_url, [], [jobs.Version(source, stored)])


def update_user(
    db: Session,
    admin: User,
    user_id: int,
    roles: Iterable[Role] | None,
    disabled: bool | None,
    password: str | None,
    admin_session: LoginSession | None = None,
) -> User:
    """Change an account; a new password ends its sessions, except `admin_session` when it is the admin's own."""
    user = users.get_user(db, user_id)
    if user is None:
        raise NotFound(USER_NOT_FOUND)
    losing_admin = roles is not None and Role.admin not in set(roles)
    if user.id == admin.id and (disabled or losing_admin):
        raise Conflict(KEEP_YOURSELF)
    if roles is not None:
        users.set_roles(db, user, roles)
    if disabled is not None:
        users.set_disabled(db, user, disabled)
    if password is not None:
        users.set_password(db, user, password, keep=admin_session)
    return user
