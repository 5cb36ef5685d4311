"""A user's conversations and messages: listing, creating, deleting, and the per-conversation feedback.

Every lookup goes through the owner: a conversation or message of another user is simply not found.
"""

from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from api.models import Conversation, Message, User
from api.services.errors import NotFound

DEFAULT_TITLE = "Nieuw gesprek"
CONVERSATION_NOT_FOUND = "Gesprek niet gevonden."
MESSAGE_NOT_FOUND = "Bericht niet gevonden."


def list_conversations(db: Session, user: User) -> list[Conversation]:
    return list(
        db.scalars(
            select(Conversation)
            .where(Conversation.user_id == user.id)
            .order_by(Conversation.updated_at.desc(), Conversation.id.desc())
        )
    )


def create_conversation(db: Session, user: User, title: str | None) -> Conversation:
    now = datetime.now(UTC)
    conversation = Conversation(
        user_id=user.id, title=(title or "").strip() or DEFAULT_TITLE, created_at=now, updated_at=now
    )
    db.add(conversation)
    db.flush()
    return conversation


def owned_conversation(
    db: Session, user: User, conversation_id: int, with_messages: bool = False
) -> Conversation:
    query = select(Conversation).where(Conversation.id == conversation_id, Conversation.user_id == user.id)
    if with_messages:
        query = query.options(selectinload(Conversation.messages).selectinload(Message.feedback))
    conversation = db.scalars(query).first()
    if conversation is None:
        raise NotFound(CONVERSATION_NOT_FOUND)
    return conversation


def owned_message(db: Session, user: User, message_id: int) -> Message:
    message = db.scalars(
        select(Message)
        .join(Conversation)
        .where(Message.id == message_id, Conversation.user_id == user.id)
        .options(selectinload(Message.feedback))
    ).first()
    if message is None:
        raise NotFound(MESSAGE_NOT_FOUND)
    return message


def delete_conversation(db: Session, user: User, conversation_id: int) -> None:
    db.delete(owned_conversation(db, user, conversation_id))
    db.flush()


def set_answer_found(db: Session, user: User, conversation_id: int, answer_found: bool) -> Conversation:
    """ "Antwoord gevonden?" for the whole conversation (the latest answer counts)."""
    conversation = owned_conversation(db, user, conversation_id)
    conversation.answer_found = answer_found
    conversation.answer_found_at = datetime.now(UTC)
    db.flush()
    return conversation
