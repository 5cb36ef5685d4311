"""Public labelled sets in their original SQuAD format: COVID-QA (deepset, Apache-2.0) and XQuAD (DeepMind,
CC BY-SA 4.0), read from a path the caller gives (they are never copied into the repository).

Both become documents plus questions labelled with their document and with the answer's character span, so the
same run scores documents and chunks. COVID-QA: one document per article, titled by its first line; some
`answer_start` values are off by a character or two, so an answer is placed at its verbatim occurrence nearest to
the stated start. XQuAD: one document per paragraph, titled by its Wikipedia article.
"""

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ValidationError

from api.evaluator.queries import AnswerSpan, EvalQuery


@dataclass(frozen=True)
class SourceDocument:
    """A document to index: its text as the source gives it, and the title chunks are prefixed with."""

    id: str
    title: str
    text: str
    file_name: str | None = None


@dataclass(frozen=True)
class EvalSet:
    """Documents and the questions about them; `description` names the source, licence and language."""

    name: str
    description: str
    documents: tuple[SourceDocument, ...]
    queries: tuple[EvalQuery, ...]


class DatasetError(ValueError):
    """A dataset file is not in the format its loader reads."""


class _Answer(BaseModel):
    text: str
    answer_start: int


class _Question(BaseModel):
    id: str | int
    question: str
    answers: list[_Answer]


class _Paragraph(BaseModel):
    context: str
    qas: list[_Question]
    document_id: str | int | None = None


class _Article(BaseModel):
    paragraphs: list[_Paragraph]
    title: str | None = None


class SquadFile(BaseModel):
    data: list[_Article]


COVID_QA_DESCRIPTION = "COVID-QA (deepset-ai/COVID-QA, Apache-2.0): expert questions over scientific articles; English, biomedical."
XQUAD_DESCRIPTION = (
    "XQuAD (google-deepmind/xquad, CC BY-SA 4.0): SQuAD v1.1 dev paragraphs; language: {language}."
)


def load_covid_qa(path: Path) -> EvalSet:
    """One document per article (id = `document_id`), questions labelled with it and their answer span."""
    documents, queries = [], []
    for article in read_squad(path).data:
        for paragraph in article.paragraphs:
            if paragraph.document_id is None:
                raise DatasetError(f"{path}: a COVID-QA paragraph lacks its document_id")
            document = SourceDocument(
                id=str(paragraph.document_id), title=_first_line(paragraph.context), text=paragraph.context
            )
            documents.append(document)
            queries.extend(_labelled_questions(paragraph, document, path))
    return EvalSet("COVID-QA", COVID_QA_DESCRIPTION, tuple(documents), tuple(queries))


def load_xquad(path: Path, language: str) -> EvalSet:
    """One document per paragraph (id = `Article_Title/index`), titled by the article."""
    documents, queries = [], []
    for article in read_squad(path).data:
        if not article.title:
            raise DatasetError(f"{path}: an XQuAD article lacks its title")
        title = article.title.replace("_", " ")
        for index, paragraph in enumerate(article.paragraphs):
            document = SourceDocument(id=f"{article.title}/{index}", title=title, text=paragraph.context)
            documents.append(document)
            queries.extend(_labelled_questions(paragraph, document, path))
    description = XQUAD_DESCRIPTION.format(language=language)
    return EvalSet(f"XQuAD-{language}", description, tuple(documents), tuple(queries))


def locate_answer(context: str, answer: str, stated_start: int) -> int | None:
    """Start of the verbatim occurrence of `answer` nearest to `stated_start`, None when it does not occur."""
    if not answer:
        return None
    if context.startswith(answer, stated_start):
        return stated_start
    starts = []
    found = context.find(answer)
    while found >= 0:
        starts.append(found)
        found = context.find(answer, found + 1)
    return min(starts, key=lambda start: abs(start - stated_start), default=None)


def read_squad(path: Path) -> SquadFile:
    """Any SQuAD-format file, checked: its articles, their paragraphs, their questions with answers."""
    try:
        return SquadFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except json.JSONDecodeError as error:
        raise DatasetError(f"{path}: not JSON ({error.msg}, line {error.lineno})") from error
    except ValidationError as error:
        first = error.errors()[0]
        raise DatasetError(f"{path}: not in SQuAD format: {first['msg']} at {first['loc']}") from error


def _labelled_questions(paragraph: _Paragraph, document: SourceDocument, path: Path) -> list[EvalQuery]:
    queries = []
    for question in paragraph.qas:
        spans = []
        for answer in question.answers:
            start = locate_answer(paragraph.context, answer.text, answer.answer_start)
            if start is not None:
                spans.append(AnswerSpan(document=document.id, start=start, end=start + len(answer.text)))
        try:
            query = EvalQuery(
                id=str(question.id),
                question=question.question,
                relevant_documents=(document.id,),
                answer_spans=tuple(dict.fromkeys(spans)),
            )
        except ValidationError as error:
            raise DatasetError(
                f"{path}: question {str(question.id)!r}: {error.errors()[0]['msg']}"
            ) from error
        queries.append(query)
    return queries


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")
