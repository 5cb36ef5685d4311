"""The indexed documents for any signed-in user: list and search, details, the PDF shown, the original file, one
passage."""

from typing import Annotated

from fastapi import APIRouter, Path, Query
from fastapi.responses import FileResponse

from api.deps import MAX_ROW_ID, DocumentId, IndexDep, SessionDep, SettingsDep, StaffUser
from api.schemas import DocumentOut, PassageOut, Text
from api.services import documents
from api.services.documents import media_type

router = APIRouter(prefix="/api/documents", tags=["documents"])


@router.get("")
def list_documents(
    _user: StaffUser,
    db: SessionDep,
    q: Annotated[Text | None, Query(max_length=200, description="Part of the title or file name.")] = None,
    audience: Annotated[Text | None, Query(max_length=100)] = None,
    department: Annotated[Text | None, Query(max_length=100)] = None,
) -> list[DocumentOut]:
    return [DocumentOut.model_validate(row) for row in documents.list_documents(db, q, audience, department)]


@router.get("/{document_id}")
def get_document(document_id: DocumentId, _user: StaffUser, db: SessionDep) -> DocumentOut:
    return DocumentOut.model_validate(documents.get_document(db, document_id))


@router.get(
    "/{document_id}/file",
    response_class=FileResponse,
    responses={
        200: {
            "content": {"application/pdf": {}},
            "description": "The PDF the viewer shows: the file itself, or its conversion (Word, OpenDocument) or "
            "OCR'd copy (a scan) when `converted`.",
        }
    },
)
def document_file(
    document_id: DocumentId, _user: StaffUser, db: SessionDep, settings: SettingsDep
) -> FileResponse:
    path, name = documents.document_file(db, document_id, settings.document_folders)
    return FileResponse(path, media_type="application/pdf", filename=name, content_disposition_type="inline")


@router.get(
    "/{document_id}/original",
    response_class=FileResponse,
    responses={
        200: {
            "description": "The file as it was ingested (a Word or OpenDocument file, a scan), to download."
        }
    },
)
def original_file(
    document_id: DocumentId, _user: StaffUser, db: SessionDep, settings: SettingsDep
) -> FileResponse:
    path, name = documents.document_file(db, document_id, settings.document_folders, original=True)
    return FileResponse(
        path, media_type=media_type(name), filename=name, content_disposition_type="attachment"
    )


@router.get("/{document_id}/passages/{chunk_index}")
def get_passage(
    document_id: DocumentId,
    chunk_index: Annotated[int, Path(ge=0, le=MAX_ROW_ID)],
    _user: StaffUser,
    db: SessionDep,
    index: IndexDep,
) -> PassageOut:
    chunk = documents.passage(db, index, document_id, chunk_index)
    return PassageOut(
        document_id=chunk.document_id,
        chunk_index=chunk.chunk_index,
        page_start=chunk.page_start,
        page_end=chunk.page_end,
        char_start=chunk.char_start,
        char_end=chunk.char_end,
        text=chunk.chunk,
    )
