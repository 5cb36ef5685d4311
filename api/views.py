"""Database rows turned into response bodies, where a field needs more than copying."""

from pathlib import Path

from api.models import User
from api.schemas import JobFileOut, JobOut, UserOut
from ingest.jobs import JobSummary


def user_out(user: User) -> UserOut:
    return UserOut(id=user.id, username=user.username, roles=sorted(user.roles), disabled=user.disabled)


def job_out(summary: JobSummary) -> JobOut:
    return JobOut(
        id=summary.id,
        status=summary.status,
        created_at=summary.created_at,
        finished_at=summary.finished_at,
        progress=summary.progress,
        counts={status.value: count for status, count in summary.counts.items()},
        files=[
            JobFileOut(
                path=file.path,
                name=Path(file.path).name,
                status=file.status,
                message=file.message,
                chunks_total=file.chunks_total,
                chunks_done=file.chunks_done,
            )
            for file in summary.files
        ],
    )
