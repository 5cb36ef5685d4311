"""Real PDFs for the ingestion tests, written with reportlab into temporary folders.

Each helper draws text the way real documents do (running headers and footers, wrapped lines, two columns,
invisible OCR-style text, link text drawn after its line) so the tests exercise pypdf on actual files.
"""

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from PIL import Image
from reportlab.lib.pagesizes import A4
from reportlab.lib.pdfencrypt import StandardEncryption
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

WIDTH, HEIGHT = A4
LEFT = 72
LINE = 15


def _canvas(path: Path, title: str | None, encrypt: StandardEncryption | None = None) -> Canvas:
    canvas = Canvas(str(path), pagesize=A4, invariant=1, encrypt=encrypt)
    if title is not None:
        canvas.setTitle(title)
    return canvas


def text_pdf(
    path: Path,
    pages: Sequence[Sequence[str]],
    *,
    title: str | None = None,
    header: str | None = None,
    footer: str | None = None,
    user_password: str | None = None,
    numbered_from: int = 1,
    pictures: Collection[int] = (),
) -> Path:
    """Lines of text per page; a header on top and `footer` (with `{page}`/`{pages}`) at the bottom of each, the
    first page printed as page `numbered_from` (a chapter of a longer report); the pages numbered in `pictures`
    show a photo (what a scan is), so a page without lines there is a scan, elsewhere a blank page."""
    encrypt = StandardEncryption(user_password, canPrint=1) if user_password is not None else None
    canvas = _canvas(path, title, encrypt)
    for number, lines in enumerate(pages, start=1):
        if header:
            canvas.setFont("Helvetica", 8)
            canvas.drawString(LEFT, HEIGHT - 40, header)
        canvas.setFont("Helvetica", 11)
        y = HEIGHT - 80
        for line in lines:
            canvas.drawString(LEFT, y, line)
            y -= LINE
        if footer:
            canvas.setFont("Helvetica", 8)
            printed = number + numbered_from - 1
            canvas.drawString(LEFT, 30, footer.format(page=printed, pages=len(pages) + numbered_from - 1))
        if number in pictures:
            canvas.drawImage(ImageReader(_photo()), LEFT, HEIGHT / 2, width=200, height=150)
        canvas.showPage()
    canvas.save()
    return path


def _photo() -> Image.Image:
    """A small grey-scale image with some structure, as a scanned page is."""
    return Image.linear_gradient("L").resize((64, 48))


def scanned_pdf(path: Path, pages: int = 2) -> Path:
    """Pages with an image and drawn shapes but no text, as a scan without a text layer looks to an extractor."""
    canvas = _canvas(path, "Gescand protocol")
    for page in range(pages):
        canvas.drawImage(ImageReader(_photo()), LEFT, 60, width=200, height=150)
        for row in range(30):
            canvas.rect(LEFT, HEIGHT - 100 - row * 20, 300 + (row * 37 + page * 11) % 150, 8, fill=1)
        canvas.showPage()
    canvas.save()
    return path


def slide_pdf(path: Path, metadata_title: str | None, heading: Sequence[str], body: Sequence[str]) -> Path:
    """A presentation or form export: a large heading drawn in pieces, each where the previous one ends (as a
    kerned "202" "5" is), above body text."""
    canvas = _canvas(path, metadata_title)
    x = LEFT
    canvas.setFont("Helvetica-Bold", 24)
    for piece in heading:
        canvas.drawString(x, HEIGHT - 80, piece)
        x += canvas.stringWidth(piece, "Helvetica-Bold", 24)
    canvas.setFont("Helvetica", 11)
    for number, line in enumerate(body):
        canvas.drawString(LEFT, HEIGHT - 130 - number * LINE, line)
    canvas.showPage()
    canvas.save()
    return path


def two_column_pdf(path: Path, heading: str, left: Sequence[str], right: Sequence[str]) -> Path:
    """A full-width heading above two columns of prose, as in a newsletter-style procedure."""
    canvas = _canvas(path, heading)
    canvas.setFont("Helvetica-Bold", 12)
    canvas.drawString(LEFT, HEIGHT - 60, heading)
    canvas.setFont("Helvetica", 9)
    for column_x, lines in ((LEFT, left), (WIDTH / 2 + 10, right)):
        y = HEIGHT - 90
        for line in lines:
            canvas.drawString(column_x, y, line)
            y -= 12
    canvas.showPage()
    canvas.save()
    return path


def hidden_text_pdf(path: Path, visible: Sequence[str], invisible: str, white: str) -> Path:
    """Visible lines plus text in render mode 3 (invisible, like an OCR layer) and white-on-white text."""
    canvas = _canvas(path, "Verborgen tekst")
    canvas.setFont("Helvetica", 11)
    y = HEIGHT - 80
    canvas.drawString(LEFT, y, visible[0])
    hidden = canvas.beginText(LEFT, y - LINE)
    hidden.setTextRenderMode(3)
    hidden.textLine(invisible)
    hidden.setTextRenderMode(0)
    canvas.drawText(hidden)
    canvas.setFillColorRGB(1, 1, 1)
    canvas.drawString(LEFT, y - 2 * LINE, white)
    canvas.setFillColorRGB(0, 0, 0)
    for offset, line in enumerate(visible[1:], start=3):
        canvas.drawString(LEFT, y - offset * LINE, line)
    canvas.showPage()
    canvas.save()
    return path


def displaced_link_pdf(path: Path, before: str, link: str, after: str) -> Path:
    """A sentence whose link text is drawn last, in another colour, as browsers print hyperlinks."""
    canvas = _canvas(path, "Regeling met links")
    canvas.setFont("Helvetica", 11)
    y = HEIGHT - 80
    gap = canvas.stringWidth(before + " ", "Helvetica", 11)
    link_width = canvas.stringWidth(link + " ", "Helvetica", 11)
    canvas.drawString(LEFT, y, before)
    canvas.drawString(LEFT + gap + link_width, y, after)
    canvas.drawString(LEFT, y - LINE, "Tweede regel zonder link.")
    canvas.setFillColorRGB(0, 0, 0.8)
    canvas.drawString(LEFT + gap, y, link)
    canvas.showPage()
    canvas.save()
    return path


def long_pdf(path: Path, pages: int, lines_per_page: int = 3) -> Path:
    """Many pages of varied Dutch sentences; the first line of each page carries a code unique to the page."""
    canvas = _canvas(path, "Uitgebreid zorgprotocol")
    topics = ["koorts", "pijnbestrijding", "wondzorg", "mobilisatie", "voeding", "medicatie", "hygiëne"]
    for number in range(1, pages + 1):
        canvas.setFont("Helvetica", 11)
        y = HEIGHT - 80
        topic = topics[number % len(topics)]
        for line in (
            f"Afspraak met kenmerk P{number * 7 + 3:05d}.",
            f"Hoofdstuk {number} behandelt {topic} bij opgenomen patiënten.",
            "Controleer de parameters en noteer afwijkingen in het dossier.",
        )[:lines_per_page]:
            canvas.drawString(LEFT, y, line)
            y -= LINE
        canvas.setFont("Helvetica", 8)
        canvas.drawString(LEFT, 30, f"Pagina {number} van {pages}")
        canvas.showPage()
    canvas.save()
    return path


Step = tuple[str, str]
"""One drawing step of `form_pdf`: ("text", line), ("invisible", line) in render mode 3 (left set, as a
careless producer does), ("white", line) white on white (left set too), ("form", name) draws a form with `Do`,
("invisible form", name) / ("white form", name) draws it between q/Q in a state that hides text."""


def form_pdf(path: Path, forms: Mapping[str, Sequence[Step]], pages: Sequence[Sequence[Step]]) -> Path:
    """Form XObjects (what stamps, watermarks and some producers' whole pages are) and pages drawing them.

    Forms are defined in order, so a form can draw the ones before it, and itself.
    """
    canvas = _canvas(path, "Formulieren")
    y = HEIGHT - 60

    def draw(steps: Sequence[Step]) -> None:
        nonlocal y
        canvas.setFont("Helvetica", 11)
        for how, what in steps:
            if how in ("text", "invisible", "white"):
                text = canvas.beginText(LEFT, y)
                if how == "invisible":
                    text.setTextRenderMode(3)
                if how == "white":
                    canvas.setFillColorRGB(1, 1, 1)
                text.textLine(what)
                canvas.drawText(text)
                y -= LINE
            elif how == "form":
                canvas.doForm(what)
            else:
                canvas.saveState()
                if how == "invisible form":
                    hiding = canvas.beginText()
                    hiding.setTextRenderMode(3)
                    canvas.drawText(hiding)
                else:
                    canvas.setFillColorRGB(1, 1, 1)
                canvas.doForm(what)
                canvas.restoreState()

    for name, steps in forms.items():
        canvas.beginForm(name)
        draw(steps)
        canvas.endForm()
    for steps in pages:
        draw(steps)
        canvas.showPage()
    canvas.save()
    return path


def shared_stream_pdf(path: Path, pages: int, stream_lines: int = 2000) -> Path:
    """A hostile PDF: `pages` pages that all draw one large content stream (written once, as a compressed
    bomb would be), so the file is small but reading its text is hours of work."""
    line = b"BT /F1 11 Tf 72 700 Td (Koorts bij kinderen: paracetamol volgens protocol.) Tj ET\n"
    content = line * stream_lines
    first_page = 5
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(b"%d 0 R" % (first_page + n) for n in range(pages))
        + b"] /Count %d >>" % pages,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
    ]
    page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"
    objects += [page] * pages
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    return path
