"""Uploads: each file checked (size, what its content is: PDF, Word or OpenDocument) and stored as a new version
under UPLOAD_DIR.

A request is all or nothing: every file is checked into a temporary file first, and only when all pass are
they moved into place. When some fail, the answer names every refused file and why, and says that the good ones
were not stored either (so the admin knows to upload them again without the refused ones).

A document goes by the name the admin gave it (kept as given, shown in the UI) and lives at a sanitised path
(no folders, no odd characters). A file uploaded again under exactly the same name is the new version of that
procedure; so is a file the admin uploads as a new version of a chosen document ("vervang"). Anything else never
replaces a document: a name whose sanitised form is another document's path ("Insuline kind ≥ 6 jaar.pdf" and
"Insuline kind < 6 jaar.pdf" both clean to "Insuline kind _ 6 jaar.pdf") is stored under a free path
("… (2).pdf") and the job says so; the path is chosen in the transaction that queues the job, under a lock, so two
uploads at once never choose one path. Bytes are stored under a name of ours (`versions/<random>.<kind>`), never
overwriting the version whose chunks are searchable: the viewer keeps showing that one until the new version's
job has indexed the new one and swaps them (ingestion removes the copy no document uses any more; a failed job
leaves the old version live). Copies nothing refers to — the job could not be queued, a process died in between —
are removed: at once when queuing fails, otherwise by `sweep_orphans` (api/housekeeping.py runs it).
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
from ingest import jobs
from ingest.database import session_scope
from ingest.formats import ACCEPTED, SUFFIXES, Kind, kind_of
from ingest.jobs import Version
from ingest.models import Document, JobFile

log = logging.getLogger(__name__)

READ_BLOCK = 1 << 20
MAX_NAME = 150
VERSIONS = "versions"
_UNSAFE = re.compile(r"[^\w\-.() ]+")


@dataclass(frozen=True)
class Upload:
    filename: str | None
    stream: BinaryIO


@dataclass(frozen=True)
class StoredUpload:
    """An upload's bytes under a name of ours (`versions/<random>.<kind>`), with the name the admin gave it."""

    given: str
    stored: Path
    kind: Kind


@dataclass(frozen=True)
class _Checked:
    """An upload copied into a temporary file: its name as given and what its content is."""

    given: str
    temporary: Path
    kind: Kind


def given_name(filename: str | None) -> str:
    """The name as the admin gave it, without any folder part (`../../x.docx` is `x.docx`)."""
    return re.split(r"[\\/]", filename or "")[-1].strip()[:MAX_NAME]


def safe_name(filename: str | None, kind: Kind = Kind.pdf) -> str:
    """The last path component, NFKC-normalised, odd characters replaced, ending in the kind's suffix."""
    base = re.split(r"[\\/]", unicodedata.normalize("NFKC", filename or ""))[-1]
    suffix = Path(base).suffix
    stem = base[: -len(suffix)] if suffix.lower() in SUFFIXES else base
    stem = _UNSAFE.sub("_", stem).strip(" ._")
    return f"{stem[:MAX_NAME] or 'document'}{kind.suffix}"


def _checked_copy(upload: Upload, folder: Path, max_bytes: int) -> _Checked:
    """The upload copied into a temporary file of `folder`, or an error (and no temporary file left); the error
    names the file as the admin chose it ("notities.txt")."""
    name = given_name(upload.filename) or "document"
    descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".upload-", suffix=".part")
    try:
        with os.fdopen(descriptor, "wb") as out:
            size = 0
            while block := upload.stream.read(READ_BLOCK):
                size += len(block)
                if size > max_bytes:
                    raise TooLarge(f"{name} is groter dan {max_bytes // 1_000_000} MB.")
                out.write(block)
        kind = kind_of(Path(temporary), name)
        if kind is None:
            raise UnsupportedMedia(f"{name} is geen {ACCEPTED}.")
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return _Checked(name, Path(temporary), kind)


def store_uploads(
    uploads: list[Upload], folder: Path, max_bytes: int, replacing: bool = False
) -> list[StoredUpload]:
    """Check every file, then store them all under `folder/versions` (nothing stored on error: the error names
    each refused file, and the good files that were not stored). `replacing`: the one file given is a chosen
    document's new version."""
    if not uploads:
        raise Invalid("Kies minstens één bestand (.pdf, .docx, .doc, .odt).")
    if replacing and len(uploads) != 1:
        raise Invalid("Kies precies één bestand als nieuwe versie van een document.")
    given = [given_name(upload.filename) for upload in uploads]
    doubles = sorted({name for name in given if given.count(name) > 1})
    if doubles:
        raise Conflict(f"Meerdere bestanden hebben dezelfde naam: {', '.join(doubles)}.")
    copies = folder / VERSIONS
    copies.mkdir(parents=True, exist_ok=True)
    checked: list[_Checked] = []
    refused: list[ServiceError] = []
    try:
        for upload in uploads:
            try:
                checked.append(_checked_copy(upload, copies, max_bytes))
            except (TooLarge, UnsupportedMedia) as error:
                refused.append(error)
    except BaseException:
        _remove([file.temporary for file in checked])
        raise
    if refused:
        _remove([file.temporary for file in checked])
        raise _refusal(refused, [file.given for file in checked])
    stored: list[StoredUpload] = []
    try:
        for file in checked:
            copy = copies / f"{uuid.uuid4().hex}{file.kind.suffix}"
            os.replace(file.temporary, copy)
            stored.append(StoredUpload(file.given, copy.resolve(), file.kind))
    except BaseException:
        _remove([file.temporary for file in checked])
        remove_copies(stored)
        raise
    return stored


def queue_uploads(
    database_url: str, folder: Path, stored: list[StoredUpload], replace: Path | None = None
) -> tuple[int, list[Version]]:
    """A job over the stored uploads, each as the new version of the document at `replace` (the one upload the
    admin chose it for), else at the path `_places` chooses among the paths in use, in the job's own
    transaction; the job's id and the versions as queued."""
    if replace is not None:
        versions = [Version(source=replace, stored=upload.stored, name=upload.given) for upload in stored]
        return jobs.create_job(database_url, [], versions), versions
    return jobs.create_upload_job(
        database_url, folder.resolve(), lambda in_use: _places(in_use, folder.resolve(), stored)
    )


def _places(in_use: dict[str, str], folder: Path, files: list[StoredUpload]) -> list[Version]:
    """Where each upload goes: the path of the document (or queued upload) with exactly its name, which it is a
    new version of; otherwise its sanitised name, or the first free `name (n)` when another document has that
    path (with a note saying so). `in_use`: path → name of those in `folder`."""
    by_name = {name: Path(path) for path, name in in_use.items()}
    places: list[Version] = []
    for file in files:
        if file.given in by_name:
            places.append(Version(by_name[file.given], file.stored, file.given))
            continue
        wanted = folder / safe_name(file.given, file.kind)
        place = _free(wanted, in_use)
        note = None
        if place != wanted:
            other = in_use[str(wanted)]
            note = (
                f"opgeslagen als {place.name}: {wanted.name} hoort al bij een ander document ({other}); "
                "dat document is niet vervangen"
            )
        in_use[str(place)] = file.given
        places.append(Version(place, file.stored, file.given, note))
    return places


def _free(wanted: Path, in_use: dict[str, str]) -> Path:
    place, number = wanted, 1
    while str(place) in in_use:
        number += 1
        place = wanted.with_name(f"{wanted.stem} ({number}){wanted.suffix}")
    return place


def remove_copies(stored: list[StoredUpload]) -> None:
    """Remove stored copies no job will read (queuing their job failed)."""
    _remove([upload.stored for upload in stored])


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
