"""Every real document in: a scanned procedure is OCR'd (Dutch) and its passages found on the scan; a Word file is
converted with LibreOffice and its converted PDF is what the viewer shows; what cannot be read is named, in
Dutch, and the rest of the job is indexed."""

import difflib
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from ingest.documents import document_by_id
from ingest.models import FileStatus
from ingest.ocr import missing
from ingest.pdf_reader import open_pdf
from ingest.pipeline import parse_pdf
from ingest.run_job import Ingestion
from ingest.search.embedded import EmbeddedIndex
from ingest.settings import IngestSettings
from tests.ingest.conftest import KOORTS
from tests.ingest.ingest_pdfs import text_pdf
from tests.ingest.real_files import (
    SAMPLES,
    STEPS,
    encrypted,
    image_pages,
    scanned_copy,
    word_procedure,
    zip_bomb_docx,
)

needs_ocr = pytest.mark.skipif(
    missing("nld") is not None, reason=f"{missing('nld')}: `make system-packages` installs it"
)
needs_libreoffice = pytest.mark.skipif(
    shutil.which("soffice") is None, reason="LibreOffice is not installed: `make system-packages` installs it"
)


def _letters(text: str) -> str:
    return re.sub(r"\W+", " ", text).strip().lower()


def _indexed_text(index: EmbeddedIndex, document_id: str) -> str:
    """The document's cleaned text as its chunks (which overlap) hold it."""
    text: dict[int, str] = {}
    for chunk in index.chunks(document_id):
        text |= {chunk.char_start + offset: character for offset, character in enumerate(chunk.chunk)}
    return "".join(text[offset] for offset in sorted(text))


def _outcomes(summary_files: object) -> dict[str, tuple[FileStatus, str | None]]:
    return {Path(file.path).name: (file.status, file.message) for file in summary_files}  # type: ignore[attr-defined]


@needs_ocr
def test_a_scanned_procedure_is_ocrd_and_reads_as_the_digital_original(
    ingestion: Ingestion, ingest_settings: IngestSettings, index: EmbeddedIndex, tmp_path: Path
) -> None:
    original = SAMPLES / "bloedafname.pdf"
    scan = scanned_copy(original, tmp_path / "bloedafname-gescand.pdf", pages=1)

    summary = ingestion.ingest([scan])

    (file,) = summary.files
    assert (file.status, file.message) == (FileStatus.indexed, "1 van 1 pagina's gescand en met OCR gelezen")
    with open_pdf(original, 10_000_000) as pdf:
        digital = parse_pdf(pdf).text.page_text(1)
    ocrd = _indexed_text(index, str(file.document_id))
    accuracy = difflib.SequenceMatcher(None, _letters(digital), _letters(ocrd), autojunk=False).ratio()
    assert accuracy >= 0.95, (accuracy, ocrd[:300])
    document = document_by_id(ingest_settings.database_url, str(file.document_id))
    assert document is not None
    shown = PdfReader(Path(str(document.view_path)))
    assert shown.pages[0].images, "the viewer shows the scan itself"
    assert "bloedafname" in shown.pages[0].extract_text().lower(), "with the OCR text layer over it"


@needs_libreoffice
def test_a_word_procedure_is_converted_and_the_viewer_shows_the_conversion(
    ingestion: Ingestion, ingest_settings: IngestSettings, index: EmbeddedIndex, tmp_path: Path
) -> None:
    word = word_procedure(tmp_path / "subcutane injectie.docx")

    summary = ingestion.ingest([tmp_path])

    (file,) = summary.files
    assert (file.status, file.message) == (FileStatus.indexed, None)
    document = document_by_id(ingest_settings.database_url, str(file.document_id))
    assert document is not None
    assert document.title == "Subcutane injectie bij volwassenen"
    assert document.stored_file == str(word)
    assert PdfReader(Path(str(document.view_path))).pages[0].extract_text().startswith("Subcutane injectie")
    text = _indexed_text(index, document.id)
    for number, step in enumerate(STEPS, start=1):
        assert f"{number}. {step}" in text


@needs_ocr
@needs_libreoffice
def test_what_cannot_be_read_is_named_and_the_rest_of_the_job_is_indexed(
    ingestion: Ingestion, tmp_path: Path
) -> None:
    word = word_procedure(tmp_path / "procedure.docx")
    locked = encrypted(word, tmp_path / "beveiligd.docx")
    bomb = zip_bomb_docx(tmp_path / "bom.docx")
    unreadable = tmp_path / "oud.doc"
    unreadable.write_bytes(bytes.fromhex("d0cf11e0a1b11ae1") + b"\x00" * 4000)
    empty_scan = image_pages(tmp_path / "lege-scan.pdf", 2)
    no_extension = tmp_path / "bloedafname"
    no_extension.write_bytes((SAMPLES / "bloedafname.pdf").read_bytes())

    summary = ingestion.ingest([word, locked, bomb, unreadable, empty_scan, no_extension])

    outcomes = _outcomes(summary.files)
    assert outcomes["procedure.docx"] == (FileStatus.indexed, None)
    assert outcomes["bloedafname"] == (FileStatus.indexed, None)
    assert outcomes["beveiligd.docx"] == (
        FileStatus.failed,
        "met een wachtwoord beveiligd Word-bestand: sla het zonder wachtwoord op en upload het opnieuw",
    )
    assert outcomes["bom.docx"][0] == FileStatus.failed
    assert "(een zip-bom?): niet geopend" in str(outcomes["bom.docx"][1])
    assert outcomes["oud.doc"][0] == FileStatus.failed
    assert "LibreOffice kan dit doc-bestand niet lezen" in str(outcomes["oud.doc"][1])
    assert outcomes["lege-scan.pdf"] == (
        FileStatus.failed,
        "geen tekstlaag: 2 pagina's zonder leesbare tekst (OCR vond geen leesbare tekst)",
    )


@needs_ocr
def test_a_long_scan_is_read_as_far_as_ocr_may_go_and_the_pages_left_are_named(
    ingest_settings: IngestSettings, index: EmbeddedIndex, minilm: object, tmp_path: Path
) -> None:
    first = scanned_copy(SAMPLES / "handhygiene.pdf", tmp_path / "eerste.pdf", pages=1)
    page = PdfReader(first).pages[0].images[0].image
    long_scan = image_pages(tmp_path / "archief-300.pdf", 300, first=page)
    settings = ingest_settings.model_copy(update={"ocr_max_pages": 1})

    summary = Ingestion(settings, index, lambda: minilm).ingest([long_scan])  # type: ignore[arg-type,return-value]

    (file,) = summary.files
    assert file.status == FileStatus.indexed
    assert file.message == (
        "1 van 300 pagina's gescand en met OCR gelezen; 299 van 300 pagina's zonder tekst niet gelezen "
        "(pagina 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 en 289 meer): meer dan 1 pagina's om te OCR'en (OCR_MAX_PAGES)"
    )


def test_without_the_ocr_language_the_scan_is_indexed_as_far_as_it_has_text_and_the_admin_told_why(
    ingest_settings: IngestSettings, index: EmbeddedIndex, minilm: object, tmp_path: Path
) -> None:
    with_scan = text_pdf(tmp_path / "met-scan.pdf", [KOORTS[0], [], KOORTS[1]], pictures={2})
    settings = ingest_settings.model_copy(update={"ocr_language": "xyz"})

    summary = Ingestion(settings, index, lambda: minilm).ingest([with_scan])  # type: ignore[arg-type,return-value]

    (file,) = summary.files
    assert (file.status, file.message) == (
        FileStatus.indexed,
        "1 van 3 pagina's zonder tekst niet gelezen (pagina 2): " + str(missing("xyz")),
    )
    assert str(missing("xyz")).startswith(
        ("de OCR-taal xyz is niet geïnstalleerd", "OCR is niet geïnstalleerd")
    )


@needs_libreoffice
def test_an_opendocument_procedure_is_converted_too(
    ingestion: Ingestion, index: EmbeddedIndex, tmp_path: Path
) -> None:
    (tmp_path / "bron").mkdir()
    word = word_procedure(tmp_path / "bron" / "procedure.docx")
    subprocess.run(  # LibreOffice writes the .odt, as an office that keeps OpenDocument would
        [
            "soffice",
            f"-env:UserInstallation={(tmp_path / 'profiel').as_uri()}",
            "--headless",
            "--convert-to",
            "odt",
            "--outdir",
            str(tmp_path / "odt"),
            str(word),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )

    summary = ingestion.ingest([tmp_path / "odt"])

    (file,) = summary.files
    assert (Path(file.path).name, file.status, file.message) == ("procedure.odt", FileStatus.indexed, None)
    assert f"1. {STEPS[0]}" in _indexed_text(index, str(file.document_id))
