"""The three roles do their whole job in a real browser (Debian's Chromium, driven by playwright-core) against the
real API and a real worker with the tiny model: `frontend/e2e/run.mjs` walks the steps, screenshots each into
`frontend/e2e/artifacts/`, and checks what the database stored through the API."""

import csv
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from api.bench.loopback import REPO_ROOT, api_process, worker_process

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
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The embedded mode: SQLite, the embedded index holding the samples, the built front-end, one worker."""
    _require_built_frontend()
    data = tmp_path_factory.mktemp("e2e")
    settings = {
        "DATABASE_URL": f"sqlite:///{data / 'vraagbaak.db'}",
        "INDEX_DIR": str(data / "index"),
        "UPLOAD_DIR": str(data / "uploads"),
        "REPORT_DIR": str(data / "reports"),
        "EMBEDDING_MODEL": FAST_EMBEDDER,
        "FRONTEND_DIR": str(FRONTEND / "dist"),
    }
    _run(["-m", "api", "migrate"], settings)
    _run(["-m", "ingest", "run", "samples/documents"], settings)
    _run(
        ["-m", "api", "users", "add", USER, "--role", "clinician", "--role", "admin", "--role", "evaluator"],
        settings,
        f"{PASSWORD}\n",
    )
    with (
        worker_process(data / "worker.log") as worker,
        api_process(data / "api.log", WORKER_URLS=worker, **settings) as api,
    ):
        yield api


def test_clinician_admin_and_evaluator_do_their_job_in_the_browser(app_url: str, tmp_path: Path) -> None:
    new_pdf, broken_pdf = tmp_path / "wondzorg.pdf", tmp_path / "kapot.pdf"
    _write_procedure_pdf(new_pdf)
    broken_pdf.write_bytes(b"%PDF-1.7\nthis file was cut off before its first object\n")
    artifacts = FRONTEND / "e2e" / "artifacts"
    shutil.rmtree(artifacts, ignore_errors=True)
    environment = {
        **os.environ,
        "E2E_BASE_URL": app_url,
        "E2E_USER": USER,
        "E2E_PASSWORD": PASSWORD,
        "E2E_NEW_PDF": str(new_pdf),
        "E2E_BROKEN_PDF": str(broken_pdf),
        "E2E_QUESTIONS_CSV": str(REPO_ROOT / "samples" / "questions.csv"),
        "E2E_ARTIFACTS": str(artifacts),
        "CHROMIUM": str(CHROMIUM),
    }
    walk = subprocess.run(
        ["node", "e2e/run.mjs"],
        cwd=FRONTEND,
        env=environment,
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )

    print(walk.stdout)
    assert walk.returncode == 0, f"{walk.stdout}\n{walk.stderr}\nscreenshots: {artifacts}"
    assert (artifacts / "chat-with-highlighted-source.png").is_file()


def test_clinician_sees_the_quote_citations_and_flagged_sentences(app_url: str) -> None:
    """Issue 21: `frontend/e2e/answers-ui.mjs` checks that each answer starts with the stored quote (or says there is
    none), that the quote and a citation open the PDF with exactly their sentence highlighted, and that a generated
    sentence the sources do not hold is visibly flagged."""
    artifacts = FRONTEND / "e2e" / "artifacts" / "answers-ui"
    shutil.rmtree(artifacts, ignore_errors=True)
    environment = {
        **os.environ,
        "E2E_BASE_URL": app_url,
        "E2E_USER": USER,
        "E2E_PASSWORD": PASSWORD,
        "E2E_ARTIFACTS": str(artifacts),
        "CHROMIUM": str(CHROMIUM),
    }
    walk = subprocess.run(
        ["node", "e2e/answers-ui.mjs"],
        cwd=FRONTEND,
        env=environment,
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )

    print(walk.stdout)
    assert walk.returncode == 0, f"{walk.stdout}\n{walk.stderr}\nscreenshots: {artifacts}"
    for shot in ["quote-highlighted.png", "citation-highlighted.png", "flagged-sentence.png"]:
        assert (artifacts / shot).is_file()


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
            [*rows, ["Protocol dat niet bestaat?", "onbekend-protocol.pdf"]]
        )
    artifacts = FRONTEND / "e2e" / "artifacts" / "screen-pages"
    shutil.rmtree(artifacts, ignore_errors=True)
    environment = {
        **os.environ,
        "E2E_BASE_URL": app_url,
        "E2E_USER": USER,
        "E2E_PASSWORD": PASSWORD,
        "E2E_NEW_PDF": str(new_pdf),
        "E2E_BAD_FILE": str(bad_file),
        "E2E_SEMICOLON_CSV": str(excel_csv),
        "E2E_ARTIFACTS": str(artifacts),
        "CHROMIUM": str(CHROMIUM),
    }
    walk = subprocess.run(
        ["node", "e2e/screen-pages.mjs"],
        cwd=FRONTEND,
        env=environment,
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )

    print(walk.stdout)
    assert walk.returncode == 0, f"{walk.stdout}\n{walk.stderr}\nscreenshots: {artifacts}"
    assert (artifacts / "08-phone-report-page-in-dutch.png").is_file()
