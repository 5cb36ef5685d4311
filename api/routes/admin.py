"""The admin's routes: uploads (PDF, Word, OpenDocument) and ingestion jobs, a new version of a chosen document, deleting and reindexing documents, user accounts and their
API tokens, the audit log. Every change is written to the audit log with who made it."""

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, File, Query, Request, Response, UploadFile, status
from fastapi.responses import StreamingResponse

from api.deps import AdminUser, DocumentId, IdentityDep, IndexDep, RowId, SessionDep, SettingsDep
from api.models import AuditEntry
from api.schemas import ApiTokenOut, AuditEntryOut, JobCreated, JobOut, UserCreate, UserOut, UserUpdate
from api.services import admin, audit, sessions, uploads, users
from api.services.errors import NotFound
from api.views import job_out, user_out
from ingest import jobs
from ingest.worker import JobWorker

router = APIRouter(prefix="/api/admin", tags=["admin"])


def _wake_job_worker(request: Request) -> None:
    worker: JobWorker | None = request.app.state.job_worker
    if worker is not None:
        worker.wake()


_UPLOAD_ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"description": "a file is too large"},
    415: {"description": "a file is not a PDF, Word or OpenDocument file"},
}


@router.post("/uploads", status_code=status.HTTP_201_CREATED, responses=_UPLOAD_ERRORS)
def upload(
    files: Annotated[
        list[UploadFile], File(description="One or more PDF, Word (.docx, .doc) or .odt files.")
    ],
    request: Request,
    admin_user: AdminUser,
    db: SessionDep,
    settings: SettingsDep,
) -> JobCreated:
    """Each file becomes a new document, or the new version of the document uploaded under exactly its name;
    a file whose cleaned name is another document's is stored under a free name (the job's file says so)."""
    stored = uploads.store_uploads(
        [uploads.Upload(file.filename, file.file) for file in files],
        settings.upload_dir,
        settings.max_upload_mb * 1_000_000,
    )
    return _queue_uploads(request, admin_user, db, settings, stored, "documents.upload")


@router.post(
    "/documents/{document_id}/version",
    status_code=status.HTTP_201_CREATED,
    responses=_UPLOAD_ERRORS
    | {409: {"description": "the document lives in a folder `ingest run` reads: replace the file there"}},
)
def upload_version(
    document_id: DocumentId,
    file: Annotated[UploadFile, File(description="The new version (PDF, Word or OpenDocument), any name.")],
    request: Request,
    admin_user: AdminUser,
    db: SessionDep,
    settings: SettingsDep,
) -> JobCreated:
    """The admin chose to replace this uploaded document ("vervang"): the file becomes its new version whatever its
    name. A document from a folder `ingest run` reads is replaced in that folder (409 says so)."""
    source = admin.replaceable_source(db, document_id, settings.upload_dir)
    stored = uploads.store_uploads(
        [uploads.Upload(file.filename, file.file)],
        settings.upload_dir,
        settings.max_upload_mb * 1_000_000,
        replacing=True,
    )
    return _queue_uploads(request, admin_user, db, settings, stored, "document.replace", document_id, source)


def _queue_uploads(
    request: Request,
    admin_user: AdminUser,
    db: SessionDep,
    settings: SettingsDep,
    stored: list[uploads.StoredUpload],
    action: str,
    target: str | None = None,
    replace: Path | None = None,
) -> JobCreated:
    try:
        job_id, versions = uploads.queue_uploads(settings.database_url, settings.upload_dir, stored, replace)
        summary = admin.job(settings.database_url, job_id)
        names = [version.name or version.source.name for version in versions]
        details = {"files": names, "stored_as": [version.source.name for version in versions]}
        audit.record(db, admin_user, action, target or f"job {summary.id}", details | {"job": summary.id})
        db.commit()
    except BaseException:
        # No job will ever read the copies: they go (a queued job's stay for the sweep to judge).
        uploads.remove_copies(stored)
        raise
    _wake_job_worker(request)
    return JobCreated(job=job_out(summary))


@router.get("/jobs")
def list_jobs(_admin: AdminUser, settings: SettingsDep) -> list[JobOut]:
    return [job_out(summary) for summary in jobs.recent_jobs(settings.database_url, limit=50)]


@router.get("/jobs/{job_id}")
def get_job(job_id: RowId, _admin: AdminUser, settings: SettingsDep) -> JobOut:
    return job_out(admin.job(settings.database_url, job_id))


@router.delete("/documents/{document_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_document(
    document_id: DocumentId, admin_user: AdminUser, db: SessionDep, settings: SettingsDep, index: IndexDep
) -> None:
    admin.delete(db, settings.database_url, index, settings.upload_dir, document_id)
    audit.record(db, admin_user, "document.delete", document_id)
    db.commit()


@router.post("/documents/{document_id}/reindex", status_code=status.HTTP_201_CREATED)
def reindex_document(
    document_id: DocumentId,
    request: Request,
    admin_user: AdminUser,
    db: SessionDep,
    settings: SettingsDep,
    index: IndexDep,
) -> JobCreated:
    summary = admin.reindex(db, settings.database_url, index, document_id, settings.document_folders)
    audit.record(db, admin_user, "document.reindex", document_id, {"job": summary.id})
    db.commit()
    _wake_job_worker(request)
    return JobCreated(job=job_out(summary))


@router.get("/users")
def list_users(_admin: AdminUser, db: SessionDep) -> list[UserOut]:
    return [user_out(user) for user in users.list_users(db)]


@router.post("/users", status_code=status.HTTP_201_CREATED)
def create_user(body: UserCreate, admin_user: AdminUser, db: SessionDep) -> UserOut:
    user = users.create_user(db, body.username, body.password, body.roles)
    audit.record(db, admin_user, "user.create", user.username, {"roles": sorted(user.roles)})
    db.commit()
    return user_out(user)


@router.patch("/users/{user_id}")
def update_user(
    user_id: RowId, body: UserUpdate, admin_user: AdminUser, identity: IdentityDep, db: SessionDep
) -> UserOut:
    """A new password ends the user's sessions (all but the admin's own, when it is their own account)."""
    user = admin.update_user(
        db, admin_user, user_id, body.roles, body.disabled, body.password, admin_session=identity.login
    )
    changed = body.model_dump(mode="json", exclude_none=True, exclude={"password"})
    audit.record(
        db, admin_user, "user.update", user.username, changed | {"password": body.password is not None}
    )
    db.commit()
    return user_out(user)


@router.get("/users/{user_id}/tokens")
def list_tokens(user_id: RowId, _admin: AdminUser, db: SessionDep) -> list[ApiTokenOut]:
    """The user's API tokens (never their values), revoked and expired ones included."""
    user = users.get_user(db, user_id)
    if user is None:
        raise NotFound(admin.USER_NOT_FOUND)
    return [ApiTokenOut.model_validate(token) for token in sessions.list_api_tokens(db, user)]


@router.delete("/tokens/{token_id}", status_code=status.HTTP_204_NO_CONTENT)
def revoke_token(token_id: RowId, admin_user: AdminUser, db: SessionDep) -> None:
    """The token stops working at once (revoking it again changes nothing)."""
    token = sessions.revoke_api_token(db, token_id)
    if token is None:
        raise NotFound(admin.TOKEN_NOT_FOUND)
    audit.record(db, admin_user, "token.revoke", f"token {token.id}", {"user_id": token.user_id})
    db.commit()


@router.get(
    "/audit",
    responses={200: {"content": {"text/csv": {}}, "description": "JSON (the default) or CSV (format=csv)"}},
)
def export_audit(
    _admin: AdminUser,
    settings: SettingsDep,
    since: Annotated[datetime | None, Query(description="Only entries from this moment on.")] = None,
    format: Annotated[Literal["json", "csv"], Query()] = "json",
) -> Response:
    """The audit log, oldest first: sign-ins (successful or not) and admins' actions; streamed in batches."""
    batches = audit.batches(settings.database_url, since)
    if format == "csv":
        return StreamingResponse(
            audit.csv_stream(batches),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": 'attachment; filename="audit.csv"'},
        )
    return StreamingResponse(_json_array(batches), media_type="application/json")


def _json_array(batches: Iterator[list[AuditEntry]]) -> Iterator[str]:
    yield "["
    separator = ""
    for batch in batches:
        for row in batch:
            yield separator + json.dumps(
                AuditEntryOut.model_validate(row).model_dump(mode="json"), ensure_ascii=False
            )
            separator = ","
    yield "]"
