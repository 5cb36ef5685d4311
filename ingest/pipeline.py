"""From a file to the chunk records the index stores: convert, OCR, parse, clean, title, chunk, prefix.

No database and no model here: this is the part of ingestion that is a pure function of the file, reused by
the job runner, the benchmark and evaluation corpora. A Word or OpenDocument file is converted to PDF first
(`conversion.py`); pages of a PDF that have no text but show an image are OCR'd (`ocr.py`) when the caller
gives the room for it (`Reading`), and then read from the OCR'd copy, whose invisible text layer is OCR's own
(elsewhere, invisible text is removed as hidden text). The converted or OCR'd PDF is what the viewer shows.
"""

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from ingest.chunking import split_into_chunks
from ingest.conversion import convert_to_pdf
from ingest.document_text import DocumentText, assemble, clean_page_blocks
from ingest.formats import ACCEPTED, Kind, kind_of
from ingest.metadata import DocumentTags
from ingest.ocr import OcrResult, ocr_pages
from ingest.pdf_reader import (
    PdfFile,
    UnusableFile,
    file_sha256,
    main_heading,
    open_pdf,
    page_blocks,
    shows_images,
)
from ingest.search.types import ChunkRecord
from ingest.text_format import indexed_text
from ingest.title import clean_metadata_title, document_title

MIN_LETTERS = 20
PIPELINE_VERSION = 5
"""Raise it whenever parsing, cleaning, naming or chunking changes what a file's chunks are: a document recorded by
an older version is read again by the next job over its file instead of being skipped as unchanged.
2: running lines with an offset page number removed, titles from makers' stamps and split headings fixed.
3: scanned pages OCR'd; words split by layout gaps and line-end hyphens read as on the page; tables as rows;
table-of-contents lines left out; letter-spaced and foreign metadata titles replaced.
4: a list's lead-in kept in one chunk with its items.
5: a heading kept in one chunk with the list under it."""
NOT_OCRD = "gescand? niet doorzoekbaar"
Ocr = Callable[[list[int]], OcrResult]


@dataclass(frozen=True)
class Reading:
    """Room for converting and OCR'ing one file: a scratch folder (the caller removes it), the OCR language, how
    many pages OCR may read, how many at a time, and the seconds conversion and OCR may take together."""

    scratch: Path
    ocr_language: str = "nld"
    ocr_max_pages: int = 100
    budget_seconds: float = 300.0
    ocr_jobs: int = 1


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
    view_pdf: Path | None = None
    """The PDF the viewer shows when it is not the file itself: the conversion of a Word file, the OCR'd copy of
    a scan (in the caller's scratch folder)."""
    ocr_pages: int = 0
    """Pages whose text OCR read."""
    unread: dict[int, str] = field(default_factory=dict)
    """Pages without text that show an image and were not read, each with the reason."""


@dataclass(frozen=True)
class _Pages:
    """A PDF's pages as cleaned lines, the first page's raw text and the pages without any text."""

    lines: list[list[str]]
    first_page: str
    empty: list[int]


def _read_pages(pdf: PdfFile, ocr_layers: Collection[int] = frozenset()) -> _Pages:
    lines: list[list[str]] = []
    first_page = ""
    empty: list[int] = []
    for number, blocks in enumerate(page_blocks(pdf, ocr_layers), start=1):
        first_page = (
            "\n".join(block for block in blocks if isinstance(block, str)) if number == 1 else first_page
        )
        lines.append(clean_page_blocks(blocks))
        if not any(lines[-1]):
            empty.append(number)
    return _Pages(lines, first_page, empty)


def parse_pdf(
    pdf: PdfFile,
    title: str | None = None,
    shared_titles: Collection[str] = frozenset(),
    ocr: Ocr | None = None,
) -> ParsedDocument:
    """Stream the pages, clean them and name the document (`title`: the sidecar's, which wins; `shared_titles`:
    metadata titles other documents carry too, which name none of them); pages without text that show an image
    are read by `ocr` when given; a PDF with (almost) no text is refused."""
    pages = _read_pages(pdf)
    scanned = [number for number in pages.empty if shows_images(pdf, number)]
    blank = len(pages.empty) - len(scanned)
    unread = dict.fromkeys(scanned, NOT_OCRD)
    view_pdf, ocr_read = None, 0
    if scanned and ocr is not None:
        result = ocr(scanned)
        unread = dict(result.unread)
        if result.pdf is not None:
            with open_pdf(result.pdf, 1 << 62) as ocr_copy:
                pages = _read_pages(ocr_copy, result.read)
            unseen = [number for number in result.read if number in pages.empty]
            unread |= dict.fromkeys(unseen, "OCR vond geen leesbare tekst")
            view_pdf, ocr_read = result.pdf, len(result.read) - len(unseen)
    text = assemble(pages.lines)
    if sum(character.isalpha() for character in text.text) < MIN_LETTERS:
        raise UnusableFile(_without_text(pdf, unread))
    metadata_title = pdf.metadata_title
    heading = main_heading(pdf, pages.first_page)
    title = title or document_title(metadata_title, text.text, pdf.path, heading, shared_titles)
    return ParsedDocument(
        pdf.sha256,
        pdf.size_bytes,
        pdf.path,
        title,
        text,
        len(unread),
        clean_metadata_title(metadata_title),
        blank,
        view_pdf,
        ocr_read,
        unread,
    )


def _without_text(pdf: PdfFile, unread: dict[int, str]) -> str:
    """Why a file without (almost) any text is refused: a scan OCR could not read, a blank document."""
    if unread:
        reasons = "; ".join(sorted(set(unread.values())))
        return f"geen tekstlaag: {pdf.page_count} pagina's zonder leesbare tekst ({reasons})"
    return f"leeg document: {pdf.page_count} pagina's zonder tekst en zonder afbeeldingen"


def read_pdf(
    path: Path,
    max_bytes: int,
    max_pages: int,
    title: str | None,
    shared_titles: Collection[str],
    source: Path | None = None,
    reading: Reading | None = None,
) -> ParsedDocument:
    """Open and parse a file (a PDF, or a Word or OpenDocument file converted to one), refusing one with more
    than `max_pages` pages before reading any page (run in a bounded child process by the job runner:
    `isolation.py`); `source`: the name the document goes by when `path` is a stored upload of our naming;
    `reading`: room to convert and OCR (None: neither, scanned pages stay unread); OCR gets what conversion left
    of its budget."""
    deadline = time.monotonic() + (reading.budget_seconds if reading is not None else 0.0)
    name = source or path
    kind = kind_of(path, name.name)
    if kind is None and name.suffix.lower() != Kind.pdf.suffix:
        raise UnusableFile(f"geen {ACCEPTED}")
    pdf_path, converted = path, None
    if kind is not None and kind.needs_conversion:
        if reading is None:
            raise UnusableFile(f"een {kind.value}-bestand moet eerst naar PDF worden omgezet")
        _check_size(path, max_bytes)
        converted = convert_to_pdf(path, kind, reading.scratch / "convert", deadline - time.monotonic())
        pdf_path = converted
    ocr = None
    if reading is not None:
        ocr = partial(
            ocr_pages,
            pdf_path,
            scratch=reading.scratch,
            language=reading.ocr_language,
            max_pages=reading.ocr_max_pages,
            jobs=reading.ocr_jobs,
            deadline=deadline,
        )
    with open_pdf(pdf_path, max_bytes) as pdf:
        if pdf.page_count > max_pages:
            raise UnusableFile(f"te veel pagina's: {pdf.page_count} (maximum {max_pages})")
        if converted is not None:
            pdf = replace(pdf, sha256=file_sha256(path) or pdf.sha256, size_bytes=path.stat().st_size)
        parsed = parse_pdf(replace(pdf, path=name), title, shared_titles, ocr)
    return replace(parsed, view_pdf=parsed.view_pdf or converted)


def _check_size(path: Path, max_bytes: int) -> None:
    size = path.stat().st_size
    if size > max_bytes:
        raise UnusableFile(f"te groot: {size / 1e6:.0f} MB (maximum {max_bytes / 1e6:.0f} MB)")


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
