"""A page without text is reported for what it is: blank (nothing lost) or, when it shows an image, perhaps a scan
whose text is not searchable."""

from pathlib import Path

import pytest

from ingest.models import FileStatus
from ingest.ocr import missing
from ingest.pdf_reader import UnusableFile, open_pdf
from ingest.pipeline import parse_pdf
from ingest.run_job import Ingestion
from tests.ingest.conftest import KOORTS
from tests.ingest.ingest_pdfs import scanned_pdf, text_pdf


def test_a_blank_page_is_blank_and_a_page_with_only_an_image_may_be_a_scan(tmp_path: Path) -> None:
    path = text_pdf(tmp_path / "koorts.pdf", [KOORTS[0], [], [], KOORTS[1]], pictures={3, 4})

    with open_pdf(path, 10_000_000) as pdf:
        parsed = parse_pdf(pdf)

    assert (parsed.blank_pages, parsed.pages_without_text) == (1, 1)  # page 4 has text beside its image


def test_a_document_without_text_is_refused_as_blank_or_as_a_scan(tmp_path: Path) -> None:
    blank = text_pdf(tmp_path / "leeg.pdf", [[], [], []])
    scan = scanned_pdf(tmp_path / "scan.pdf")

    for path, reason in ((blank, "leeg document: 3 pagina's"), (scan, "geen tekstlaag: 2 pagina's")):
        with open_pdf(path, 10_000_000) as pdf, pytest.raises(UnusableFile, match=reason):
            parse_pdf(pdf)


def test_the_job_reports_blank_pages_as_blank(ingestion: Ingestion, tmp_path: Path) -> None:
    blank = text_pdf(tmp_path / "met-lege-pagina.pdf", [KOORTS[0], [], KOORTS[1]])
    scan = text_pdf(tmp_path / "met-scan.pdf", [KOORTS[0], [], KOORTS[2]], pictures={2})

    summary = ingestion.ingest([blank, scan])
    unreadable = missing("nld") or "OCR vond geen leesbare tekst"  # the picture holds no text

    assert {Path(file.path).name: (file.status, file.message) for file in summary.files} == {
        blank.name: (FileStatus.indexed, "1 van 3 pagina's leeg"),
        scan.name: (
            FileStatus.indexed,
            f"1 van 3 pagina's zonder tekst niet gelezen (pagina 2): {unreadable}",
        ),
    }
