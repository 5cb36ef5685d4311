"""LibreOffice and OCRmyPDF read untrusted files, so they run confined (`ingest/tools.py`): the real programs see
none of the secrets in our environment, LibreOffice loads nothing a document links to, a killed program leaves no
temporary file, nothing they started outlives the parsing child, conversion and OCR share one time budget, and OCR
reads only OCR_JOBS pages at a time."""

import http.server
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

import psutil
import pytest
from pypdf import PdfReader

from ingest.conversion import convert_to_pdf
from ingest.embedding import Embedder
from ingest.formats import Kind
from ingest.isolation import Limits, run_isolated
from ingest.ocr import ocr_pages
from ingest.pdf_reader import UnusableFile
from ingest.pipeline import Reading, read_pdf
from ingest.run_job import Ingestion
from ingest.search.embedded import EmbeddedIndex
from ingest.settings import IngestSettings
from tests.ingest.parsing.test_scans_and_word_files import needs_libreoffice, needs_ocr
from tests.ingest.real_files import SAMPLES, scanned_copy, scanned_word_file, word_procedure

# A distinct value per secret the services hold, to find it wherever it ends up.
SECRETS = {
    "DATABASE_URL": "postgresql+psycopg://vraagbaak:db-geheim-46a1@postgres/vraagbaak",
    "WEAVIATE_API_KEY": "weaviate-geheim-46b2",
    "SECRET_KEY": "sessie-geheim-46c3",
    "WORKER_TOKEN": "worker-geheim-46d4",
    "OIDC_CLIENT_SECRET": "oidc-geheim-46e5",
}
TOOL_PROCESSES = {"soffice.bin", "oosplash", "ocrmypdf", "tesseract", "gs"}
SAMPLE_SECONDS = 0.02


@pytest.fixture
def secrets_in_our_environment(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    return SECRETS


def _descendants() -> list[psutil.Process]:
    return psutil.Process().children(recursive=True)


def _sampled_while(work: Callable[[], object]) -> tuple[dict[int, tuple[str, dict[str, str]]], list[int]]:
    """Run `work` on a thread while sampling every tool process it starts: each one's name and environment as
    the kernel holds it (/proc/<pid>/environ; empty for a moment while a process execs), and how many OCR page
    processes (tesseract, gs) ran at once. A process forked from ours that has not yet become the tool is ours,
    not the tool's, and is not sampled."""
    seen: dict[int, tuple[str, dict[str, str]]] = {}
    at_once: list[int] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as error:  # re-raised in the test
            errors.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    while thread.is_alive():
        pages = 0
        for process in _descendants():
            try:
                name, environment = process.name(), process.environ()
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue
            if name in TOOL_PROCESSES and environment:
                seen[process.pid] = (name, environment)
            pages += name in ("tesseract", "gs")
        at_once.append(pages)
        time.sleep(SAMPLE_SECONDS)
    thread.join()
    if errors:
        raise errors[0]
    return seen, at_once


def _holding_a_secret(seen: dict[int, tuple[str, dict[str, str]]]) -> dict[str, list[str]]:
    """Each process that holds a secret, by its variable's name or in any value, with those variables."""
    found = {}
    for pid, (name, environment) in seen.items():
        holding = sorted(
            variable
            for variable, value in environment.items()
            if variable in SECRETS or any(secret in value for secret in SECRETS.values())
        )
        if holding:
            found[f"{name} ({pid})"] = holding
    return found


@needs_libreoffice
def test_libreoffice_sees_none_of_the_secrets_in_our_environment(
    secrets_in_our_environment: dict[str, str], tmp_path: Path
) -> None:
    word = word_procedure(tmp_path / "procedure.docx")
    scratch = tmp_path / "scratch"

    seen, _ = _sampled_while(lambda: convert_to_pdf(word, Kind.docx, scratch, 300))

    names = {name for name, _ in seen.values()}
    assert "soffice.bin" in names, names  # the converter itself was seen running
    assert _holding_a_secret(seen) == {}
    office = [environment for name, environment in seen.values() if name == "soffice.bin"]
    assert {(environment["HOME"], str(Path(environment["TMPDIR"]).parent)) for environment in office} == {
        (str(scratch), str(scratch))
    }


@needs_ocr
def test_ocrmypdf_tesseract_and_ghostscript_see_none_of_the_secrets(
    secrets_in_our_environment: dict[str, str], tmp_path: Path
) -> None:
    scan = scanned_copy(SAMPLES / "bloedafname.pdf", tmp_path / "scan.pdf", pages=1)
    scratch = tmp_path / "scratch"

    seen, _ = _sampled_while(
        lambda: ocr_pages(
            scan, [1], scratch=scratch, language="nld", max_pages=1, jobs=1, deadline=time.monotonic() + 300
        )
    )

    names = {name for name, _ in seen.values()}
    assert {"ocrmypdf", "tesseract"} <= names, names
    assert _holding_a_secret(seen) == {}
    assert all(
        Path(environment["TMPDIR"]).parent == scratch
        for name, environment in seen.values()
        if name in TOOL_PROCESSES
    )


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Records every request (what LibreOffice would fetch for a document) and answers 404."""

    requests: ClassVar[list[str]]

    def do_GET(self) -> None:
        self._record()

    def do_OPTIONS(self) -> None:
        self._record()

    def do_HEAD(self) -> None:
        self._record()

    def _record(self) -> None:
        self.requests.append(f"{self.command} {self.path}")
        self.send_error(404)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def _server_that_records_requests() -> Iterator[tuple[str, list[str]]]:
    requests: list[str] = []
    handler = type("Handler", (_Recorder,), {"requests": requests})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requests
    finally:
        server.shutdown()
        server.server_close()


def _linking_odt(out: Path, image_url: str, section_file: Path) -> Path:
    """An OpenDocument text whose image is linked from `image_url` and whose last section is linked to a file."""
    content = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:xlink="http://www.w3.org/1999/xlink"
 xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.3">
<office:body><office:text>
<text:p>Procedure wondzorg met een gekoppelde afbeelding.</text:p>
<text:p><draw:frame draw:name="logo" svg:width="2cm" svg:height="2cm" text:anchor-type="as-char">
<draw:image xlink:href="{image_url}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/>
</draw:frame></text:p>
<text:section text:name="bijlage"><text:section-source xlink:href="{section_file.as_uri()}" xlink:type="simple"
 text:filter-name="Text"/><text:p>Bijlage volgt.</text:p></text:section>
</office:text></office:body></office:document-content>"""
    manifest = """<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">
<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>
<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
</manifest:manifest>"""
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        archive.writestr("content.xml", content)
        archive.writestr("META-INF/manifest.xml", manifest)
    return out


@needs_libreoffice
def test_libreoffice_loads_nothing_a_document_links_to(tmp_path: Path) -> None:
    """A document could otherwise make the converter fetch from the hospital's network, or copy a server's file
    into the PDF that gets indexed and shown."""
    local_file = tmp_path / "op-de-server.txt"
    local_file.write_text("Inhoud van een bestand op de server.\n")
    with _server_that_records_requests() as (url, requests):
        document = _linking_odt(tmp_path / "procedure.odt", f"{url}/logo.png", local_file)

        converted = convert_to_pdf(document, Kind.odt, tmp_path / "scratch", 300)

    text = PdfReader(converted).pages[0].extract_text()
    assert "Procedure wondzorg met een gekoppelde afbeelding." in text
    assert "op de server" not in text
    assert requests == []


def _scan_of_pages(out: Path, count: int) -> Path:
    """A scan of `count` pages of procedure text (the sample procedures' pages, repeated), slow to OCR."""
    pages = [page.images[0].image for page in PdfReader(scanned_copy(SAMPLES / "handhygiene.pdf", out)).pages]
    chosen = [pages[number % len(pages)] for number in range(count)]
    chosen[0].save(out, save_all=True, append_images=chosen[1:], resolution=200)
    return out


def _tool_processes_in(folder: Path) -> list[str]:
    """Live processes whose environment points into `folder` (a tool's HOME or TMPDIR there)."""
    found = []
    for process in psutil.process_iter():
        try:
            if process.status() == psutil.STATUS_ZOMBIE:
                continue
            if any(value.startswith(str(folder)) for value in process.environ().values()):
                found.append(f"{process.name()} ({process.pid})")
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


@needs_ocr
def test_a_tool_killed_at_its_deadline_leaves_no_temporary_file_and_no_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    system_temporary = tmp_path / "tmp"
    system_temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(system_temporary))
    scan = _scan_of_pages(tmp_path / "scan.pdf", 8)
    scratch = tmp_path / "scratch"

    result = ocr_pages(
        scan,
        list(range(1, 9)),
        scratch=scratch,
        language="nld",
        max_pages=8,
        jobs=1,
        deadline=time.monotonic() + 5,
    )

    assert result.unread == dict.fromkeys(range(1, 9), "de tijd voor OCR was op (PARSE_TIMEOUT_SECONDS)")
    assert list(system_temporary.iterdir()) == []
    assert list(scratch.iterdir()) == []
    assert _tool_processes_in(tmp_path) == []


@needs_ocr
def test_what_the_tools_started_dies_with_a_parsing_child_killed_at_its_timeout(tmp_path: Path) -> None:
    """The job kills the child with SIGKILL: OCRmyPDF dies with it, and so do the tesseract and gs it started."""
    scan = _scan_of_pages(tmp_path / "scan.pdf", 8)
    reading = Reading(
        tmp_path / "scratch", budget_seconds=600
    )  # the tools would run past the child's timeout
    outcome: list[str] = []

    def parse() -> None:
        with pytest.raises(UnusableFile) as refused:
            run_isolated(
                read_pdf,
                (scan, 10**9, 100, None, frozenset(), None, reading),
                Limits(timeout_seconds=8, memory_mb=2048),
                lambda: None,
            )
        outcome.append(str(refused.value))

    seen, _ = _sampled_while(parse)

    assert outcome == ["lezen duurde te lang (langer dan 8 seconden): afgebroken"]
    assert {"ocrmypdf", "tesseract"} & {name for name, _ in seen.values()}, (
        "OCR was running when it was killed"
    )
    assert _tool_processes_in(tmp_path) == []


@needs_ocr
@needs_libreoffice
def test_conversion_and_ocr_share_one_time_budget(tmp_path: Path) -> None:
    """A Word file of scanned pages: what conversion took is gone from OCR's time (conversion and OCR together
    stay within the budget, so the parsing child is not killed first and the job can say which pages OCR left)."""
    word = scanned_word_file(_scan_of_pages(tmp_path / "scan.pdf", 8), tmp_path / "formulier.docx")
    started = time.monotonic()
    convert_to_pdf(word, Kind.docx, tmp_path / "alone", 300)
    conversion = time.monotonic() - started
    budget = conversion + 6

    started = time.monotonic()
    with pytest.raises(UnusableFile, match=r"de tijd voor OCR was op"):
        read_pdf(
            word, 10**9, 100, None, frozenset(), None, Reading(tmp_path / "scratch", budget_seconds=budget)
        )
    elapsed = time.monotonic() - started

    assert elapsed < budget + conversion / 2, (elapsed, budget, conversion)


@needs_ocr
def test_ocr_reads_only_ocr_jobs_pages_at_a_time(
    ingest_settings: IngestSettings, index: EmbeddedIndex, minilm: Embedder, tmp_path: Path
) -> None:
    """Each page process may take PARSE_MEMORY_MB: OCR_JOBS bounds how many run at once, whatever the cores."""
    scan = _scan_of_pages(tmp_path / "scan.pdf", 4)
    settings = ingest_settings.model_copy(update={"ocr_jobs": 1})

    seen, at_once = _sampled_while(lambda: Ingestion(settings, index, lambda: minilm).ingest([scan]))

    assert {"tesseract", "gs"} <= {name for name, _ in seen.values()}
    assert max(at_once) == 1
