"""The indexed documents as clinicians see them: list and search with metadata, the file, one passage.

Files are found by document id through the documents table, which ingestion filled: no path a client sends
ever reaches the filesystem. With DOCUMENTS_DIR set, only files inside it or UPLOAD_DIR are opened at all.
"""

import logging
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.services.errors import NotFound
from ingest.models import Document
from ingest.search.types import ChunkRecord, SearchIndex

DOCUMENT_NOT_FOUND = "Document niet gevonden."
FILE_GONE = "Het bestand van dit document is niet meer beschikbaar."
PASSAGE_NOT_FOUND = "Deze passage bestaat niet (meer) in de index."

log = logging.getLogger(__name__)


def list_documents(
    db: Session, text: str | None = None, audience: str | None = None, department: str | None = None
) -> list[Document]:
    """Documents whose title or file name contains `text` (any case) and that carry the given tags."""
    query = select(Document).order_by(Document.title, Document.id)
    if text and text.strip():
        pattern = f"%{text.strip()}%"
        query = query.where(Document.title.ilike(pattern) | Document.file_name.ilike(pattern))
    rows = db.scalars(query)
    return [
        row
        for row in rows
        if (not audience or audience in row.audiences) and (not department or department in row.departments)
    ]


def get_document(db: Session, document_id: str) -> Document:
    row = db.get(Document, document_id)
    if row is None:
        raise NotFound(DOCUMENT_NOT_FOUND)
    return row


def document_file(
    db: Session, document_id: str, folders: Sequence[Path] | None, *, original: bool = False
) -> tuple[Path, str]:
    """The PDF the viewer shows (the document's chunks came from its text) and the name to offer it under, or
    with `original` the file as ingested (a Word file, a scan without OCR); `folders`: the only folders files may
    be opened from (None: any)."""
    row = get_document(db, document_id)
    path = Path(row.stored_file if original else row.shown_file)
    if folders is not None and not any(path.resolve().is_relative_to(f.resolve()) for f in folders):
        log.warning("document %s: its file %s lies outside %s", document_id, path, [str(f) for f in folders])
        raise NotFound(FILE_GONE)
    if not path.is_file():
        raise NotFound(FILE_GONE)
    name = row.file_name if original or not row.converted else f"{Path(row.file_name).stem}.pdf"
    return path, name


_MEDIA_TYPES = {
    ".pdf": "application/pdf",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".doc": "application/msword",
    ".odt": "application/vnd.oasis.opendocument.text",
}


def media_type(name: str) -> str:
    """The media type of an original file by its name's suffix (the upload checked the content)."""
    return _MEDIA_TYPES.get(Path(name).suffix.lower(), "application/octet-stream")


def passage(db: Session, index: SearchIndex, document_id: str, chunk_index: int) -> ChunkRecord:
    get_document(db, document_id)
    chunks = index.chunks(document_id)
    if not 0 <= chunk_index < len(chunks):
        raise NotFound(PASSAGE_NOT_FOUND)
    return chunks[chunk_index]
