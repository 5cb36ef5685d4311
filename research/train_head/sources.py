"""Training text sources: plain documents (text files, PDFs) and RAG prompts, and the held-out split.

Documents are read as plain text (pypdf for PDFs); a RAG prompt is a rendered request (`research.rendered_requests`):
a question with its retrieved chunks in the product's template, whose answer the target itself writes later.
"""

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from pypdf import PdfReader
from pypdf.errors import PyPdfError

from api.evaluator.datasets import DatasetError, read_squad
from research.rendered_requests import RagPrompt, RagPromptError, read_rag_prompts

TEXT_SUFFIXES = frozenset({".txt", ".md"})


class SourceError(ValueError):
    """A training source cannot be read; the message names the file and what was expected."""


@dataclass(frozen=True)
class Document:
    """Plain text to teacher-force as is; `source_id` names it in the shard manifest (resume key)."""

    source_id: str
    text: str


def read_documents(paths: Sequence[Path]) -> list[Document]:
    """The text of every PDF or text file in `paths` (folders are searched recursively, in name order)."""
    files = sorted(file for path in paths for file in _files(path))
    documents = [Document(f"doc:{file}", _read_text(file)) for file in files]
    return [document for document in documents if document.text.strip()]


def read_squad_contexts(path: Path, limit: int | None = None) -> list[Document]:
    """The paragraphs of a SQuAD-format file (COVID-QA, XQuAD) as plain documents."""
    try:
        squad = read_squad(path)
    except (OSError, DatasetError) as error:
        raise SourceError(f"{path}: expected a SQuAD-format JSON file: {error}") from error
    contexts = [paragraph.context for article in squad.data for paragraph in article.paragraphs]
    return [Document(f"squad:{path}:{index}", text) for index, text in enumerate(contexts[:limit])]


def read_all_rag_prompts(paths: Sequence[Path]) -> list[RagPrompt]:
    """The prompts of every file in order, each id made `rag:PATH:ID`. A prompt's id keys its saved answer and the resume, so an id that
    appears twice (a file given twice, or two files concatenated) is refused: the second prompt would silently
    get the first one's answer."""
    try:
        prompts = [
            replace(prompt, id=f"rag:{path}:{prompt.id}")
            for path in paths
            for prompt in read_rag_prompts(path)
        ]
    except RagPromptError as error:
        raise SourceError(str(error)) from None
    seen: set[str] = set()
    for prompt in prompts:
        if prompt.id in seen:
            raise SourceError(
                f"{prompt.id}: this prompt id appears twice; give every prompt its own id "
                "(pass several files with --rag instead of concatenating them)"
            )
        seen.add(prompt.id)
    return prompts


def split_held_out(prompts: list[RagPrompt], count: int) -> tuple[list[RagPrompt], list[RagPrompt]]:
    """(held out, training): the first `count` prompts are held out, before anything is extracted."""
    if not 0 <= count <= len(prompts):
        raise SourceError(f"cannot hold out {count} of {len(prompts)} RAG prompts")
    return prompts[:count], prompts[count:]


def write_held_out(prompts: Sequence[RagPrompt], path: Path) -> None:
    """The held-out records in the input's own format, ready for `python -m research.engine_bench --prompts rag:FILE`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(prompt.record, ensure_ascii=False) for prompt in prompts]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _files(path: Path) -> Iterator[Path]:
    if path.is_dir():
        yield from (file for file in path.rglob("*") if _is_document(file))
    elif _is_document(path):
        yield path
    else:
        raise SourceError(f"{path}: not a PDF, text file or folder of them")


def _is_document(path: Path) -> bool:
    return path.is_file() and (path.suffix.lower() == ".pdf" or path.suffix.lower() in TEXT_SUFFIXES)


def _read_text(path: Path) -> str:
    try:
        if path.suffix.lower() == ".pdf":
            return "\n".join(page.extract_text() or "" for page in PdfReader(path).pages)
        return path.read_text(encoding="utf-8")
    except (OSError, ValueError, PyPdfError) as error:
        raise SourceError(f"cannot read {path}: {error}") from error
