"""Write the real-document question set's evaluation files from its source file, and check the set against the
documents it is about.

Reads (content is data; edit these, not this script):

* ``questions.yaml``       every question with its metadata: per document (file, split, what it is) its questions
                           (id, kind, question, key phrase, paraphrased, note), and the questions no document
                           answers (id, split, question, the distinctive words no document may contain, note)
* ``readme-template.md``   ``README.md``, with the count tables filled in

Writes ``dev.csv``, ``test.csv`` (the 11 text PDFs, split by document), ``converted.csv`` (documents that need OCR
or conversion first), ``extra-long.csv`` (a 363-page document), ``paraphrased-dev.csv`` and ``paraphrased-test.csv``
(the paraphrased part: questions in the asker's own words about the dev and test documents, asked apart) in the
evaluator's format
(``id,question,relevant_documents,answer``, read by ``api.evaluator.queries.read_queries``) and ``README.md``.
A question's id is ``<split>.<kind>.<lit|para>.<key>``: split, kind and wording can be read back from an answer
report's id column.

``--documents DIR`` (the folder of ``../shared/data/real_nl/SOURCES.md``) also checks the set against the
documents and fails loudly: every key phrase must stand in its document (pypdf's plain extraction; case, white
space and a hyphen at a line end do not count) and in no other main document, and no distinctive word of an
unanswerable question may stand in any document. It then reports how many key phrases the project's own cleaned
text (ingestion's pipeline) loses, which is what extraction breaks.

Run: ``.venv/bin/python samples/real/make_real_set.py [--out DIR] [--documents ../shared/data/real_nl]``
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
import zipfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Annotated, Literal
from xml.etree import ElementTree

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator
from pypdf import PdfReader

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "questions.yaml"
TEMPLATE = HERE / "readme-template.md"
OUTPUTS = {"dev": "dev.csv", "test": "test.csv", "converted": "converted.csv", "extra-long": "extra-long.csv"}
# The paraphrased part, per split of its documents; its CSV ids start with the file's stem ("paraphrased-dev").
PARAPHRASED_OUTPUTS = {"dev": "paraphrased-dev.csv", "test": "paraphrased-test.csv"}
MAIN_SPLITS = ("dev", "test")
KINDS = ("fact", "number", "list", "table", "steps", "yesno")
HEADER = ("id", "question", "relevant_documents", "answer")
WORD_ML = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"

Split = Literal["dev", "test", "converted", "extra-long"]
Kind = Literal["fact", "number", "list", "table", "steps", "yesno"]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Key = Annotated[str, StringConstraints(pattern=r"^[a-z]+-\d{2}$")]


class Data(BaseModel):
    """The source file's content, checked as read: a misspelt key or a number where text belongs is refused."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class QuestionData(Data):
    id: Key  # <document code>-<nn>, stable: never renumber
    kind: Kind
    question: Text
    answer: Text  # the key phrase, verbatim from the document (white space aside)
    paraphrased: bool = False  # written without the answering passage's key words
    part: Literal["main", "paraphrased"] = "main"  # paraphrased: asked apart, in paraphrased-<split>.csv
    note: str = ""  # what a full answer holds, where the key phrase is one item of it

    @model_validator(mode="after")
    def _answer_is_normalised(self) -> QuestionData:
        if unicodedata.normalize("NFKC", self.answer) != self.answer:
            raise ValueError(
                f"{self.id}: write the key phrase as ingestion's NFKC-normalised text has it "
                f"({unicodedata.normalize('NFKC', self.answer)!r}): the evaluator compares it with that text"
            )
        return self

    @model_validator(mode="after")
    def _paraphrased_part_is_paraphrased(self) -> QuestionData:
        if self.part == "paraphrased" and not self.paraphrased:
            raise ValueError(f"{self.id}: a question of the paraphrased part must be paraphrased: true")
        return self


class DocumentData(Data):
    file: Text  # path below the documents folder
    split: Split
    about: Text
    questions: list[QuestionData]

    @property
    def reference(self) -> str:
        """How the CSV names the document: the file name, or the stem for a file that is converted to a PDF
        first (the evaluator matches a file name with or without its extension)."""
        path = PurePath(self.file)
        return path.name if path.suffix == ".pdf" else path.stem

    def in_part(self, part: str) -> list[QuestionData]:
        """The document's questions of the main set or of the paraphrased part."""
        return [question for question in self.questions if question.part == part]

    @model_validator(mode="after")
    def _paraphrased_part_only_for_dev_and_test(self) -> DocumentData:
        if self.split not in MAIN_SPLITS and self.in_part("paraphrased"):
            raise ValueError(f"{self.file}: the paraphrased part asks about dev and test documents only")
        return self


class UnanswerableData(Data):
    id: Key
    split: Literal["dev", "test"]
    question: Text
    absent: Annotated[list[Text], Field(min_length=1)]  # distinctive words that no document contains
    note: Text  # why it is near the documents and still unanswered


class SetFile(Data):
    documents: list[DocumentData]
    unanswerable: list[UnanswerableData]

    @model_validator(mode="after")
    def _ids_unique_and_coded(self) -> SetFile:
        keys = [q.id for d in self.documents for q in d.questions] + [q.id for q in self.unanswerable]
        doubles = sorted(key for key, count in Counter(keys).items() if count > 1)
        if doubles:
            raise ValueError(f"ids used twice: {doubles}")
        for document in self.documents:
            codes = {question.id.split("-")[0] for question in document.questions}
            if len(codes) > 1:
                raise ValueError(f"{document.file}: one id prefix per document, found {sorted(codes)}")
        return self


@dataclass(frozen=True)
class Row:
    id: str
    question: str
    documents: str
    answer: str


def read_set(path: Path = SOURCE) -> SetFile:
    try:
        return SetFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except ValidationError as error:
        raise ValueError(f"{path.name}: {error}") from error


def row_id(split: str, kind: str, paraphrased: bool, key: str) -> str:
    return f"{split}.{kind}.{'para' if paraphrased else 'lit'}.{key}"


def rows(question_set: SetFile, split: str) -> list[Row]:
    """The split's answerable questions in source order, then its unanswerable ones."""
    answerable = [
        Row(row_id(split, q.kind, q.paraphrased, q.id), q.question, document.reference, q.answer)
        for document in question_set.documents
        if document.split == split
        for q in document.in_part("main")
    ]
    unanswerable = [
        Row(row_id(split, "none", False, q.id), q.question, "", "")
        for q in question_set.unanswerable
        if q.split == split
    ]
    return answerable + unanswerable


def paraphrased_rows(question_set: SetFile, split: str) -> list[Row]:
    """The paraphrased part's questions about the split's documents, in source order (all answerable)."""
    part = Path(PARAPHRASED_OUTPUTS[split]).stem
    return [
        Row(row_id(part, q.kind, q.paraphrased, q.id), q.question, document.reference, q.answer)
        for document in question_set.documents
        if document.split == split
        for q in document.in_part("paraphrased")
    ]


def csv_text(split_rows: Sequence[Row]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows((row.id, row.question, row.documents, row.answer) for row in split_rows)
    return buffer.getvalue()


def outputs(question_set: SetFile) -> dict[str, str]:
    """File name -> content of everything this script writes."""
    split_rows = {name: rows(question_set, split) for split, name in OUTPUTS.items()}
    split_rows |= {name: paraphrased_rows(question_set, split) for split, name in PARAPHRASED_OUTPUTS.items()}
    files = {name: csv_text(found) for name, found in split_rows.items() if found}
    files["README.md"] = readme(question_set)
    return files


def readme(question_set: SetFile) -> str:
    template = TEMPLATE.read_text(encoding="utf-8")
    return template.format(
        parts=_parts_table(question_set),
        documents=_documents_table(question_set),
        kinds=_kinds_table(question_set),
    )


def _parts_table(question_set: SetFile) -> str:
    lines = [
        "| Part | File | Documents | Answerable | of them paraphrased | Unanswerable |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for split, name in OUTPUTS.items():
        documents = [d for d in question_set.documents if d.split == split]
        answerable = [q for d in documents for q in d.in_part("main")]
        unanswerable = [q for q in question_set.unanswerable if q.split == split]
        lines.append(
            f"| {split} | `{name}` | {len(documents)} | {len(answerable)} | "
            f"{sum(q.paraphrased for q in answerable)} | {len(unanswerable)} |"
        )
    for split, name in PARAPHRASED_OUTPUTS.items():
        documents = [d for d in question_set.documents if d.split == split]
        asked = [q for d in documents for q in d.in_part("paraphrased")]
        lines.append(f"| {Path(name).stem} | `{name}` | {len(documents)} | {len(asked)} | {len(asked)} | 0 |")
    return "\n".join(lines)


def _documents_table(question_set: SetFile) -> str:
    lines = [
        "| Document | Part | What it is | Questions | Paraphrased | Paraphrased part |",
        "|---|---|---|---:|---:|---:|",
    ]
    for document in question_set.documents:
        main = document.in_part("main")
        lines.append(
            f"| `{document.file}` | {document.split} | {document.about} | {len(main)} | "
            f"{sum(q.paraphrased for q in main)} | {len(document.in_part('paraphrased'))} |"
        )
    return "\n".join(lines)


def _kinds_table(question_set: SetFile) -> str:
    splits = list(OUTPUTS)
    lines = ["| Kind | " + " | ".join(splits) + " |", "|---|" + "---:|" * len(splits)]
    for kind in KINDS:
        counts = [
            sum(q.kind == kind for d in question_set.documents if d.split == split for q in d.in_part("main"))
            for split in splits
        ]
        lines.append(f"| {kind} | " + " | ".join(map(str, counts)) + " |")
    return "\n".join(lines)


def write(files: dict[str, str], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (out / name).write_text(content, encoding="utf-8")


# --- checking against the documents -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Extracted:
    """A document's plain text in the forms it is compared in; empty where it could not be read here (no OCR)."""

    squeezed: tuple[str, ...]  # for key phrases: white space removed
    spaced: tuple[str, ...]  # for distinctive words: white space collapsed, so words keep their boundaries
    how: str

    @property
    def read(self) -> bool:
        return bool(self.squeezed)

    def holds_phrase(self, phrase: str) -> bool:
        return any(squeezed(phrase) in form for form in self.squeezed)

    def holds_word(self, word: str) -> bool:
        pattern = re.compile(r"(?<!\w)" + re.escape(spaced(word)))
        return any(pattern.search(form) for form in self.spaced)


def _normalised(text: str) -> str:
    """Case and compatibility characters (ligatures, µ) do not count, nor soft hyphens."""
    return unicodedata.normalize("NFKC", text).replace("\u00ad", "").lower()


def squeezed(text: str) -> str:
    return "".join(_normalised(text).split())


def spaced(text: str) -> str:
    return " ".join(_normalised(text).split())


def extracted(text: str | None, how: str) -> Extracted:
    """The text as it is and with hyphens at line ends joined (``verpleeg-\\neenheden``): a phrase may be written
    either way, and one real hyphen at a line end (``bloed-\\nhersenbarrière``) must not be lost."""
    if text is None:
        return Extracted((), (), how)
    versions = (text, re.sub(r"(?<=\w)-[ \t]*\n\s*(?=\w)", "", text))
    return Extracted(tuple(map(squeezed, versions)), tuple(map(spaced, versions)), how)


def plain_text(path: Path) -> tuple[str | None, str]:
    """A plain extraction of the document, and how it was made."""
    if path.suffix == ".docx":
        with zipfile.ZipFile(path) as archive:
            body = ElementTree.fromstring(archive.read("word/document.xml"))
        paragraphs = (
            "".join(node.text or "" for node in p.iter(f"{WORD_ML}t")) for p in body.iter(f"{WORD_ML}p")
        )
        return "\n".join(paragraphs), "docx XML"
    text = "\n".join(page.extract_text() for page in PdfReader(path).pages)
    return (text, "pypdf plain") if text.strip() else _ocr(path)


def _ocr(path: Path) -> tuple[str | None, str]:
    """The pages read by OCRmyPDF (Tesseract, Dutch), where it is installed: a scanned document has no text."""
    if shutil.which("ocrmypdf") is None:
        return None, "not read: no text layer, and no ocrmypdf for OCR"
    with tempfile.TemporaryDirectory() as scratch:
        sidecar = Path(scratch) / "text.txt"
        subprocess.run(
            [
                "ocrmypdf",
                "-q",
                "-l",
                "nld",
                "--force-ocr",
                "--sidecar",
                str(sidecar),
                str(path),
                f"{scratch}/out.pdf",
            ],
            check=True,
            timeout=600,
        )
        return sidecar.read_text(encoding="utf-8"), "OCRmyPDF (nld)"


def extract_all(question_set: SetFile, folder: Path) -> dict[str, Extracted]:
    found = {}
    for document in question_set.documents:
        path = folder / document.file
        if not path.is_file():
            raise FileNotFoundError(f"{path}: not in the documents folder (see SOURCES.md there)")
        found[document.file] = extracted(*plain_text(path))
    return found


def check(question_set: SetFile, texts: dict[str, Extracted]) -> list[str]:
    """Every problem, in words; empty when the set holds."""
    problems = []
    main = [d.file for d in question_set.documents if d.split in MAIN_SPLITS]
    for document in question_set.documents:
        own = texts[document.file]
        for question in document.questions:
            if own.read and not own.holds_phrase(question.answer):
                problems.append(f"{question.id}: key phrase {question.answer!r} is not in {document.file}")
            if document.split not in MAIN_SPLITS:
                continue
            elsewhere = [o for o in main if o != document.file and texts[o].holds_phrase(question.answer)]
            if elsewhere:
                problems.append(f"{question.id}: key phrase {question.answer!r} also stands in {elsewhere}")
    indexed = [
        d.file for d in question_set.documents if d.split != "extra-long"
    ]  # the stress case stands alone
    for unanswered in question_set.unanswerable:
        for word in unanswered.absent:
            found = [name for name in indexed if texts[name].holds_word(word)]
            if found:
                problems.append(
                    f"{unanswered.id}: {word!r} is meant to be in no document, but stands in {found}"
                )
    return problems


@dataclass(frozen=True)
class Losses:
    """A main document's key phrases that the evaluator's matcher misses in ingestion's cleaned text: spaced apart
    or broken (`split`), or not there even with all white space removed (`lost`: dropped or reordered)."""

    file: str
    phrases: int
    split: list[str]
    lost: list[str]


def cleaned_text_losses(question_set: SetFile, folder: Path) -> list[Losses]:
    from api.evaluator.key_facts import holds_key_fact  # the project's own code: only for this report
    from ingest.pdf_reader import open_pdf
    from ingest.pipeline import parse_pdf

    report = []
    for document in question_set.documents:
        if document.split not in MAIN_SPLITS:
            continue
        with open_pdf(folder / document.file, 200_000_000) as pdf:
            cleaned = parse_pdf(pdf).text.text
        missed = [q for q in document.questions if not holds_key_fact(cleaned, q.answer)]
        lost = [q.id for q in missed if squeezed(q.answer) not in squeezed(cleaned)]
        split = [q.id for q in missed if q.id not in lost]
        report.append(Losses(document.file, len(document.questions), split, lost))
    return report


def print_report(report: Sequence[Losses]) -> None:
    print("| Document | Key phrases | Not found in the cleaned text | Broken or spaced apart | Lost |")
    print("|---|---:|---:|---|---|")
    for line in report:
        missed = len(line.split) + len(line.lost)
        print(
            f"| `{line.file}` | {line.phrases} | {missed} | {', '.join(line.split)} | {', '.join(line.lost)} |"
        )
    total = sum(line.phrases for line in report)
    missed = sum(len(line.split) + len(line.lost) for line in report)
    print(f"| all | {total} | {missed} ({100 * missed / max(1, total):.0f} %) | | |")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=HERE, help="where to write the CSVs and README.md")
    parser.add_argument("--documents", type=Path, help="the real_nl folder: check the set against it")
    args = parser.parse_args(argv)
    question_set = read_set()
    if args.documents is not None:
        texts = extract_all(question_set, args.documents)
        for name, text in texts.items():
            if not text.read:
                print(f"not checked: {name}: {text.how}", file=sys.stderr)
        problems = check(question_set, texts)
        if problems:
            print(f"{len(problems)} problem(s) in {SOURCE.name}:", *problems, sep="\n  ", file=sys.stderr)
            return 1
        print_report(cleaned_text_losses(question_set, args.documents))
    write(outputs(question_set), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
