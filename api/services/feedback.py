"""Feedback on the documents shown with an answer, and the evaluators' exports of all feedback.

The evaluation-set export turns the clinicians' judgements into `python -m research.evaluate`'s CSV: each
question whose shown documents were marked as containing the answer becomes a labelled question with those
documents as the relevant ones (the source study built its test set the same way, from "liked" documents).
"""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from api.csvfile import csv_text
from api.models import Conversation, DocumentFeedback, Message, User
from api.question_set_format import CSV_COLUMNS, DOCUMENT_SEPARATOR
from api.services.conversations import owned_message
from api.services.errors import NotFound

DOCUMENT_NOT_SHOWN = "Dit document hoorde niet bij dit antwoord."

FEEDBACK_COLUMNS = (
    "conversation_id",
    "message_id",
    "asked_at",
    "question",
    "state",
    "model",
    "method",
    "rank",
    "document_id",
    "title",
    "page_start",
    "page_end",
    "chunk_index",
    "score",
    "contains_answer",
    "highlight_correct",
    "answer_found",
    "quote",
    "supported_sentences",
    "support_warning",
)


def shown_documents(message: Message) -> list[str]:
    """The document ids shown with the answer, in rank order, each once."""
    return list(dict.fromkeys(str(source["document_id"]) for source in message.sources))


def put_document_feedback(
    db: Session,
    user: User,
    message_id: int,
    document_id: str,
    contains_answer: bool | None,
    highlight_correct: bool | None,
) -> DocumentFeedback:
    message = owned_message(db, user, message_id)
    if document_id not in shown_documents(message):
        raise NotFound(DOCUMENT_NOT_SHOWN)
    row = next((row for row in message.feedback if row.document_id == document_id), None)
    if row is None:
        row = DocumentFeedback(message_id=message.id, document_id=document_id)
        message.feedback.append(row)
    row.contains_answer = contains_answer
    row.highlight_correct = highlight_correct
    db.flush()
    return row


def _messages_with_feedback(db: Session) -> Iterator[tuple[Conversation, Message]]:
    """Messages with any document feedback, or in a conversation with an "antwoord gevonden?" answer."""
    query = (
        select(Message, Conversation)
        .join(Conversation)
        .where(Message.feedback.any() | Conversation.answer_found.is_not(None))
        .order_by(Message.id)
        .options(selectinload(Message.feedback))
        .execution_options(yield_per=500)
    )
    for message, conversation in db.execute(query):
        yield conversation, message


def _yes_no(value: bool | None) -> str:
    return "" if value is None else ("ja" if value else "nee")


def _supported(sentences: list[dict[str, Any]] | None) -> str:
    """ "2/3": how many of the generated answer's sentences were found in the sources (empty: none checked)."""
    if not sentences:
        return ""
    return f"{sum(bool(sentence.get('supported')) for sentence in sentences)}/{len(sentences)}"


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def feedback_csv(db: Session) -> str:
    """One row per document shown with an answer that got any feedback (documents without an answer: empty)."""
    return csv_text(FEEDBACK_COLUMNS, _feedback_rows(db))


def _feedback_rows(db: Session) -> Iterator[tuple[object, ...]]:
    for conversation, message in _messages_with_feedback(db):
        judged = {row.document_id: row for row in message.feedback}
        for rank, source in enumerate(message.sources, start=1):
            row = judged.get(str(source["document_id"]))
            yield (
                conversation.id,
                message.id,
                _iso(message.created_at),
                message.question,
                message.state,
                message.model or "",
                message.method or "",
                rank,
                source["document_id"],
                source.get("title", ""),
                source.get("page_start", ""),
                source.get("page_end", ""),
                source.get("chunk_index", ""),
                source.get("score", ""),
                _yes_no(row.contains_answer if row else None),
                _yes_no(row.highlight_correct if row else None),
                _yes_no(conversation.answer_found),
                (message.quote or {}).get("text", ""),
                _supported(message.sentences),
                _yes_no(message.support_warning),
            )


@dataclass(frozen=True)
class LabelledQuestion:
    id: str
    question: str
    relevant_documents: tuple[str, ...]


def labelled_questions(db: Session) -> list[LabelledQuestion]:
    labelled = []
    for _, message in _messages_with_feedback(db):
        marked = {row.document_id for row in message.feedback if row.contains_answer}
        relevant = tuple(document for document in shown_documents(message) if document in marked)
        if relevant:
            labelled.append(LabelledQuestion(f"message-{message.id}", message.question, relevant))
    return labelled


def feedback_set_csv(db: Session) -> str:
    """`id,question,relevant_documents` (documents by id, `;`-separated), readable by `python -m research.evaluate`."""
    return csv_text(
        ("id", *CSV_COLUMNS),
        (
            (question.id, question.question, DOCUMENT_SEPARATOR.join(question.relevant_documents))
            for question in labelled_questions(db)
        ),
    )
