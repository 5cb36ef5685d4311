"""Real files for the tests that need more than generated one-liners: a scan made by rendering a real PDF's
pages to images, a Word procedure written with python-docx (a heading, a numbered list, a table), a
password-protected copy of it (msoffcrypto-tool, as Office encrypts), and a .docx that is a zip bomb."""

import io
import zipfile
from pathlib import Path

import msoffcrypto
from docx import Document
from docx.enum.text import WD_ALIGN_PARAGRAPH, WD_BREAK
from docx.oxml.ns import qn
from docx.shared import Inches
from PIL import Image
from pypdf import PdfReader

from research.ingest_bench.conversion import scan_of

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "documents"
TABLE = [
    ["Hoe laat is het onderzoek?", "Neem de laatste dosis tussen", "Drink niets meer vanaf"],
    ["08:45-09:44", "04:45-06:45", "06:45"],
    ["09:45-10:44", "05:45-07:45", "07:45"],
]
STEPS = [
    "Controleer de identiteit van de patiënt met naam en geboortedatum.",
    "Desinfecteer de insteekplaats met alcohol 70% en laat drogen.",
    "Noteer het tijdstip van toediening in het dossier.",
]


def scanned_copy(pdf: Path, out: Path, pages: int | None = None, dpi: int = 200) -> Path:
    """The PDF's pages (the first `pages`) rendered to images and saved as an image-only PDF: a scan."""
    return scan_of(pdf, out, dpi, pages)


def image_pages(out: Path, count: int, first: Image.Image | None = None) -> Path:
    """An image-only PDF of `count` pages: `first` (if given), then blank white images with no text at all."""
    blank = Image.new("L", (400, 560), 255)
    pages = [first or blank] + [blank] * (count - 1)
    pages[0].save(out, save_all=True, append_images=pages[1:], resolution=50)
    return out


def word_procedure(out: Path) -> Path:
    """A Word procedure: title, a paragraph, a numbered list of steps and a three-column table."""
    document = Document()
    document.add_heading("Subcutane injectie bij volwassenen", level=1)
    document.add_paragraph(
        "Deze werkinstructie beschrijft hoe een verpleegkundige een subcutane injectie geeft."
    )
    document.add_heading("Werkwijze", level=2)
    for step in STEPS:
        document.add_paragraph(step, style="List Number")
    document.add_heading("Tijdschema", level=2)
    table = document.add_table(rows=len(TABLE), cols=len(TABLE[0]))
    table.style = "Table Grid"
    for row, cells in zip(table.rows, TABLE, strict=True):
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    document.add_paragraph("Bij twijfel overleg je met de apotheker van dienst.")
    document.save(str(out))
    return out


def scanned_word_file(scan: Path, out: Path) -> Path:
    """A Word file of a scan's pages, one picture a page (a scanned form pasted into Word): its conversion is a PDF
    whose pages are images to OCR."""
    document = Document()
    for number, page in enumerate(PdfReader(scan).pages):
        picture = io.BytesIO()
        page.images[0].image.save(picture, format="PNG")
        if number:
            document.add_page_break()
        document.add_picture(picture, width=Inches(6))
    document.save(str(out))
    return out


def encrypted(docx: Path, out: Path, password: str = "geheim") -> Path:
    """The Word file protected with a password, as Word does it (an OLE container with an encrypted package)."""
    with docx.open("rb") as plain:
        office = msoffcrypto.OfficeFile(plain)
        buffer = io.BytesIO()
        office.encrypt(password, buffer)  # type: ignore[attr-defined]
    out.write_bytes(buffer.getvalue())
    return out


def zip_bomb_docx(out: Path, unpacked_mb: int = 64) -> Path:
    """A .docx whose document.xml unpacks to `unpacked_mb` MB of zeros from a few dozen kB."""
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            block = b"0" * (1 << 20)
            for _ in range(unpacked_mb):
                member.write(block)
    return out


def two_column_word_file(out: Path, left: list[str], right: list[str]) -> Path:
    """A Word file laid out in two justified columns (a column break between them), as newsletters and
    guidelines are: LibreOffice turns it into a real two-column PDF."""
    document = Document()
    columns = document.sections[0]._sectPr.makeelement(qn("w:cols"), {qn("w:num"): "2", qn("w:space"): "720"})
    document.sections[0]._sectPr.append(columns)
    for index, text in enumerate([*left, *right]):
        paragraph = document.add_paragraph(text)
        paragraph.alignment = WD_ALIGN_PARAGRAPH.JUSTIFY
        if index == len(left) - 1:
            paragraph.add_run().add_break(WD_BREAK.COLUMN)
    document.save(str(out))
    return out


def contents_and_table_word_file(out: Path, chapters: list[tuple[str, str]], table: list[list[str]]) -> Path:
    """A Word report: a contents page (chapter titles, dotted leaders, page numbers), then the chapters, the
    last one with a ruled table."""
    document = Document()
    document.add_heading("Inhoudsopgave", level=1)
    for number, (title, _) in enumerate(chapters, start=2):
        document.add_paragraph(f"{title} {'.' * 60} {number}")
    for title, body in chapters:
        document.add_page_break()
        document.add_heading(title, level=1)
        document.add_paragraph(body)
    grid = document.add_table(rows=len(table), cols=len(table[0]))
    grid.style = "Table Grid"
    for row, cells in zip(grid.rows, table, strict=True):
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    document.save(str(out))
    return out


def text_box_word_file(out: Path, before: str, lines: list[str]) -> Path:
    """A Word file with a framed text box as guidelines draw them: a ruled two-column grid whose first row has an
    empty marker cell beside the first line and whose other rows are one merged cell per line, so that a table
    finder sees a grid with one filled cell a row."""
    document = Document()
    document.add_paragraph(before)
    grid = document.add_table(rows=len(lines), cols=2)
    grid.style = "Table Grid"
    grid.rows[0].cells[1].text = lines[0]
    for row, line in zip(grid.rows[1:], lines[1:], strict=True):
        row.cells[0].merge(row.cells[1]).text = line
    document.save(str(out))
    return out
