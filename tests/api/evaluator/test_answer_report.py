"""The answer report's page: each share a bar, each question's verdict in colour and in words, the sentences not
found in the sources marked, readable at 1366 px in a real Chromium without sideways scrolling."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from api.evaluator.answer_quality import AnswerObservation
from api.evaluator.answer_report import Verdict, answer_report_html, verdict, write_answer_report
from api.models import MessageState

REPO_ROOT = Path(__file__).resolve().parents[3]
FRONTEND = REPO_ROOT / "frontend"
CHROMIUM = Path("/usr/bin/chromium")
LONG = "Controleer de INR-waarde binnen twee weken na het starten van het nieuwe geneesmiddel. " * 6
UNBROKEN = "https://intranet.ziekenhuis.example/procedures/antistolling/" + "x" * 160


def observation(
    answerable: bool, state: MessageState, has_fact: bool | None = None, answer: str = "Antwoord."
) -> AnswerObservation:
    return AnswerObservation(
        "hoeveel alcohol max per dag bij antistolling",
        answerable,
        "1 tot 2 glazen per dag" if answerable else None,
        state=state.value,
        answer=answer,
        answer_has_fact=has_fact,
        quote="Probeer uw alcoholgebruik bij 1 tot 2 glazen per dag te houden.",
    )


@pytest.mark.parametrize(
    ("answerable", "state", "has_fact", "expected"),
    [
        (True, MessageState.answered, True, Verdict.RIGHT),
        (True, MessageState.answered, False, Verdict.MISSES_FACT),
        (True, MessageState.not_found, False, Verdict.REFUSED),
        (False, MessageState.not_found, None, Verdict.RIGHTLY_NOT_FOUND),
        (False, MessageState.answered, None, Verdict.ANSWERED_UNANSWERABLE),
        (True, MessageState.failed, None, Verdict.UNFINISHED),
        (True, MessageState.stopped, None, Verdict.UNFINISHED),
    ],
)
def test_each_answer_gets_a_verdict_from_its_state_and_key_fact(
    answerable: bool, state: MessageState, has_fact: bool | None, expected: Verdict
) -> None:
    assert verdict(observation(answerable, state, has_fact)) is expected


def observations() -> list[AnswerObservation]:
    flagged = "Drink hoogstens 4 glazen per dag. "
    answered = observation(True, MessageState.answered, False, flagged + LONG + UNBROKEN)
    answered.support = [
        {"start": 0, "end": len(flagged) - 1, "supported": False},
        {"start": len(flagged), "end": len(flagged) + len(LONG) - 1, "supported": True},
    ]
    answered.sentences, answered.supported, answered.flagged = 2, 1, 1
    return [
        observation(True, MessageState.answered, True, "1 tot 2 glazen per dag."),
        answered,
        observation(True, MessageState.not_found, False),
        observation(False, MessageState.not_found),
    ]


def test_the_page_shows_each_share_as_a_bar_and_each_verdict_in_words_and_colour() -> None:
    page = answer_report_html("Echte testvragen", observations(), ["Generator: Qwen2.5-Coder-1.5B-Instruct."])

    bar = re.search(
        r"Gegenereerd antwoord geeft het kernfeit, ook in eigen woorden</span>\s*<div class=\"bar\"[^>]*><span class=\"high-good\" style=\"width:(\d+\.\d)%\"",
        page,
    )
    assert bar is not None and bar.group(1) == "33.3"  # 1 of the 3 answerable
    assert page.count('<span class="badge good">juist</span>') == 2  # legend and the question
    assert '<span class="badge bad">kernfeit ontbreekt</span>' in page
    assert '<span class="badge neutral">geweigerd</span>' in page
    assert '<span class="badge good">terecht niet gevonden</span>' in page
    assert '<mark title="niet gevonden in de bronnen">Drink hoogstens 4 glazen per dag.</mark>' in page


def test_the_files_carry_each_questions_verdict(tmp_path: Path) -> None:
    csv_path, json_path, _ = write_answer_report("set", observations(), [], tmp_path)

    rows = json.loads(json_path.read_text(encoding="utf-8"))["questions"]
    assert [row["verdict"] for row in rows] == [
        "juist",
        "kernfeit ontbreekt",
        "geweigerd",
        "terecht niet gevonden",
    ]
    assert "verdict" in csv_path.read_text(encoding="utf-8").splitlines()[0]


@pytest.mark.skipif(
    not (CHROMIUM.is_file() and shutil.which("node") and (FRONTEND / "node_modules" / "axe-core").is_dir()),
    reason="needs Debian's chromium, node and the front-end's packages (make chromium frontend)",
)
def test_the_page_fits_1366_pixels_and_has_no_serious_accessibility_violation(tmp_path: Path) -> None:
    _, _, page = write_answer_report(
        "Echte testvragen", observations() * 20, ["Een lange noot. " * 40], tmp_path
    )

    shown = subprocess.run(
        ["node", "e2e/report-page.mjs", str(page), str(tmp_path / "answers.png")],
        cwd=FRONTEND,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )

    assert shown.returncode == 0, shown.stderr
    measured = json.loads(shown.stdout.strip().splitlines()[-1])
    assert measured["scrollWidth"] <= measured["innerWidth"] == 1366
    assert measured["violations"] == []
