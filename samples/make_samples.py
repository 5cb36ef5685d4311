"""Render the fictional sample procedures of Vraagbaak from their data files into PDFs, and check them.

Reads (content is data; edit these, not this script):

* ``procedures/<name>.md``   one procedure each: YAML front matter (code, title, audience, department, scope,
                             optional version, facts) and a body in plain Markdown: ``## headings``, paragraphs,
                             ``-`` bullets, ``1.`` steps, tables (a ``<!-- widths: 42 30 28 -->`` line above a
                             table sets its column widths in percent) and ``---`` for a new page
* ``collection.yaml``        the documents in order and the questions with their answer snippets
* ``heldout/``               a second collection in the same layout, held out to measure abstention
* ``hyphenation.txt``        the only words hyphenated at a line end, and where
* ``readme-template.md``     ``README.md``, with the tables filled in

Writes ``documents/<name>.pdf`` + ``.meta.json``, ``questions.csv`` and ``facts.json`` (in both collections) and
``README.md``. Everything is deterministic (reportlab ``invariant=1``): running it again gives identical bytes.
After writing, the PDFs are read back with pypdf and checked (facts on their page, answers present, running
header/footer on every page, a hyphenated line end, diacritics, size); an answer snippet must not occur in a
document its question does not list, nor a key word of an unanswerable question in any document.

Run: ``.venv/bin/python samples/make_samples.py`` (``--out DIR`` writes the outputs elsewhere, e.g. to compare)
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, TypeVar
from xml.sax.saxutils import escape

import reportlab
import yaml
from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pypdf import PdfReader
from reportlab.lib import colors
from reportlab.lib.enums import TA_JUSTIFY
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import cm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    Flowable,
    Frame,
    ListFlowable,
    ListItem,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

HERE = Path(__file__).resolve().parent
HOSPITAL = "UZ Voorbeeld"
FICTION = "Voorbeelddocument – fictief, niet voor klinisch gebruik"
MAX_BYTES = 60_000
PAGE_W, PAGE_H = A4
MARGIN = 2 * cm
TEXT_W = PAGE_W - 2 * MARGIN

# Bitstream Vera ships with reportlab and has the U+FB02 "ﬂ" ligature glyph (Helvetica has none); written {fl} in
# a procedure (handhygiene.md has the one real ligature of the samples).
pdfmetrics.registerFont(TTFont("Vera", str(Path(reportlab.__file__).parent / "fonts" / "Vera.ttf")))
LIGATURE_MARKUP = '<font name="Vera">\ufb02</font>'
WIDTHS = re.compile(r"<!--\s*widths:([\d\s]+)-->")
D = TypeVar("D", bound="Data")


@dataclass(frozen=True)
class Block:
    kind: str  # heading, para, bullets, steps, table, page
    texts: tuple[str, ...] = ()  # the heading or paragraph, the list items, or the table's header cells
    rows: tuple[tuple[str, ...], ...] = ()
    widths: tuple[float, ...] = ()  # fractions of the text width


class Data(BaseModel):
    """A data file's content, checked as read: a misspelt key or a number where text belongs is refused."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class FactData(Data):
    fact: str  # short description for the README table
    sentence: str  # exactly as in the text, on one page


class FrontMatter(Data):
    code: str
    title: str
    audience: list[str]
    department: list[str]
    scope: str  # "Doelgroep: ..." line on page 1
    version: str = "Versie 3.0 – goedgekeurd op 15-01-2024 – herziening uiterlijk 15-01-2027"
    facts: list[FactData]


class Question(Data):
    question: str
    # document file name -> a snippet of the answer as it stands in that document; the first is the CSV's answer
    answers: dict[str, str] = {}
    absent: list[str] = []  # for an unanswerable question: words no document of either collection contains


class CollectionFile(Data):
    documents: list[str]  # procedure names, in the order of the README and facts.json
    siblings: list[Annotated[list[str], Field(min_length=2, max_length=2)]] = []  # same topic, other group
    questions: list[Question]


@dataclass(frozen=True)
class Fact:
    page: int  # 1-based
    sentence: str
    summary: str


@dataclass(frozen=True)
class SampleDoc:
    name: str  # file stem
    meta: FrontMatter
    blocks: tuple[Block, ...]
    facts: tuple[Fact, ...]

    @property
    def pages(self) -> int:
        """As many pages as the text asks for with ``---``; the check holds the PDF to it."""
        return 1 + sum(block.kind == "page" for block in self.blocks)


@dataclass(frozen=True)
class Collection:
    directory: Path  # holds procedures/ and collection.yaml; documents/, questions.csv, facts.json go beside
    docs: tuple[SampleDoc, ...]
    questions: list[Question]
    siblings: list[list[str]]


# --------------------------------------------------------------------------------------------------------------
# Reading the data files
# --------------------------------------------------------------------------------------------------------------
def _text(node: SyntaxTreeNode) -> str:
    """A block's source text, lines joined by one space: Markdown inline syntax is not interpreted."""
    return " ".join(line.strip() for child in node.children for line in child.content.splitlines())


def _blocks(body: str, where: str) -> list[Block]:
    blocks: list[Block] = []
    widths: tuple[float, ...] = ()
    for node in SyntaxTreeNode(MarkdownIt("commonmark").enable("table").parse(body)).children:
        if widths and node.type != "table":
            raise ValueError(f"{where}: a widths line is not directly above a table")
        if node.type == "html_block" and (match := WIDTHS.fullmatch(node.content.strip())):
            widths = tuple(int(w) / 100 for w in match.group(1).split())
        elif node.type == "heading" and node.tag == "h2":
            blocks.append(Block("heading", (_text(node),)))
        elif node.type == "paragraph":
            blocks.append(Block("para", (_text(node),)))
        elif node.type in ("bullet_list", "ordered_list"):
            if any([c.type for c in item.children] != ["paragraph"] for item in node.children):
                raise ValueError(f"{where}: a list item holds one paragraph, no nested blocks")
            kind = "steps" if node.type == "ordered_list" else "bullets"
            blocks.append(Block(kind, tuple(_text(item.children[0]) for item in node.children)))
        elif node.type == "table":
            head, *rows = [tuple(map(_text, tr.children)) for part in node.children for tr in part.children]
            widths = widths or (1 / len(head),) * len(head)
            if len(widths) != len(head):
                raise ValueError(f"{where}: {len(widths)} widths for a table of {len(head)} columns")
            blocks.append(Block("table", head, tuple(rows), widths))
            widths = ()
        elif node.type == "hr":
            blocks.append(Block("page"))
        else:
            text = node.content or _text(node)
            raise ValueError(f"{where}: unsupported Markdown {node.type} {node.tag} ({text!r:.60})")
    if widths:
        raise ValueError(f"{where}: a widths line is not directly above a table")
    return blocks


def _page_of(sentence: str, blocks: Sequence[Block], where: str) -> int:
    """The page whose source text holds the fact sentence (pages are separated by ``---``)."""
    pages: list[str] = [""]
    for block in blocks:
        if block.kind == "page":
            pages.append("")
        pages[-1] += "\n".join(plain(t) for t in (*block.texts, *(c for r in block.rows for c in r))) + "\n"
    hits = [i for i, text in enumerate(pages, start=1) if sentence in text]
    if len(hits) != 1:
        raise ValueError(f"{where}: fact {sentence!r} is on pages {hits} of the text, expected exactly one")
    return hits[0]


def _load(model: type[D], path: Path, text: str) -> D:
    try:
        return model.model_validate(yaml.safe_load(text))
    except (yaml.YAMLError, ValidationError) as error:
        raise ValueError(f"{path}: {error}") from error


def read_procedure(path: Path) -> SampleDoc:
    head, separator, body = path.read_text(encoding="utf-8").removeprefix("---\n").partition("\n---\n")
    if not separator:
        raise ValueError(f"{path}: no front matter between two '---' lines")
    meta = _load(FrontMatter, path, head)
    blocks = _blocks(body, str(path))
    facts = [Fact(_page_of(f.sentence, blocks, str(path)), f.sentence, f.fact) for f in meta.facts]
    return SampleDoc(path.stem, meta, tuple(blocks), tuple(facts))


def read_collection(directory: Path) -> Collection:
    path = directory / "collection.yaml"
    data = _load(CollectionFile, path, path.read_text(encoding="utf-8"))
    files = {procedure.stem for procedure in (directory / "procedures").glob("*.md")}
    if files != set(data.documents):
        raise ValueError(f"{path}: documents {data.documents} are not the procedures {sorted(files)}")
    if unknown := {name for pair in data.siblings for name in pair} - files:
        raise ValueError(f"{path}: siblings name unknown procedures {sorted(unknown)}")
    docs = tuple(read_procedure(directory / "procedures" / f"{name}.md") for name in data.documents)
    return Collection(directory, docs, data.questions, data.siblings)


def _hyphenation() -> dict[str, tuple[int, ...]]:
    """Map each word of hyphenation.txt ('zieken|huis') to its lower-case form and allowed break positions."""
    result: dict[str, tuple[int, ...]] = {}
    for line in (HERE / "hyphenation.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            parts = line.strip().split("|")
            result["".join(parts).lower()] = tuple(sum(map(len, parts[:i])) for i in range(1, len(parts)))
    return result


HYPHENATION = _hyphenation()


# --------------------------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------------------------
def hyphenate(word: str) -> list[tuple[str, str]]:
    """reportlab hyphenator callback: (head, tail) pairs, longest head first."""
    positions = HYPHENATION.get(word.lower(), ())
    return [(word[:p], word[p:]) for p in reversed(positions)]


BODY = ParagraphStyle(
    "body",
    fontName="Helvetica",
    fontSize=10,
    leading=13.5,
    alignment=TA_JUSTIFY,
    spaceAfter=5,
    hyphenationLang=hyphenate,  # reportlab also accepts a callable instead of a pyphen language
)
LIST_ITEM = ParagraphStyle("item", parent=BODY, alignment=0, spaceAfter=1.5)
CELL = ParagraphStyle("cell", fontName="Helvetica", fontSize=9, leading=11.5)
CELL_HEAD = ParagraphStyle("cellhead", parent=CELL, fontName="Helvetica-Bold")
TITLE = ParagraphStyle("title", fontName="Helvetica-Bold", fontSize=17, leading=21, spaceAfter=6)
H2 = ParagraphStyle("h2", fontName="Helvetica-Bold", fontSize=12, leading=15, spaceBefore=8, spaceAfter=4)
NOTE = ParagraphStyle(
    "note", fontName="Helvetica-Bold", fontSize=10, leading=13, textColor=colors.HexColor("#b00020")
)
META = ParagraphStyle("meta", fontName="Helvetica-Oblique", fontSize=9, leading=12, spaceAfter=2)
TABLE_STYLE = TableStyle(
    [
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dde6f0")),
        ("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#8899aa")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 3),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
    ]
)


def markup(text: str) -> str:
    return escape(text).replace("{fl}", LIGATURE_MARKUP)


def plain(text: str) -> str:
    return text.replace("{fl}", "fl")


def flowables(doc: SampleDoc) -> list[Flowable]:
    story: list[Flowable] = [
        Paragraph(markup(doc.meta.title), TITLE),
        Paragraph(markup(FICTION), NOTE),
        Spacer(1, 4),
        Paragraph(markup(f"{doc.meta.code} – {doc.meta.version}"), META),
        Paragraph(markup(doc.meta.scope), META),
        Spacer(1, 4),
    ]
    for block in doc.blocks:
        if block.kind in ("heading", "para"):
            story.append(Paragraph(markup(block.texts[0]), H2 if block.kind == "heading" else BODY))
        elif block.kind in ("bullets", "steps"):
            numbered = block.kind == "steps"
            story.append(
                ListFlowable(
                    [ListItem(Paragraph(markup(t), LIST_ITEM)) for t in block.texts],
                    bulletType="1" if numbered else "bullet",
                    start=1 if numbered else "•",
                    bulletFontName="Helvetica" if numbered else "Symbol",
                    bulletFontSize=10,
                    leftIndent=16,
                    bulletFormat="%s." if numbered else None,
                    spaceAfter=5,
                )
            )
        elif block.kind == "table":
            data = [[Paragraph(markup(c), CELL_HEAD) for c in block.texts]]
            data += [[Paragraph(markup(c), CELL) for c in row] for row in block.rows]
            table = Table(data, colWidths=[w * TEXT_W for w in block.widths], repeatRows=1)
            table.setStyle(TABLE_STYLE)
            story += [table, Spacer(1, 6)]
        else:
            story.append(PageBreak())
    return story


def render(doc: SampleDoc) -> bytes:
    """Build the PDF twice: the first pass counts the pages for the "Pagina N van M" footer."""
    total = 0

    def header(canvas: Canvas, template: BaseDocTemplate) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica-Bold", 9)
        canvas.drawString(MARGIN, PAGE_H - 1.25 * cm, HOSPITAL)
        canvas.setFont("Helvetica", 9)
        canvas.drawRightString(PAGE_W - MARGIN, PAGE_H - 1.25 * cm, f"{doc.meta.code} – {doc.meta.title}")
        canvas.setLineWidth(0.5)
        canvas.line(MARGIN, PAGE_H - 1.4 * cm, PAGE_W - MARGIN, PAGE_H - 1.4 * cm)
        canvas.restoreState()

    def footer(canvas: Canvas, template: BaseDocTemplate) -> None:
        canvas.saveState()
        canvas.setLineWidth(0.5)
        canvas.line(MARGIN, 1.45 * cm, PAGE_W - MARGIN, 1.45 * cm)
        canvas.setFont("Helvetica", 8)
        canvas.drawString(MARGIN, 1.05 * cm, FICTION)
        canvas.drawRightString(PAGE_W - MARGIN, 1.05 * cm, f"Pagina {template.page} van {total or '?'}")
        canvas.restoreState()

    def build() -> tuple[bytes, int]:
        buffer = io.BytesIO()
        template = BaseDocTemplate(
            buffer,
            pagesize=A4,
            leftMargin=MARGIN,
            rightMargin=MARGIN,
            topMargin=MARGIN,
            bottomMargin=MARGIN,
            title=doc.meta.title,
            author=HOSPITAL,
            subject=f"{', '.join(doc.meta.department)} – {FICTION}",
            keywords=[doc.meta.code, *doc.meta.audience, *doc.meta.department],
            creator="Vraagbaak samples/make_samples.py",
            lang="nl-BE",
            invariant=1,
            pageCompression=1,
        )
        frame = Frame(MARGIN, MARGIN, TEXT_W, PAGE_H - 2 * MARGIN, id="body")
        template.addPageTemplates([PageTemplate(id="page", frames=[frame], onPage=header, onPageEnd=footer)])
        template.build(flowables(doc))
        return buffer.getvalue(), template.page

    _, total = build()
    data, pages = build()
    assert pages == total, (doc.name, pages, total)
    return data


# --------------------------------------------------------------------------------------------------------------
# Checks (pypdf read-back)
# --------------------------------------------------------------------------------------------------------------
def normalize(text: str) -> str:
    """What tests should compare against: whitespace runs collapsed to one space."""
    return re.sub(r"\s+", " ", text).strip()


def page_texts(data: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(data)).pages]


def check(doc: SampleDoc, data: bytes, questions: Sequence[Question], fail: Callable[[str], None]) -> None:
    pdf = f"{doc.name}.pdf"
    reader = PdfReader(io.BytesIO(data))
    texts = page_texts(data)
    n = len(texts)
    if n != doc.pages or not 2 <= n <= 4:
        fail(f"{pdf}: {n} pages, expected {doc.pages} (2-4); a section overflowed its page")
    if len(data) >= MAX_BYTES:
        fail(f"{pdf}: {len(data)} bytes >= {MAX_BYTES}")
    meta = reader.metadata
    if meta is None or meta.title != doc.meta.title or meta.author != HOSPITAL:
        fail(f"{pdf}: title/author metadata wrong: {meta}")
    for i, text in enumerate(texts, start=1):
        for needle in (HOSPITAL, doc.meta.code, f"Pagina {i} van {n}", FICTION):
            if needle not in text:
                fail(f"{pdf} page {i}: running header/footer text {needle!r} missing")
    full = "\n".join(texts)
    if not re.search(r"[a-zà-ÿ]-\n[a-zà-ÿ]", full):
        fail(f"{pdf}: no word hyphenated at a line end")
    for char in "éëï":
        if char not in full:
            fail(f"{pdf}: diacritic {char!r} missing")
    if not re.search(r"ffi|fl|\ufb02", full):
        fail(f"{pdf}: no ligature-prone word")
    for fact in doc.facts:
        sentence = normalize(fact.sentence)
        hits = [i for i, t in enumerate(texts, start=1) if sentence in normalize(t)]
        if hits != [fact.page]:
            fail(f"{pdf}: fact {fact.sentence!r} found on pages {hits}, expected [{fact.page}]")
        elif fact.sentence not in texts[fact.page - 1]:
            fail(f"{pdf}: fact {fact.sentence!r} is wrapped or hyphenated on page {fact.page}")
    body = normalize(full)
    for q in questions:
        if pdf in q.answers and normalize(plain(q.answers[pdf])) not in body:
            fail(f"{pdf}: answer {q.answers[pdf]!r} for {q.question!r} not in extracted text")


def check_questions(collection: Collection, bodies: dict[str, str], fail: Callable[[str], None]) -> None:
    """Questions name known documents, are not repeated, and each answer is only in the documents listed."""
    seen: set[str] = set()
    for q in collection.questions:
        if q.question in seen:
            fail(f"question {q.question!r} is asked twice")
        seen.add(q.question)
        unknown = set(q.answers) - set(bodies)
        if unknown:
            fail(f"question {q.question!r} names unknown documents {sorted(unknown)}")
        if q.answers and q.absent:
            fail(f"question {q.question!r} has an answer and words that must be absent")
    for doc in collection.docs:
        if not any(f"{doc.name}.pdf" in q.answers for q in collection.questions):
            fail(f"{doc.name}.pdf: no question is answered by it")
    for q in collection.questions:
        for pdf, snippet in q.answers.items():
            elsewhere = [
                other
                for other, body in bodies.items()
                if other not in q.answers and normalize(snippet) in body
            ]
            if elsewhere:
                fail(f"{pdf}: answer {snippet!r} for {q.question!r} is also in unlisted {elsewhere}")


def check_absent(questions: Sequence[Question], bodies: dict[str, str], fail: Callable[[str], None]) -> None:
    """The words of an unanswerable question occur in no document of any collection."""
    for q in questions:
        for word in q.absent:
            pattern = re.compile(rf"\b{re.escape(word)}", re.IGNORECASE)
            hits = sorted(pdf for pdf, body in bodies.items() if pattern.search(body))
            if hits:
                fail(f"question {q.question!r}: {word!r} must be in no document but is in {hits}")


# --------------------------------------------------------------------------------------------------------------
# Outputs
# --------------------------------------------------------------------------------------------------------------
def write_collection(collection: Collection, out: Path, errors: list[str]) -> dict[str, str]:
    """Write one collection into `out`; return each PDF's normalised text."""
    doc_dir = out / "documents"
    doc_dir.mkdir(parents=True, exist_ok=True)
    bodies: dict[str, str] = {}
    for doc in collection.docs:
        data = render(doc)
        if render(doc) != data:
            errors.append(f"{doc.name}.pdf: output is not deterministic")
        check(doc, data, collection.questions, errors.append)
        bodies[f"{doc.name}.pdf"] = normalize("\n".join(page_texts(data)))
        (doc_dir / f"{doc.name}.pdf").write_bytes(data)
        sidecar = {"audience": list(doc.meta.audience), "department": list(doc.meta.department)}
        (doc_dir / f"{doc.name}.meta.json").write_text(json.dumps(sidecar, ensure_ascii=False) + "\n")
    check_questions(collection, bodies, errors.append)

    with (out / "questions.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["question", "relevant_documents", "answer"])
        for q in collection.questions:
            writer.writerow([q.question, ";".join(q.answers), plain(next(iter(q.answers.values()), ""))])

    facts = [
        {"document": f"{d.name}.pdf", "page": f.page, "sentence": f.sentence}
        for d in collection.docs
        for f in d.facts
    ]
    (out / "facts.json").write_text(json.dumps(facts, ensure_ascii=False, indent=2) + "\n")
    return bodies


def readme(samples: Collection, heldout: Collection) -> str:
    def doc_rows(collection: Collection, prefix: str, count_questions: bool = False) -> str:
        rows = []
        for d in collection.docs:
            row = (
                f"| `{prefix}documents/{d.name}.pdf` ({d.meta.title}) | {', '.join(d.meta.audience)} "
                f"| {', '.join(d.meta.department)} | {d.pages} |"
            )
            if count_questions:
                row += f" {sum(f'{d.name}.pdf' in q.answers for q in collection.questions)} |"
            rows.append(row)
        return "\n".join(rows)

    def fact_rows(collection: Collection) -> str:
        return "\n".join(
            f"| {f.summary} | `{d.name}.pdf` | {f.page} | {f.sentence} |"
            for d in collection.docs
            for f in d.facts
        )

    return (
        (HERE / "readme-template.md")
        .read_text(encoding="utf-8")
        .format(
            docs=doc_rows(samples, ""),
            facts=fact_rows(samples),
            n_unanswerable=sum(not q.answers for q in samples.questions),
            heldout_docs=doc_rows(heldout, "heldout/", count_questions=True),
            heldout_facts=fact_rows(heldout),
            n_questions=len(heldout.questions),
            n_answerable=sum(bool(q.answers) for q in heldout.questions),
            n_shared=sum(len(q.answers) > 1 for q in heldout.questions),
            heldout_unanswerable=sum(not q.answers for q in heldout.questions),
            siblings="\n".join(f"  * `{a}.pdf` / `{b}.pdf`" for a, b in heldout.siblings),
        )
    )


def write_outputs(out: Path) -> int:
    errors: list[str] = []
    try:
        samples, heldout = read_collection(HERE), read_collection(HERE / "heldout")
    except (OSError, ValueError) as error:
        print(f"ERROR: {error}", file=sys.stderr)
        return 1
    all_bodies: dict[str, str] = {}
    for collection in (samples, heldout):
        bodies = write_collection(collection, out / collection.directory.relative_to(HERE), errors)
        all_bodies |= {
            f"{collection.directory.relative_to(HERE)}/{pdf}": body for pdf, body in bodies.items()
        }
    check_absent([*samples.questions, *heldout.questions], all_bodies, errors.append)
    (out / "README.md").write_text(readme(samples, heldout))

    for message in errors:
        print(f"ERROR: {message}", file=sys.stderr)
    if errors:
        return 1
    for collection in (samples, heldout):
        doc_dir = out / collection.directory.relative_to(HERE) / "documents"
        sizes = ", ".join(
            f"{d.name}.pdf {(doc_dir / f'{d.name}.pdf').stat().st_size} B" for d in collection.docs
        )
        print(
            f"{doc_dir.parent}: wrote {len(collection.docs)} PDFs ({sizes}), "
            f"{len(collection.questions)} questions, {sum(len(d.facts) for d in collection.docs)} facts"
        )
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Render samples/ from its data files.")
    parser.add_argument(
        "--out", type=Path, default=HERE, help="folder to write into (default: samples/ itself)"
    )
    sys.exit(write_outputs(parser.parse_args().out))
