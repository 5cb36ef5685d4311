"""From an opened PDF to the chunk records the index stores: parse, clean, title, chunk, prefix.

No database and no model here: this is the part of ingestion that is a pure function of the file, reused by
the job runner, the benchmark and evaluation corpora.
"""

from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path

from ingest.chunking import indexed_text, split_into_chunks
from ingest.document_text import DocumentText, assemble, clean_page_lines
from ingest.metadata import DocumentTags
from ingest.pdf_reader import PdfFile, UnusableFile, main_heading, open_pdf, page_texts, shows_images
from ingest.search.types import ChunkRecord
from ingest.title import clean_metadata_title, document_title

MIN_LETTERS = 20
PIPELINE_VERSION = 2
"""Raise it whenever parsing, cleaning, naming or chunking changes what a file's chunks are: a document recorded by
an older version is read again by the next job over its file instead of being skipped as unchanged.
2: running lines with an offset page number removed, titles from makers' stamps and split headings fixed."""


@dataclass(frozen=True)
class ParsedDocument:
    """A PDF's cleaned text with its page map, and what it is called."""

    sha256: str
    size_bytes: int
    path: Path
    title: str
    text: DocumentText
    pages_without_text: int
    """Pages without text that show an image: scanned, perhaps, and then not searchable."""
    metadata_title: str | None = None
    """The PDF's own title, cleaned (`clean_metadata_title`): recorded to tell when other documents share it."""
    blank_pages: int = 0
    """Pages without text and without images: empty on purpose, nothing lost."""


def parse_pdf(
    pdf: PdfFile, title: str | None = None, shared_titles: Collection[str] = frozenset()
) -> ParsedDocument:
    """Stream the pages, clean them and name the document (`title`: the sidecar's, which wins; `shared_titles`:
    metadata titles other documents carry too, which name none of them); a PDF with (almost) no text is refused."""
    pages: list[list[str]] = []
    first_page = ""
    empty: list[int] = []
    for number, raw in enumerate(page_texts(pdf), start=1):
        first_page = raw if number == 1 else first_page
        pages.append(clean_page_lines(raw))
        if not any(pages[-1]):
            empty.append(number)
    text = assemble(pages)
    if sum(character.isalpha() for character in text.text) < MIN_LETTERS:
        raise UnusableFile(_without_text(pdf))
    metadata_title = pdf.metadata_title
    heading = main_heading(pdf, first_page)
    scanned = sum(shows_images(pdf, number) for number in empty)
    title = title or document_title(metadata_title, text.text, pdf.path, heading, shared_titles)
    return ParsedDocument(
        pdf.sha256,
        pdf.size_bytes,
        pdf.path,
        title,
        text,
        scanned,
        clean_metadata_title(metadata_title),
        len(empty) - scanned,
    )


def _without_text(pdf: PdfFile) -> str:
    """Why a file without (almost) any text is refused: a scan needs OCR, a blank document holds nothing."""
    if any(shows_images(pdf, number) for number in range(1, pdf.page_count + 1)):
        return f"geen tekstlaag: {pdf.page_count} pagina's zonder leesbare tekst (gescand document? OCR is nodig)"
    return f"leeg document: {pdf.page_count} pagina's zonder tekst en zonder afbeeldingen"


def read_pdf(
    path: Path,
    max_bytes: int,
    max_pages: int,
    title: str | None,
    shared_titles: Collection[str],
    source: Path | None = None,
) -> ParsedDocument:
    """Open and parse a file, refusing one with more than `max_pages` pages before reading any page (run in a
    bounded child process by the job runner: `isolation.py`); `source`: the name the document goes by when `path`
    is a stored upload of our naming."""
    with open_pdf(path, max_bytes) as pdf:
        if pdf.page_count > max_pages:
            raise UnusableFile(f"te veel pagina's: {pdf.page_count} (maximum {max_pages})")
        return parse_pdf(replace(pdf, path=source or path), title, shared_titles)


def read_metadata_title(path: Path, max_bytes: int) -> tuple[str, str | None]:
    """A file's content hash and cleaned metadata title."""
    with open_pdf(path, max_bytes) as pdf:
        return pdf.sha256, clean_metadata_title(pdf.metadata_title)


def chunk_records(
    document: ParsedDocument,
    tags: DocumentTags,
    chunk_size: int,
    chunk_overlap: int,
    *,
    title_prefix: bool = True,
) -> list[ChunkRecord]:
    """The document's chunks as stored and searched: `Titel: {title}\\nTekst: {chunk}` plus where they are
    (`title_prefix=False` only for the evaluation that measures what the prefix is worth)."""
    return [
        ChunkRecord(
            document_id=document.sha256,
            chunk_index=chunk.index,
            text=indexed_text(document.title, chunk.text) if title_prefix else chunk.text,
            chunk=chunk.text,
            title=document.title,
            source_path=str(document.path),
            page_start=chunk.page_start,
            page_end=chunk.page_end,
            char_start=chunk.start,
            char_end=chunk.end,
            audiences=tags.audiences,
            departments=tags.departments,
        )
        for chunk in split_into_chunks(document.text, chunk_size, chunk_overlap)
    ]
