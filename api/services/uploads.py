"""PDF uploads: each file checked (size, `%PDF-` magic bytes) and stored as a new version under UPLOAD_DIR.

A request is all or nothing: every file is checked into a temporary file first, and only when all pass are
they moved into place. When some fail, the answer names every refused file and why, and says that the good ones
were not stored either (so the admin knows to upload them again without the refused ones).

The document goes by the client's name after sanitising (no folders, no odd characters): a file uploaded again
under the same name is the new version of that procedure. Its bytes are stored under a name of ours
(`versions/<random>.pdf`), never overwriting the version whose chunks are searchable: the viewer keeps showing
that one until the new version's job has indexed the new one and swaps them (ingestion removes the copy no
document uses any more; a failed job leaves the old version live). Copies nothing refers to — the job could not be
queued, a process died in between — are removed: at once when queuing fails, otherwise by `sweep_orphans`
(api/housekeeping.py runs it).
"""

import logging
import os
import re
import tempfile
import time
import unicodedata
import uuid
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import BinaryIO

from sqlalchemy import select

from api.services.errors import Conflict, Invalid, ServiceError, TooLarge, UnsupportedMedia
from ingest.database import session_scope
from ingest.jobs import Version
from ingest.models import Document, JobFile

log = logging.getLogger(__name__)

PDF_MAGIC = b"%PDF-"
READ_BLOCK = 1 << 20
MAX_NAME = 150
VERSIONS = "versions"
_UNSAFE = re.compile(r"[^\w\-.() ]+")


@dataclass(frozen=True)
class Upload:
    filename: str | None
    stream: BinaryIO


def safe_name(filename: str | None) -> str:
    """The last path component, NFKC-normalised, odd characters replaced, ending in `.pdf`."""
    base = re.split(r"[\\/]", unicodedata.normalize("NFKC", filename or ""))[-1]
    stem = base[:-4] if base.lower().endswith(".pdf") else base
    stem = _UNSAFE.sub("_", stem).strip(" ._")
    return f"{stem[:MAX_NAME] or 'document'}.pdf"


def _checked_copy(upload: Upload, folder: Path, max_bytes: int) -> Path:
    """The upload copied into a temporary file of `folder`, or an error (and no temporary file left); the error
    names the file as the admin chose it ("notities.txt", not its stored name "notities.txt.pdf")."""
    name = re.split(r"[\\/]", upload.filename or "")[-1][:MAX_NAME] or safe_name(upload.filename)
    descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".upload-", suffix=".part")
    try:
        with os.fdopen(descriptor, "wb") as out:
            head = upload.stream.read(len(PDF_MAGIC))
            if head != PDF_MAGIC:
                raise UnsupportedMedia(f"{name} is geen PDF-bestand.")
            out.write(head)
            size = len(head)
            while block := upload.stream.read(READ_BLOCK):
                size += len(block)
                if size > max_bytes:
                    raise TooLarge(f"{name} is groter dan {max_bytes // 1_000_000} MB.")
                out.write(block)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return Path(temporary)


def store_uploads(uploads: list[Upload], folder: Path, max_bytes: int) -> list[Version]:
    """Check every file, then store them all as new versions in `folder`; returns each one's upload name and
    stored copy (nothing stored on error: the error names each refused file, and the good files that were not
    stored)."""
    if not uploads:
        raise Invalid("Kies minstens één PDF-bestand.")
    names = [safe_name(upload.filename) for upload in uploads]
    doubles = sorted({name for name in names if names.count(name) > 1})
    if doubles:
        raise Conflict(f"Meerdere bestanden krijgen dezelfde naam: {', '.join(doubles)}.")
    copies = folder / VERSIONS
    copies.mkdir(parents=True, exist_ok=True)
    checked: list[Path] = []
    refused: list[ServiceError] = []
    good: list[str] = []
    try:
        for upload, name in zip(uploads, names, strict=True):
            try:
                checked.append(_checked_copy(upload, copies, max_bytes))
                good.append(name)
            except (TooLarge, UnsupportedMedia) as error:
                refused.append(error)
    except BaseException:
        _remove(checked)
        raise
    if refused:
        _remove(checked)
        raise _refusal(refused, good)
    stored = []
    for temporary, name in zip(checked, names, strict=True):
        copy = copies / f"{uuid.uuid4().hex}.pdf"
        os.replace(temporary, copy)
        stored.append(Version(source=folder.resolve() / name, stored=copy.resolve()))
    return stored


def remove_copies(stored: list[Version]) -> None:
    """Remove stored copies no job will read (queuing their job failed)."""
    _remove([version.stored for version in stored])


def sweep_orphans(database_url: str, folder: Path, older_than: timedelta) -> list[Path]:
    """Remove the stored copies (and unfinished temporaries) under `folder/versions` older than `older_than` that
    no job file and no document refers to; the removed paths. The grace period spares an upload being stored or
    queued right now."""
    copies = folder / VERSIONS
    if not copies.is_dir():
        return []
    cutoff = time.time() - older_than.total_seconds()
    candidates = [path for path in copies.iterdir() if path.is_file() and path.stat().st_mtime < cutoff]
    if not candidates:
        return []
    with session_scope(database_url) as db:
        referred = {
            Path(name).resolve()
            for column in (JobFile.file_path, Document.file_path)
            for name in db.scalars(select(column).where(column.is_not(None)))
            if name is not None
        }
    removed = [path for path in candidates if path.resolve() not in referred]
    _remove(removed)
    if removed:
        log.warning("removed %d upload copies that no job or document refers to", len(removed))
    return removed


def _remove(temporaries: list[Path]) -> None:
    for temporary in temporaries:
        temporary.unlink(missing_ok=True)


def _refusal(refused: list[ServiceError], good: list[str]) -> ServiceError:
    """One error for the whole request (the first refusal's kind) that says what happened to every file."""
    reasons = " ".join(error.detail for error in refused)
    kept = (
        f" Ook {', '.join(good)} {'is' if len(good) == 1 else 'zijn'} niet opgeslagen: kies "
        f"{'dat bestand' if len(good) == 1 else 'die bestanden'} opnieuw, zonder de geweigerde."
        if good
        else ""
    )
    return type(refused[0])(f"Niets opgeslagen. {reasons}{kept}")
