"""The three roles do their whole job in a real browser (Debian's Chromium, driven by playwright-core) against the
real API and a real worker with the tiny model: `frontend/e2e/run.mjs` walks the steps, screenshots each into
`frontend/e2e/artifacts/`, and checks what the database stored through the API."""

import csv
import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from research.loopback import REPO_ROOT, api_process, report_runner_process, worker_process

FRONTEND = REPO_ROOT / "frontend"
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
USER, PASSWORD = "e2e-arts", "een-lang-wachtwoord-voor-e2e"
FAST_EMBEDDER = "sentence-transformers/all-MiniLM-L6-v2"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


def _require_built_frontend() -> None:
    """`make test` builds the front-end and installs Chromium before pytest; a bare pytest run says what is missing."""
    missing = [
        what
        for what, present in [
            ("frontend/dist (run `make frontend`)", (FRONTEND / "dist" / "index.html").is_file()),
            (
                "frontend/node_modules (run `make frontend`)",
                (FRONTEND / "node_modules" / "playwright-core").is_dir(),
            ),
            (f"{CHROMIUM} (run `make chromium`)", CHROMIUM.is_file()),
            ("node", shutil.which("node") is not None),
        ]
        if not present
    ]
    if missing:
        pytest.fail("the browser tests need " + ", ".join(missing))


def _write_procedure_pdf(path: Path) -> None:
    pdf = canvas.Canvas(str(path), pagesize=A4)
    pdf.setFont("Helvetica-Bold", 16)
    pdf.drawString(72, 780, "Procedure wondzorg na een operatie")
    pdf.setFont("Helvetica", 11)
    lines = [
        "Het verband blijft de eerste 48 uur dicht, tenzij het doorlekt.",
        "Controleer de wonde dagelijks op roodheid, zwelling en pijn.",
        "Verwissel het verband met steriele handschoenen en noteer de wondzorg in het dossier.",
    ]
    for number, line in enumerate(lines):
        pdf.drawString(72, 740 - 18 * number, line)
    pdf.save()


def _run(arguments: list[str], environment: dict[str, str], stdin: str | None = None) -> None:
    result = subprocess.run(
        [sys.executable, *arguments],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT), **environment},
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, f"{arguments}: {result.stdout[-2000:]}{result.stderr[-2000:]}"


@pytest.fixture(scope="module")
def e2e_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One worker with the tiny model for every walk: it keeps no state between answers."""
    with worker_process(tmp_path_factory.mktemp("e2e-worker") / "worker.log") as worker:
        yield worker


@pytest.fixture(scope="module")
def sample_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded mode's data as a walk starts it: the schema, the sample procedures indexed, the walker's account
    (every role); each walk gets its own copy."""
    _require_built_frontend()
    data = tmp_path_factory.mktemp("e2e-samples")
    settings = _data_settings(data)
    _run(["-m", "api", "migrate"], settings)
    _run(["-m", "ingest", "run", "samples/documents"], settings)
    _run(
        ["-m", "api", "users", "add", USER, "--role", "clinician", "--role", "admin", "--role", "evaluator"],
        settings,
        f"{PASSWORD}\n",
    )
    return data


def _data_settings(data: Path) -> dict[str, str]:
    return {
        "DATABASE_URL": f"sqlite:///{data / 'vraagbaak.db'}",
        "INDEX_DIR": str(data / "index"),
        "UPLOAD_DIR": str(data / "uploads"),
        "REPORT_DIR": str(data / "reports"),
        "EMBEDDING_MODEL": FAST_EMBEDDER,
        "FRONTEND_DIR": str(FRONTEND / "dist"),
    }


@pytest.fixture
def app_url(e2e_worker: str, sample_data: Path, tmp_path: Path) -> Iterator[str]:
    """The embedded mode: SQLite, the embedded index holding the samples, the built front-end, the worker, the report
    runner; the database, index and uploads fresh per walk, so no walk reads another's conversations, uploads or
    reports."""
    data = tmp_path / "app"
    shutil.copytree(sample_data, data)
    settings = _data_settings(data)
    with (
        api_process(data / "api.log", WORKER_URLS=e2e_worker, **settings) as api,
        report_runner_process(data / "reports.log", **settings),
    ):
        yield api


def _walk(script: str, app_url: str, artifacts: Path, **settings: str) -> None:
    """Runs `frontend/e2e/<script>` against the app; a failed check fails the test with the walk's output."""
    environment = {
        **os.environ,
        "E2E_BASE_URL": app_url,
        "E2E_USER": USER,
        "E2E_PASSWORD": PASSWORD,
        "E2E_ARTIFACTS": str(artifacts),
        "CHROMIUM": str(CHROMIUM),
        **settings,
    }
    walk = subprocess.run(
        ["node", f"e2e/{script}"],
        cwd=FRONTEND,
        env=environment,
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )
    print(walk.stdout)
    assert walk.returncode == 0, f"{walk.stdout}\n{walk.stderr}\nscreenshots: {artifacts}"


def test_clinician_admin_and_evaluator_do_their_job_in_the_browser(app_url: str, tmp_path: Path) -> None:
    new_pdf, broken_pdf = tmp_path / "wondzorg.pdf", tmp_path / "kapot.pdf"
    _write_procedure_pdf(new_pdf)
    broken_pdf.write_bytes(b"%PDF-1.7\nthis file was cut off before its first object\n")
    artifacts = FRONTEND / "e2e" / "artifacts"
    shutil.rmtree(artifacts, ignore_errors=True)
    _walk(
        "run.mjs",
        app_url,
        artifacts,
        E2E_NEW_PDF=str(new_pdf),
        E2E_BROKEN_PDF=str(broken_pdf),
        E2E_QUESTIONS_CSV=str(REPO_ROOT / "samples" / "questions.csv"),
    )
    assert (artifacts / "chat-with-highlighted-source.png").is_file()


def test_clinician_sees_the_quote_citations_and_flagged_sentences(app_url: str) -> None:
    """Issue 21: `frontend/e2e/answers-ui.mjs` checks that each answer starts with the stored quote (or says there is
    none), that the quote and a citation open the PDF with exactly their sentence highlighted, and that a generated
    sentence the sources do not hold is visibly flagged."""
    artifacts = FRONTEND / "e2e" / "artifacts" / "answers-ui"
    shutil.rmtree(artifacts, ignore_errors=True)
    _walk("answers-ui.mjs", app_url, artifacts)
    for shot in ["quote-highlighted.png", "citation-highlighted.png", "flagged-sentence.png"]:
        assert (artifacts / shot).is_file()


ACROSS_FOOTER = "Ziekenhuis Noord | Protocol zuurstoftoediening op de verpleegafdeling 2025"
ACROSS_PAGES = [
    "De verpleegkundige controleert de zuurstofcilinder voor elk transport op druk en lekkage. Een volle cilinder "
    "heeft een druk van tweehonderd bar; vervang hem onder de vijftig bar. Noteer de druk op de transportlijst en "
    "neem altijd een reservecilinder mee op de afdeling. Bewaar cilinders rechtop in het rek, ver van open vuur, olie "
    "en vet, en sluit de kraan na gebruik. De neusbril geeft een tot vier liter zuurstof per minuut; gebruik bij meer "
    "dan vier liter een masker. Bevochtig de zuurstof alleen bij een stroom boven vier liter of bij klachten van een "
    "droge neus. Meet de saturatie ieder uur bij een nieuwe patient en daarna volgens de afspraak met de arts. Streef "
    "bij longpatienten met COPD naar een saturatie tussen achtentachtig en tweeennegentig procent. Verhoog de zuurstof "
    "nooit zonder overleg wanneer de patient suf of verward wordt: bel de arts. Controleer de huid achter de oren en op "
    "de neusbrug dagelijks op drukplekken door de slangetjes. Vervang de neusbril en de slang elke week, en direct "
    "wanneer ze vuil of beschadigd zijn. Leg de patient en de familie uit dat roken en open vuur in de kamer streng "
    "verboden zijn. Hang het bordje zuurstof in gebruik op de deur van de kamer zolang de zuurstof aangesloten is. Bij "
    "het afbouwen van de zuurstof verlaagt de verpleegkundige de stroom stap voor stap met een liter. Na elke stap "
    "volgt na een kwartier een nieuwe meting van de saturatie en de ademhalingsfrequentie. Blijft de saturatie ook "
    "zonder zuurstof een dag lang boven de streefwaarde, dan stopt de behandeling.",
    "Het noodprotocol bij een lege wandaansluiting begint met de reservecilinder naast het bed aansluiten. Meld de "
    "storing direct bij de technische dienst via het storingsnummer op de zuurstofkast van de gang. Controleer binnen "
    "vijf minuten opnieuw de saturatie van alle patienten die aan de wand zijn aangesloten. De afdelingsarts beslist "
    "daarna of een patient tijdelijk naar een andere afdeling moet verhuizen. Schrijf het voorval als incident in het "
    "meldsysteem, met het tijdstip en de genomen maatregelen. Bespreek het incident binnen een week in het "
    "teamoverleg van de afdeling.",
]


def _write_across_pdf(path: Path) -> None:
    """Two pages with the same running footer: page 1 holds several passages (several on one page), and the
    passage after it starts with page 1's footer (two pages are too few for ingestion to call it running) and goes
    on with page 2's text, as the issue's pp. 19-20 did."""
    pdf = canvas.Canvas(str(path), pagesize=A4)
    for number, text in enumerate(ACROSS_PAGES, start=1):
        if number == 1:
            pdf.setFont("Helvetica-Bold", 15)
            pdf.drawString(72, 780, "Zuurstoftoediening op de verpleegafdeling")
        pdf.setFont("Helvetica", 11)
        for row, line in enumerate(textwrap.wrap(text, 80)):
            pdf.drawString(72, 750 - 16 * row, line)
        pdf.setFont("Helvetica", 9)
        pdf.drawString(72, 40, ACROSS_FOOTER)
        pdf.showPage()
    pdf.save()


class _LoadingWorker(BaseHTTPRequestHandler):
    """A worker whose model is still loading, as docs/worker.md says it answers then (the state right after a
    restart; the real worker leaves it after seconds, too soon to test against)."""

    def do_GET(self) -> None:
        self._answer({"status": "loading", "queue_depth": 0, "queue_limit": 4})

    def do_POST(self) -> None:
        self._answer({"detail": "the model is still loading"})

    def _answer(self, body: dict[str, object]) -> None:
        data = json.dumps(body).encode()
        self.send_response(503)
        self.send_header("Content-Type", "application/json")
        self.send_header("Retry-After", "5")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_: object) -> None:
        pass


@contextmanager
def _loading_worker() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _LoadingWorker)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def across_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("across") / "zuurstof.pdf"
    _write_across_pdf(path)
    return path


@pytest.fixture(scope="module")
def loading_app_url(tmp_path_factory: pytest.TempPathFactory, across_pdf: Path) -> Iterator[str]:
    """A second API right after a restart: its only worker still loads; the 2-page PDF is its index."""
    data = tmp_path_factory.mktemp("e2e-loading")
    settings = _data_settings(data)
    _run(["-m", "api", "migrate"], settings)
    _run(["-m", "ingest", "run", str(across_pdf.parent)], settings)
    _run(["-m", "api", "users", "add", USER, "--role", "clinician"], settings, f"{PASSWORD}\n")
    with _loading_worker() as worker, api_process(data / "api.log", WORKER_URLS=worker, **settings) as api:
        yield api


def test_the_screen_never_shows_the_wrong_content(
    app_url: str, loading_app_url: str, across_pdf: Path
) -> None:
    """Issue 23: an answer stays under its own question when another conversation is opened; the viewer highlights
    the passage asked for, on the page holding it, never a running footer alone; a stop is stored as the user's; the
    first question while the model loads keeps the question and leaves no empty conversation; the viewer fits,
    zooms, keeps its title in view, takes a phone's screen and closes with Escape."""
    artifacts = FRONTEND / "e2e" / "artifacts"
    _walk(
        "screen-fixes.mjs",
        app_url,
        artifacts,
        E2E_LOADING_URL=loading_app_url,
        E2E_ACROSS_PDF=str(across_pdf),
    )


def test_the_pages_work_on_a_phone_by_keyboard_in_dutch_and_pass_axe(app_url: str, tmp_path: Path) -> None:
    """`frontend/e2e/screen-pages.mjs` at 390 px: keyboard sign-in, documents-only passages, a mixed upload, a
    semicolon-separated question set (as Dutch Excel saves it) and the Dutch report page; screenshots in
    `frontend/e2e/artifacts/screen-pages/`."""
    new_pdf, bad_file = tmp_path / "wondzorg-telefoon.pdf", tmp_path / "notities.txt"
    _write_procedure_pdf(new_pdf)
    bad_file.write_text("geen pdf, maar notities\n")
    excel_csv = tmp_path / "vragen-excel.csv"
    with (REPO_ROOT / "samples" / "questions.csv").open(newline="", encoding="utf-8") as source:
        rows = list(csv.reader(source))
    with excel_csv.open("w", newline="", encoding="utf-8-sig") as target:
        csv.writer(target, delimiter=";").writerows(
            [*rows, ["Protocol dat niet bestaat?", "onbekend-protocol.pdf", ""]]
        )
    artifacts = FRONTEND / "e2e" / "artifacts" / "screen-pages"
    shutil.rmtree(artifacts, ignore_errors=True)
    _walk(
        "screen-pages.mjs",
        app_url,
        artifacts,
        E2E_NEW_PDF=str(new_pdf),
        E2E_BAD_FILE=str(bad_file),
        E2E_SEMICOLON_CSV=str(excel_csv),
    )
    assert (artifacts / "08-phone-report-page-in-dutch.png").is_file()
