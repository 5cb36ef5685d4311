"""`python -m research.ingest_bench.words PDF…`: the share of broken or glued words in the cleaned text of real PDFs.

A word of the cleaned text (letters, at least two) is suspect when it occurs neither in a plain extraction of
the same page (pypdf's plain mode and pdfminer's, through pdfplumber) nor in a Dutch word list (Debian's
`wdutch`, /usr/share/dict/dutch). A word split in two ("vere iste") leaves two suspects, a glued one
("devoorschriften") one. Names, abbreviations and English words of a plain extraction are not suspect, but
neither are words that every extraction breaks the same way: the share is an upper bound on what cleaning broke,
not a count of what the page shows. Each suspect is listed with its context, for reading by hand.

`--json FILE` writes the figures (to compare a run of the old code, `--before FILE`, in the Markdown table).
"""

import argparse
import json
import re
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import pdfplumber
from pypdf import PdfReader

from ingest.pipeline import read_pdf
from research.ingest_bench.common import command, machine, replace_section

SECTION = "## Broken words in the cleaned text of real PDFs"
WORD_LIST = Path("/usr/share/dict/dutch")
_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ɏ]{2,}")
CONTEXT = 30


@dataclass(frozen=True)
class Measurement:
    name: str
    pages: int
    words: int
    suspects: int
    examples: list[str]

    @property
    def share(self) -> float:
        return self.suspects / self.words if self.words else 0.0


def dutch_words(path: Path = WORD_LIST) -> frozenset[str]:
    if not path.is_file():
        raise SystemExit(f"{path} is missing: apt-get install wdutch")
    return frozenset(line.strip().casefold() for line in path.read_text(encoding="utf-8").splitlines())


def plain_words(pdf: Path) -> list[set[str]]:
    """Per page, the words of pypdf's plain mode and pdfminer's extraction together."""
    pages = [set(_words(page.extract_text())) for page in PdfReader(pdf).pages]
    with pdfplumber.open(pdf) as document:
        for number, page in enumerate(document.pages):
            pages[number] |= set(_words(page.extract_text() or ""))
    return pages


def _words(text: str) -> Iterator[str]:
    return (word.casefold() for word in _WORD.findall(text))


def measure(pdf: Path, dictionary: frozenset[str]) -> Measurement:
    parsed = read_pdf(pdf, 10**10, 100_000, None, frozenset())
    plain = plain_words(pdf)
    words = suspects = 0
    examples: list[str] = []
    for number in range(1, parsed.text.page_count + 1):
        text = parsed.text.page_text(number)
        for match in _WORD.finditer(text):
            words += 1
            word = match.group(0).casefold()
            if word in dictionary or word in plain[number - 1]:
                continue
            suspects += 1
            start, end = max(0, match.start() - CONTEXT), match.end() + CONTEXT
            examples.append(f"p{number}: …{text[start:end]}…".replace("\n", "⏎"))
    return Measurement(pdf.name, parsed.text.page_count, words, suspects, examples)


def markdown(
    measured: Sequence[Measurement], before: dict[str, dict[str, object]], argv: Sequence[str]
) -> str:
    lines = [
        SECTION,
        "",
        f"`{command('research.ingest_bench.words', argv)}` on {machine()}; Dutch PDFs (`../shared/data/real_nl/`, the "
        "regulation in `../shared/data/pdfs/`); word list: Debian `wdutch`.",
        "",
        "A suspect is a word of the cleaned text found neither in a plain extraction of its page (pypdf plain, "
        "pdfminer) nor in the Dutch word list.",
        "",
        "| PDF | pages | words | suspects before | share before | suspects after | share after |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in measured:
        old = before.get(m.name, {})
        old_share = f"{float(str(old['suspects'])) / float(str(old['words'])):.2%}" if old else "–"
        lines.append(
            f"| {m.name} | {m.pages} | {m.words} | {old.get('suspects', '–')} | {old_share} | "
            f"{m.suspects} | {m.share:.2%} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m research.ingest_bench.words", description=__doc__)
    parser.add_argument("pdfs", nargs="+", type=Path, metavar="PDF")
    parser.add_argument("--json", type=Path, help="write the figures and every suspect here")
    parser.add_argument("--before", type=Path, help="the --json of a run of the old code, for the table")
    parser.add_argument("--markdown", type=Path, help="put the section into this Markdown file")
    parser.add_argument("--show", type=int, default=20, help="suspects to print per PDF")
    arguments = parser.parse_args(argv)
    dictionary = dutch_words()
    measured = []
    for pdf in arguments.pdfs:
        start = time.perf_counter()
        result = measure(pdf, dictionary)
        measured.append(result)
        print(
            f"{result.name}: {result.suspects}/{result.words} suspect ({result.share:.2%}), "
            f"{time.perf_counter() - start:.1f} s"
        )
        for example in result.examples[: arguments.show]:
            print(f"    {example}")
    if arguments.json:
        figures = [asdict(m) | {"share": m.share} for m in measured]
        arguments.json.write_text(json.dumps(figures, ensure_ascii=False, indent=1), encoding="utf-8")
    before = {}
    if arguments.before:
        before = {item["name"]: item for item in json.loads(arguments.before.read_text(encoding="utf-8"))}
    if arguments.markdown:
        replace_section(arguments.markdown, markdown(measured, before, argv or sys.argv[1:]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
