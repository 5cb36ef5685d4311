"""Answers stored the way the chat stores them, for tests of what happens to answers afterwards."""

from typing import Any

from sqlalchemy.orm import Session

from api.models import Message, MessageState
from ingest.database import get_engine


def source(document_id: str, title: str, chunk_index: int = 0, score: float = 0.9) -> dict[str, Any]:
    return {
        "document_id": document_id,
        "title": title,
        "page_start": 1,
        "page_end": 1,
        "chunk_index": chunk_index,
        "passage": f"passage {chunk_index} of {title}",
        "score": score,
    }


def store_answer(
    database_url: str, conversation_id: int, question: str, sources: list[dict[str, Any]]
) -> int:
    with Session(get_engine(database_url)) as db:
        message = Message(
            conversation_id=conversation_id,
            question=question,
            answer="Een antwoord.",
            state=MessageState.answered,
            stop_reason="eos",
            sources=sources,
            model="tiny",
            method="casd",
            stats={"tau": 2.5},
        )
        db.add(message)
        db.commit()
        return message.id
