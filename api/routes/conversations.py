"""A signed-in user's own conversations (the chat's message stream lives in `api.chat`)."""

from fastapi import APIRouter, status

from api.deps import ClinicianUser, RowId, SessionDep
from api.schemas import AnswerFoundIn, AnswerFoundOut, ConversationCreate, ConversationDetail, ConversationOut
from api.services import conversations

router = APIRouter(prefix="/api/conversations", tags=["conversations"])


@router.get("")
def list_conversations(user: ClinicianUser, db: SessionDep) -> list[ConversationOut]:
    return [ConversationOut.model_validate(row) for row in conversations.list_conversations(db, user)]


@router.post("", status_code=status.HTTP_201_CREATED)
def create_conversation(body: ConversationCreate, user: ClinicianUser, db: SessionDep) -> ConversationOut:
    conversation = conversations.create_conversation(db, user, body.title)
    db.commit()
    return ConversationOut.model_validate(conversation)


@router.get("/{conversation_id}")
def get_conversation(conversation_id: RowId, user: ClinicianUser, db: SessionDep) -> ConversationDetail:
    conversation = conversations.owned_conversation(db, user, conversation_id, with_messages=True)
    return ConversationDetail.model_validate(conversation, from_attributes=True)


@router.delete("/{conversation_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_conversation(conversation_id: RowId, user: ClinicianUser, db: SessionDep) -> None:
    conversations.delete_conversation(db, user, conversation_id)
    db.commit()


@router.put("/{conversation_id}/feedback")
def set_answer_found(
    conversation_id: RowId, body: AnswerFoundIn, user: ClinicianUser, db: SessionDep
) -> AnswerFoundOut:
    """ "Antwoord gevonden?" for the conversation."""
    conversations.set_answer_found(db, user, conversation_id, body.answer_found)
    db.commit()
    return AnswerFoundOut(conversation_id=conversation_id, answer_found=body.answer_found)
