"""Database rows turned into response bodies, where a field needs more than copying."""

import re

from api.models import User
from api.schemas import JobFileOut, JobOut, UserOut
from ingest.jobs import JobSummary

# An absolute server path to a PDF inside a message ("zelfde inhoud als /srv/.data/uploads/x.pdf"): only its name
# goes to the browser, which has no business knowing the server's folders.
_SERVER_PATH = re.compile(r"(?<![\w.])/(?:[^/\n'\"]*/)+([^/\n'\"]*?\.(?:pdf|docx|doc|odt))\b", re.IGNORECASE)


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
                name=file.name,
                status=file.status,
                message=without_server_paths(file.message),
                note=file.note,
                chunks_total=file.chunks_total,
                chunks_done=file.chunks_done,
            )
            for file in summary.files
        ],
    )


def without_server_paths(message: str | None) -> str | None:
    """The message with every absolute path to a PDF cut to the file's name."""
    return None if message is None else _SERVER_PATH.sub(r"\1", message)
