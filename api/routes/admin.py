"""The admin's routes: PDF uploads and ingestion jobs, deleting and reindexing documents, user accounts."""

from typing import Annotated

from fastapi import APIRouter, File, Request, UploadFile, status

from api.deps import AdminUser, DocumentId, IndexDep, RowId, SessionDep, SettingsDep
from api.schemas import JobCreated, JobOut, UserCreate, UserOut, UserUpdate
from api.services import admin, uploads, users
from api.views import job_out, user_out
from ingest import jobs
from ingest.worker import JobWorker

router = APIRouter(prefix="/api/admin", tags=["admin"])


def _wake_job_worker(request: Request) -> None:
    worker: JobWorker | None = request.app.state.job_worker
    if worker is not None:
        worker.wake()


@router.post(
    "/uploads",
    status_code=status.HTTP_201_CREATED,
    responses={413: {"description": "a file is too large"}, 415: {"description": "a file is not a PDF"}},
)
def upload(
    files: Annotated[list[UploadFile], File(description="One or more PDFs.")],
    request: Request,
    _admin: AdminUser,
    settings: SettingsDep,
) -> JobCreated:
    stored = uploads.store_uploads(
        [uploads.Upload(file.filename, file.file) for file in files],
        settings.upload_dir,
        settings.max_upload_mb * 1_000_000,
    )
    summary = admin.queue_job(settings.database_url, stored)
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
    document_id: DocumentId, _admin: AdminUser, db: SessionDep, settings: SettingsDep, index: IndexDep
) -> None:
    admin.delete(db, settings.database_url, index, settings.upload_dir, document_id)


@router.post("/documents/{document_id}/reindex", status_code=status.HTTP_201_CREATED)
def reindex_document(
    document_id: DocumentId,
    request: Request,
    _admin: AdminUser,
    db: SessionDep,
    settings: SettingsDep,
    index: IndexDep,
) -> JobCreated:
    summary = admin.reindex(db, settings.database_url, index, document_id)
    _wake_job_worker(request)
    return JobCreated(job=job_out(summary))


@router.get("/users")
def list_users(_admin: AdminUser, db: SessionDep) -> list[UserOut]:
    return [user_out(user) for user in users.list_users(db)]


@router.post("/users", status_code=status.HTTP_201_CREATED)
def create_user(body: UserCreate, _admin: AdminUser, db: SessionDep) -> UserOut:
    user = users.create_user(db, body.username, body.password, body.roles)
    db.commit()
    return user_out(user)


@router.patch("/users/{user_id}")
def update_user(user_id: RowId, body: UserUpdate, admin_user: AdminUser, db: SessionDep) -> UserOut:
    user = admin.update_user(db, admin_user, user_id, body.roles, body.disabled, body.password)
    db.commit()
    return user_out(user)
