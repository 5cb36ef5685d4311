"""Text for scanned pages: OCRmyPDF with Tesseract's Dutch model, run from the bounded parsing child.

Only pages without a text layer that show an image are read (`--skip-text` leaves pages with text as they are).
Pages are read in batches, each batch's output the next one's input, until every page is read, the page cap is
reached or the deadline (what the file's conversion left of its budget) has passed: a long scan is read as far as
the budget goes, and the pages left are named. OCRmyPDF reads `jobs` pages at a time, one process each: every
process may take the parsing child's address space, so `jobs` bounds what one file's OCR may hold.
The OCR'd copy keeps the scan's images with an invisible text layer over them, so the viewer shows the scan and
finds the passage in that layer. Where OCRmyPDF or the language is not installed, nothing is read and the reason
says so.
"""

import shutil
import subprocess
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from ingest.tools import ToolTimeout, run_tool

OCRMYPDF = "ocrmypdf"
BATCH_PAGES = 8


@dataclass(frozen=True)
class OcrResult:
    """What OCR made of the pages asked for: the OCR'd copy (None: nothing read), the pages read and, for those
    not read, why."""

    pdf: Path | None
    read: tuple[int, ...] = ()
    unread: dict[int, str] = field(default_factory=dict)


@cache
def missing(language: str) -> str | None:
    """Why OCR cannot run here (None: it can)."""
    if shutil.which(OCRMYPDF) is None or shutil.which("tesseract") is None:
        return "OCR is niet geïnstalleerd (ocrmypdf, tesseract-ocr-nld)"
    try:
        listed = subprocess.run(
            ["tesseract", "--list-langs"], capture_output=True, text=True, timeout=30, check=False
        ).stdout.split()
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"Tesseract werkt niet: {error}"
    absent = [part for part in language.split("+") if part not in listed]
    return (
        f"de OCR-taal {'+'.join(absent)} is niet geïnstalleerd (tesseract-ocr-{absent[0]})"
        if absent
        else None
    )


def ocr_pages(
    pdf: Path,
    pages: list[int],
    *,
    scratch: Path,
    language: str,
    max_pages: int,
    jobs: int,
    deadline: float,
) -> OcrResult:
    """OCR `pages` (1-based) of `pdf` into a copy in `scratch`, at most `max_pages` of them, `jobs` at a time, until
    `deadline` (`time.monotonic()`)."""
    reason = missing(language) if max_pages > 0 else "OCR staat uit (OCR_MAX_PAGES=0)"
    if reason is not None:
        return OcrResult(None, unread=dict.fromkeys(pages, reason))
    unread = dict.fromkeys(pages[max_pages:], f"meer dan {max_pages} pagina's om te OCR'en (OCR_MAX_PAGES)")
    todo = pages[:max_pages]
    scratch.mkdir(parents=True, exist_ok=True)
    current, read = pdf, []
    for start in range(0, len(todo), BATCH_PAGES):
        batch = todo[start : start + BATCH_PAGES]
        left = deadline - time.monotonic()
        if left <= 1:
            unread |= dict.fromkeys(todo[start:], "de tijd voor OCR was op (PARSE_TIMEOUT_SECONDS)")
            break
        output = scratch / f"ocr-{start}.pdf"
        problem = _run(current, batch, output, language, jobs, left)
        if problem is not None:
            unread |= dict.fromkeys(batch, problem)
            continue
        current = output
        read += batch
    return OcrResult(current if read else None, tuple(read), unread)


def _run(
    source: Path, pages: list[int], output: Path, language: str, jobs: int, timeout: float
) -> str | None:
    arguments = [
        OCRMYPDF,
        "--language",
        language,
        "--jobs",
        str(jobs),
        "--skip-text",
        "--output-type",
        "pdf",
        "--optimize",
        "0",
        "--pages",
        ",".join(str(page) for page in pages),
        str(source),
        str(output),
    ]
    try:
        result = run_tool(arguments, timeout, output.parent)
    except ToolTimeout:
        return "de tijd voor OCR was op (PARSE_TIMEOUT_SECONDS)"
    if result.returncode != 0 or not output.is_file():
        last = result.output.strip().splitlines()[-1:] or [""]
        return f"OCR mislukt (exitcode {result.returncode}: {last[0][:200]})"
    return None
