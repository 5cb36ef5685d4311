"""`python -m research.ingest_bench.conversion --scan PDF… --word FILE…`: OCR accuracy and speed, Word conversion speed.

OCR: each digital PDF is printed to images (its pages rendered at `--dpi`, saved as an image-only PDF: a scan
without a text layer), the scan is read as ingestion reads it (`read_pdf`: OCRmyPDF, Tesseract `nld`, then the
OCR'd copy parsed and cleaned; seconds per page are all of that), and the OCR'd text is
compared with the digital PDF's own cleaned text, page by page, after both are reduced to lower-case letters and
digits separated by single spaces. Character accuracy is the share of the digital text's characters that the OCR'd
text has in the same order (difflib's matching blocks): 1 − (missed + wrong) / reference, near 1 − CER.
Conversion: each Word or OpenDocument file is converted to PDF with LibreOffice as ingestion does it, timed cold
(a fresh profile, as every conversion has).
"""

import argparse
import difflib
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import pdfplumber

from ingest.conversion import convert_to_pdf
from ingest.formats import kind_of
from ingest.pdf_reader import open_pdf
from ingest.pipeline import Reading, parse_pdf, read_pdf
from research.ingest_bench.common import command, machine, replace_section

SECTION = "## Scanned PDFs (OCR) and Word files (conversion)"
_NOT_TEXT = re.compile(r"[\W_]+")


def _normalised(text: str) -> str:
    return _NOT_TEXT.sub(" ", text.lower()).strip()


def accuracy(reference: str, ocr: str) -> float:
    """The share of the reference's characters the OCR'd text has in the same order."""
    want, got = _normalised(reference), _normalised(ocr)
    if not want:
        return 1.0
    matcher = difflib.SequenceMatcher(None, want, got, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks()) / len(want)


def scan_of(pdf: Path, out: Path, dpi: int = 200, pages: int | None = None) -> Path:
    """The PDF's pages (the first `pages`) rendered to grey images and saved as an image-only PDF: a scan."""
    with pdfplumber.open(pdf) as document:
        chosen = document.pages if pages is None else document.pages[:pages]
        images = [page.to_image(resolution=dpi).original.convert("L") for page in chosen]
    images[0].save(out, save_all=True, append_images=images[1:], resolution=dpi)
    return out


def measure_ocr(pdf: Path, dpi: int, scratch: Path) -> tuple[int, float, float]:
    """Pages, seconds per page and character accuracy of OCR on a scan of `pdf`."""
    with open_pdf(pdf, 1 << 40) as digital:
        reference = parse_pdf(digital).text
    scan = scan_of(pdf, scratch / f"{pdf.stem}-scan.pdf", dpi)
    pages = reference.page_count
    start = time.perf_counter()
    parsed = read_pdf(
        scan, 1 << 40, 100_000, None, frozenset(), None, Reading(scratch / pdf.stem, "nld", pages, 3600)
    )
    seconds = time.perf_counter() - start
    if parsed.ocr_pages != pages:
        print(f"  {pdf.name}: {pages - parsed.ocr_pages} pages not read: {parsed.unread}")
    return pages, seconds / pages, accuracy(reference.text, parsed.text.text)


def measure_conversion(path: Path, scratch: Path) -> tuple[float, int]:
    kind = kind_of(path)
    if kind is None or not kind.needs_conversion:
        raise SystemExit(f"{path} is not a Word or OpenDocument file")
    start = time.perf_counter()
    converted = convert_to_pdf(path, kind, scratch / path.stem, 600)
    seconds = time.perf_counter() - start
    with open_pdf(converted, 1 << 40) as pdf:
        return seconds, pdf.page_count


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m research.ingest_bench.conversion", description=__doc__)
    parser.add_argument(
        "--scan", type=Path, action="append", default=[], help="a digital PDF to print and OCR"
    )
    parser.add_argument("--word", type=Path, action="append", default=[], help="a .docx/.doc/.odt to convert")
    parser.add_argument("--dpi", type=int, default=200)
    parser.add_argument("--markdown", type=Path)
    arguments = parser.parse_args(argv)
    lines = [
        SECTION,
        "",
        f"`{command('research.ingest_bench.conversion', argv)}` on {machine()}; Dutch documents.",
        "",
        f"OCR (OCRmyPDF 14 + Tesseract 5 `nld`, one job at a time) of digital PDFs printed to {arguments.dpi} dpi "
        "images; accuracy: the share of the digital text's characters (letters and digits, lower case) that the "
        "OCR'd text has in the same order.",
        "",
        "| PDF | pages | seconds per page | character accuracy |",
        "|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        for pdf in arguments.scan:
            pages, per_page, score = measure_ocr(pdf, arguments.dpi, scratch)
            print(f"OCR {pdf.name}: {pages} pages, {per_page:.1f} s/page, accuracy {score:.3f}")
            lines.append(f"| {pdf.name} | {pages} | {per_page:.1f} | {score:.1%} |")
        lines += [
            "",
            "Conversion with LibreOffice 7.4 headless (a fresh profile each time, as in ingestion):",
            "",
        ]
        lines += ["| file | size | pages | seconds |", "|---|---|---|---|"]
        for path in arguments.word:
            seconds, pages = measure_conversion(path, scratch)
            print(f"convert {path.name}: {seconds:.1f} s, {pages} pages")
            lines.append(f"| {path.name} | {path.stat().st_size / 1e3:.0f} kB | {pages} | {seconds:.1f} |")
    if arguments.markdown:
        replace_section(arguments.markdown, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
