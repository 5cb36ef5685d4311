"""Open a PDF defensively and stream its pages' raw text, one page at a time.

Every way a file can be unusable becomes an `UnusableFile` with a message for the admin (in Dutch, like the
rest of the admin screens), raised before any of it reaches the index. Text comes from pypdf's layout mode:
it places text by position, which repairs the reading order of browser-printed pages where link texts are
drawn after the line they belong to (plain mode moves them to the line's end).
"""

import hashlib
import logging
import math
import os
import stat
from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Self

from pypdf import PageObject, PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError, PdfReadError, PyPdfError

from ingest.hidden_text import remove_hidden_text
from ingest.split_words import rejoin_split_words
from ingest.tables import Block, pages_with_tables, read_with_tables
from modelstore import checksums

log = logging.getLogger(__name__)

_HEADER_WINDOW = 1024
_TRAILER_WINDOW = 2048
HEADING_SCALE = 1.2
HEADING_TOLERANCE = 0.5
MIN_HEADING_LETTERS = 3
_PAGE_ERRORS = (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, ZeroDivisionError)


class UnusableFile(Exception):
    """A file that cannot be ingested; `str()` is the message shown per file."""


@dataclass(frozen=True)
class PdfFile:
    """An opened, validated PDF: its content hash identifies the document."""

    path: Path
    sha256: str
    size_bytes: int
    reader: PdfReader
    handle: BinaryIO

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.handle.close()

    @property
    def page_count(self) -> int:
        return len(self.reader.pages)

    @property
    def metadata_title(self) -> str | None:
        try:
            metadata = self.reader.metadata
        except PyPdfError:
            return None
        return metadata.title if metadata is not None else None


def open_pdf(path: Path, max_bytes: int) -> PdfFile:
    """Validate cheap things first (exists, regular, size, header, trailer), then let pypdf parse."""
    handle = _open_regular_file(path)
    size = os.fstat(handle.fileno()).st_size
    if size == 0:
        handle.close()
        raise UnusableFile("leeg bestand (0 bytes)")
    if size > max_bytes:
        handle.close()
        raise UnusableFile(f"te groot: {size / 1e6:.0f} MB (maximum {max_bytes / 1e6:.0f} MB)")
    try:
        _check_pdf_envelope(handle, size)
        sha256 = _sha256(handle)
        reader = _parse(handle)
    except BaseException:
        handle.close()
        raise
    return PdfFile(path=path, sha256=sha256, size_bytes=size, reader=reader, handle=handle)


def _open_regular_file(path: Path) -> BinaryIO:
    try:
        handle = path.open("rb")
    except OSError as error:
        raise UnusableFile(f"onleesbaar bestand: {error.strerror or error}") from error
    if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
        handle.close()
        raise UnusableFile("onleesbaar bestand: geen gewoon bestand (map, apparaat of pipe)")
    return handle


def _check_pdf_envelope(handle: BinaryIO, size: int) -> None:
    """A PDF starts with `%PDF-` and ends with `%%EOF`; a truncated copy loses the latter."""
    head = handle.read(_HEADER_WINDOW)
    if b"%PDF-" not in head:
        raise UnusableFile("geen PDF-bestand (de inhoud begint niet met %PDF-), al eindigt de naam op .pdf")
    handle.seek(max(0, size - _TRAILER_WINDOW))
    if b"%%EOF" not in handle.read():
        raise UnusableFile("beschadigd of afgekapt PDF-bestand: het einde (%%EOF) ontbreekt")
    handle.seek(0)


def _sha256(handle: BinaryIO) -> str:
    digest = hashlib.file_digest(handle, "sha256").hexdigest()  # type: ignore[arg-type]  # BinaryIO reads into buffers
    handle.seek(0)
    return digest


def file_sha256(path: Path) -> str | None:
    """The sha256 of what a path holds now (None when it cannot be read): is a twin still the same content?"""
    try:
        return checksums.file_sha256(path)
    except OSError:
        return None


def _parse(handle: BinaryIO) -> PdfReader:
    try:
        reader = PdfReader(handle, strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise UnusableFile("versleuteld PDF-bestand: een wachtwoord is nodig om het te openen")
        _ = len(reader.pages)
    except (FileNotDecryptedError, DependencyError) as error:
        raise UnusableFile(f"versleuteld PDF-bestand dat niet te openen is: {error}") from error
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise UnusableFile(f"beschadigd PDF-bestand: {error}") from error
    return reader


def page_texts(pdf: PdfFile, ocr_layers: Collection[int] = frozenset()) -> Iterator[str]:
    """Each page's text in layout mode, invisible text removed but on the pages in `ocr_layers` (1-based), whose
    invisible text is the OCR layer we made; pages are read one by one, never all at once."""
    for number, page in enumerate(pdf.reader.pages, start=1):
        try:
            if number not in ocr_layers:
                remove_hidden_text(page)
            yield _layout_text(page, number)
        except _PAGE_ERRORS as error:
            raise UnusableFile(f"beschadigde pagina {number}: {error}") from error


def page_blocks(pdf: PdfFile, ocr_layers: Collection[int] = frozenset()) -> Iterator[list[Block]]:
    """Each page as `page_texts` reads it, but a page with a table as its text around the table's rows
    (`tables.py`)."""
    with_tables = pages_with_tables(pdf.handle) if pdf.page_count else set()
    for number, page in enumerate(pdf.reader.pages, start=1):
        try:
            if number not in ocr_layers:
                remove_hidden_text(page)
            if number in with_tables:
                yield [_rejoined(block, page) for block in read_with_tables(page)]
            else:
                yield [_layout_text(page, number)]
        except _PAGE_ERRORS as error:
            raise UnusableFile(f"beschadigde pagina {number}: {error}") from error


def _rejoined(block: Block, page: PageObject) -> Block:
    """Layout text around tables with its split words joined, as `_layout_text` does."""
    return rejoin_split_words(block, page.extract_text())[0] if isinstance(block, str) else block


def shows_images(pdf: PdfFile, number: int) -> bool:
    """Whether page `number` (1-based) draws an image: a page without text that does may be a scan, one that
    does not is blank. Only the images' names are listed, none is decoded."""
    try:
        return len(pdf.reader.pages[number - 1].images) > 0
    except _PAGE_ERRORS:
        return True  # unreadable image resources: say "scanned?", the cautious answer


def main_heading(pdf: PdfFile, page_text: str) -> str | None:
    """The first page's largest text, in drawing order: its main heading (None when no text stands out).

    Read after `page_texts`, so the page's invisible text is already gone. Sizes are the font size scaled by
    the text and graphics matrices (Word writes 1-point fonts in a scaled matrix). Runs are joined with spaces,
    which splits a word drawn in pieces ("202" "5" of a kerned "2025"): such words are joined again as the
    first page's extracted `page_text` reads them (`split_words.py`).
    """
    if not pdf.reader.pages:
        return None
    runs: list[tuple[float, str]] = []

    def collect(text: str, cm: list[float], tm: list[float], _font: object, size: float) -> None:
        if text.strip():
            runs.append((abs(size) * math.hypot(tm[2], tm[3]) * math.hypot(cm[2], cm[3]), text))

    try:
        pdf.reader.pages[0].extract_text(visitor_text=collect)
    except _PAGE_ERRORS:
        return None
    heading = _largest(runs)
    return rejoin_split_words(heading, page_text)[0] if heading else None


def _largest(runs: list[tuple[float, str]]) -> str | None:
    """The runs of the largest size that has words (a drop capital's size takes the next one's runs too), when
    that size is clearly above the size most characters are set in."""
    if not runs:
        return None
    characters: Counter[float] = Counter()
    for size, text in runs:
        characters[round(size, 1)] += len(text.strip())
    body = characters.most_common(1)[0][0]
    sizes = sorted(
        {size for size, text in runs if any(character.isalpha() for character in text)}, reverse=True
    )
    for largest in sizes:
        if largest < body * HEADING_SCALE:
            return None
        heading = _trimmed([text for size, text in runs if size >= largest - HEADING_TOLERANCE])
        if sum(_letters(text) for text in heading) >= MIN_HEADING_LETTERS:
            return " ".join(" ".join(text.split()) for text in heading)
    return None


def _trimmed(texts: list[str]) -> list[str]:
    """Without the runs before the first and after the last that hold no letter or digit (a big dash)."""
    worded = [index for index, text in enumerate(texts) if any(character.isalnum() for character in text)]
    return texts[worded[0] : worded[-1] + 1] if worded else []


def _letters(text: str) -> int:
    return sum(character.isalpha() for character in text)


def _layout_text(page: PageObject, number: int) -> str:
    """Layout mode is marked experimental in pypdf: a page it cannot handle falls back to plain mode, and so does
    a page where it finds nothing, since it ignores form XObjects, where some producers put a page's whole text.
    Words layout mode splits and plain mode reads whole are joined again (`split_words.py`)."""
    plain = page.extract_text()
    try:
        text = page.extract_text(extraction_mode="layout")
    except _PAGE_ERRORS as error:
        log.warning("page %d: layout extraction failed (%s); using plain extraction", number, error)
        return plain
    return rejoin_split_words(text, plain)[0] if text.strip() else plain
