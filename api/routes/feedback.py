"""Per message and document, the source UI's two feedback questions."""

from fastapi import APIRouter

from api.deps import ClinicianUser, RowId, SessionDep
from api.schemas import DocumentFeedbackIn, DocumentFeedbackOut
from api.services import feedback

router = APIRouter(prefix="/api/messages", tags=["feedback"])


@router.put("/{message_id}/feedback/{document_id}")
def put_document_feedback(
    message_id: RowId, document_id: str, body: DocumentFeedbackIn, user: ClinicianUser, db: SessionDep
) -> DocumentFeedbackOut:
    """ "Bevat dit document een antwoord op jouw vraag?" and "Is de markering op het juiste deel van de tekst
    geplaatst?" (null = not answered)."""
    row = feedback.put_document_feedback(
        db, user, message_id, document_id, body.contains_answer, body.highlight_correct
    )
    db.commit()
    return DocumentFeedbackOut.model_validate(row)
