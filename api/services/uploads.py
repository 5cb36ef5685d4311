"""PDF uploads: each file checked (size, `%PDF-` magic bytes), given a safe name and stored under UPLOAD_DIR.

A request is all or nothing: every file is checked into a temporary file first, and only when all pass are
they moved into place. The stored name comes from the client's name after sanitising (no folders, no odd
characters); a file uploaded again under the same name is the new version of that procedure and replaces the
old one at the next ingestion.
"""

import os
import re
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from api.services.errors import Conflict, Invalid, TooLarge, UnsupportedMedia

PDF_MAGIC = b"%PDF-"
READ_BLOCK = 1 << 20
MAX_NAME = 150
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
    """The upload copied into a temporary file of `folder`, or an error (and no temporary file left)."""
    name = safe_name(upload.filename)
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


def store_uploads(uploads: list[Upload], folder: Path, max_bytes: int) -> list[Path]:
    """Check every file, then move them all into `folder`; returns the stored paths (nothing stored on error)."""
    if not uploads:
        raise Invalid("Kies minstens één PDF-bestand.")
    names = [safe_name(upload.filename) for upload in uploads]
    doubles = sorted({name for name in names if names.count(name) > 1})
    if doubles:
        raise Conflict(f"Meerdere bestanden krijgen dezelfde naam: {', '.join(doubles)}.")
    folder.mkdir(parents=True, exist_ok=True)
    checked: list[Path] = []
    try:
        for upload in uploads:
            checked.append(_checked_copy(upload, folder, max_bytes))
    except BaseException:
        for temporary in checked:
            temporary.unlink(missing_ok=True)
        raise
    stored = []
    for temporary, name in zip(checked, names, strict=True):
        target = folder / name
        os.replace(temporary, target)
        stored.append(target.resolve())
    return stored
