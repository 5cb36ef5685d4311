"""Messages as the chat stores them: created when the question arrives, completed when the stream ends.

Each write is one short transaction of its own (the chat stream outlives the request's database session); every
call runs in a worker thread, by the caller, so the event loop never waits on the database.
"""

from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from api.answers.source import Source
from api.chat.instances import THIS_INSTANCE, streaming_on_a_live_instance
from api.models import Conversation, Message, MessageState, User
from api.services import conversations
from ingest.database import session_scope


def check_conversation(db: Session, user: User, conversation_id: int) -> None:
    """`NotFound` unless the conversation exists and is the user's; checked in the request's session (sign-in's
    connection), which is then closed: the stream outlives the request and stores through its own sessions."""
    try:
        conversations.owned_conversation(db, user, conversation_id)
    finally:
        db.close()


def request_stop(database_url: str, user: User, message_id: int, stale_seconds: float) -> bool:
    """Record a stop for the user's message; False when no live API process is generating its answer.
    `NotFound` unless the message exists in one of the user's conversations."""
    with session_scope(database_url) as db:
        conversations.owned_message(db, user, message_id)
        asked = db.scalars(
            update(Message)
            .where(Message.id == message_id, streaming_on_a_live_instance(stale_seconds))
            .values(stop_requested_at=datetime.now(UTC))
            .returning(Message.id)
            .execution_options(synchronize_session=False)
        )
        return asked.first() is not None


def stops_requested(database_url: str, message_ids: Collection[int]) -> set[int]:
    """Which of these messages were asked to stop (by a request to any API process)."""
    with session_scope(database_url) as db:
        asked = select(Message.id).where(Message.id.in_(message_ids), Message.stop_requested_at.is_not(None))
        return set(db.scalars(asked))


def answers_elsewhere(database_url: str, user_id: int, stale_seconds: float) -> int:
    """How many of the user's answers other live API processes are generating now."""
    with session_scope(database_url) as db:
        counted = (
            select(func.count())
            .select_from(Message)
            .join(Conversation, Conversation.id == Message.conversation_id)
            .where(
                Conversation.user_id == user_id,
                streaming_on_a_live_instance(stale_seconds),
                Message.instance_id != THIS_INSTANCE,
            )
        )
        return int(db.scalar(counted) or 0)


def create_message(
    database_url: str,
    conversation_id: int,
    question: str,
    *,
    state: MessageState,
    retrieval_only: bool,
    sources: list[Source],
    stats: dict[str, Any],
    answer: str = "",
    model: str | None = None,
    quote: dict[str, Any] | None = None,
) -> int:
    """Store the question with its sources before any answer exists; returns the message id."""
    now = datetime.now(UTC)
    with session_scope(database_url) as db:
        message = Message(
            conversation_id=conversation_id,
            question=question,
            answer=answer,
            state=state,
            retrieval_only=retrieval_only,
            sources=sources,
            stats=stats,
            model=model,
            quote=quote,
            created_at=now,
            finished_at=None if state == MessageState.generating else now,
            instance_id=THIS_INSTANCE if state == MessageState.generating else None,
        )
        db.add(message)
        db.execute(update(Conversation).where(Conversation.id == conversation_id).values(updated_at=now))
        db.flush()
        return message.id


def finish_message(
    database_url: str,
    message_id: int,
    *,
    answer: str,
    state: MessageState,
    stop_reason: str | None,
    method: str | None,
    stats: dict[str, Any],
    sentences: list[dict[str, Any]],
    support_warning: bool,
) -> None:
    """Record how the answer ended: the text generated so far, the final state and why, its sentences' support
    (one UPDATE; no row when the conversation was deleted while its answer streamed)."""
    with session_scope(database_url) as db:
        db.execute(
            update(Message)
            .where(Message.id == message_id)
            .values(
                answer=answer,
                state=state,
                stop_reason=stop_reason,
                method=method,
                stats=stats,
                sentences=sentences,
                support_warning=support_warning,
                finished_at=datetime.now(UTC),
            )
        )
