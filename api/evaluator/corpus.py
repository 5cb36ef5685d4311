"""Documents to evaluate on, cleaned exactly as ingestion cleans them: public sets (with their answer spans moved
along) and folders of PDFs (parsed by ingestion's own pipeline).

Ingestion cleans text before chunking (NFKC, joined lines, rejoined hyphenated words), and chunk offsets refer to
the cleaned text, so an answer span given in the source's offsets must be found again in the cleaned text. The
answer is cleaned the same way and matched ignoring whitespace (line joins change only whitespace, and hyphen
rejoining happens identically on both sides); of several matches the one at the same relative position wins.
"""

from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from api.evaluator.datasets import EvalSet, SourceDocument
from api.evaluator.queries import AnswerSpan, EvalQuery
from ingest.cleaning import clean_line, join_lines
from ingest.document_text import DocumentText, single_page
from ingest.metadata import DocumentTags, document_tags
from ingest.pdf_reader import UnusableFile, open_pdf
from ingest.pipeline import ParsedDocument, parse_pdf


@dataclass(frozen=True)
class CleanedDocument:
    """A source document next to what ingestion made of it (cleaned text, title, tags), which is exactly what
    ingestion's `chunk_records` chunks and indexes. A public set's document has no file: its path is its id."""

    source: SourceDocument
    parsed: ParsedDocument
    tags: DocumentTags = field(default_factory=DocumentTags)

    @property
    def text(self) -> DocumentText:
        return self.parsed.text


def _from_text(document: SourceDocument) -> CleanedDocument:
    text = single_page(document.text)
    parsed = ParsedDocument(
        sha256=document.id,
        size_bytes=len(document.text.encode()),
        path=Path(document.file_name or document.id),
        title=document.title,
        text=text,
        pages_without_text=0,
    )
    return CleanedDocument(document, parsed)


@dataclass(frozen=True)
class CleanedSet:
    documents: tuple[CleanedDocument, ...]
    queries: tuple[EvalQuery, ...]
    lost_spans: int


class WhitespaceFreeView:
    """A text with its whitespace removed, remembering where each remaining character came from."""

    def __init__(self, text: str) -> None:
        self._positions = [index for index, character in enumerate(text) if not character.isspace()]
        self._squeezed = "".join(text[index] for index in self._positions)

    def find(self, needle: str, near: float) -> tuple[int, int] | None:
        """The range of the original text equal to `needle` but for whitespace, nearest to offset `near`."""
        target = "".join(needle.split())
        if not target:
            return None
        matches = []
        found = self._squeezed.find(target)
        while found >= 0:
            matches.append((self._positions[found], self._positions[found + len(target) - 1] + 1))
            found = self._squeezed.find(target, found + 1)
        return min(matches, key=lambda match: abs(match[0] - near), default=None)


def clean_set(eval_set: EvalSet) -> CleanedSet:
    """Clean every document and move every answer span; a span that cannot be found again is dropped, counted."""
    documents = {document.id: _from_text(document) for document in eval_set.documents}
    views = {
        document_id: WhitespaceFreeView(document.text.text) for document_id, document in documents.items()
    }
    queries, lost = [], 0
    for query in eval_set.queries:
        spans = [
            _moved_span(span, documents[span.document], views[span.document]) for span in query.answer_spans
        ]
        kept = tuple(span for span in spans if span is not None)
        lost += len(spans) - len(kept)
        queries.append(query.model_copy(update={"answer_spans": kept}))
    return CleanedSet(tuple(documents.values()), tuple(queries), lost)


def clean_passage(passage: str) -> str:
    """A passage cleaned line by line as its document was (not as a page: a bare number would pass for a page
    number and vanish)."""
    return join_lines(clean_line(line) for line in passage.split("\n"))


def _moved_span(span: AnswerSpan, document: CleanedDocument, view: WhitespaceFreeView) -> AnswerSpan | None:
    answer = clean_passage(document.source.text[span.start : span.end])
    expected = span.start * len(document.text.text) / max(1, len(document.source.text))
    located = view.find(answer, expected)
    return None if located is None else AnswerSpan(document=span.document, start=located[0], end=located[1])


@dataclass(frozen=True)
class PdfFolder:
    """A folder of PDFs parsed as ingestion parses them; files it could not use are listed with the reason."""

    documents: tuple[CleanedDocument, ...]
    failures: tuple[str, ...]


def read_pdf_folder(folder: Path, max_bytes: int) -> PdfFolder:
    """Every `*.pdf` below `folder` with its tags (sidecar or sub-folder, as ingestion finds them); a copy of a
    document already read keeps its own file name for resolving."""
    if not folder.is_dir():
        raise FileNotFoundError(f"no such folder of documents: {folder}")
    documents: list[CleanedDocument] = []
    failures = []
    for path in tqdm(sorted(folder.rglob("*.pdf")), desc="parsing", unit="file", dynamic_ncols=True):
        try:
            tags = document_tags(path, folder)
            with open_pdf(path, max_bytes) as pdf:
                parsed = parse_pdf(pdf, tags.title)
        except UnusableFile as error:
            failures.append(f"{path.relative_to(folder)}: {error}")
            continue
        source = SourceDocument(
            id=parsed.sha256, title=parsed.title, text=parsed.text.text, file_name=path.name
        )
        documents.append(CleanedDocument(source, parsed, tags))
    return PdfFolder(tuple(documents), tuple(failures))
