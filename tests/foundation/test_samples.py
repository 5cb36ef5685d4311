"""samples/ holds what its data files render (PDFs, sidecars, questions.csv, facts.json, README.md, byte for byte),
and a data file with a mistake in it is refused with its name and the mistake, not rendered into a wrong PDF."""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
SCRIPT = SAMPLES / "make_samples.py"
GENERATED = ("*.pdf", "*.meta.json", "questions.csv", "facts.json", "README.md")


@pytest.fixture(scope="module")
def make_samples() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_samples", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_samples"] = module
    spec.loader.exec_module(module)
    return module


def _generated(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for pattern in GENERATED
        for path in root.rglob(pattern)
        if not {"procedures", "real"} & set(path.relative_to(root).parts)  # real/ has its own script and test
    }


def test_the_committed_outputs_are_what_the_data_files_render(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path)], capture_output=True, text=True, timeout=600
    )

    assert done.returncode == 0, done.stderr
    rendered, committed = _generated(tmp_path), _generated(SAMPLES)
    assert (
        len(rendered) == 17 * 2 + 2 * 2 + 1
    )  # PDFs and sidecars, questions.csv and facts.json twice, README
    assert sorted(rendered) == sorted(committed)
    assert [name for name in rendered if rendered[name] != committed[name]] == []


def test_questions_csv_gives_each_answerable_question_its_answer_snippet() -> None:
    lines = (SAMPLES / "questions.csv").read_text(encoding="utf-8").splitlines()

    assert lines[0] == "question,relevant_documents,answer"
    assert "hoe lang handen wrijven met alcohol,handhygiene.pdf,20 tot 30 seconden" in lines
    assert lines[-1] == "streefwaarde INR bij mechanische hartklep,,"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("audience:", "auidence:"), "auidence"),
        (
            ("sentence: Laat de stuwband maximaal 1 minuut", "sentence: Laat de stuwband kort"),
            "is on pages []",
        ),
        (("## 1. Doel", "### 1. Doel"), "unsupported Markdown heading h3"),
        (("<!-- widths: ", "<!-- widths: 10 "), "widths for a table of"),
    ],
)
def test_a_procedure_with_a_mistake_is_refused_naming_the_file(
    make_samples: ModuleType, tmp_path: Path, edit: tuple[str, str], message: str
) -> None:
    text = (SAMPLES / "procedures" / "bloedafname.md").read_text(encoding="utf-8")
    assert edit[0] in text
    broken = tmp_path / "bloedafname.md"
    broken.write_text(text.replace(edit[0], edit[1]), encoding="utf-8")

    with pytest.raises(ValueError) as refused:
        make_samples.read_procedure(broken)
    assert str(broken) in str(refused.value)
    assert message in str(refused.value)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            ("  answers:\n", "  answer:\n"),
            "questions.0.answer",
        ),  # would silently make the question unanswerable
        (("handhygiene.pdf: ongeveer 3 ml", "handhygiene.pdf: 3"), "valid string"),
        (("- bloedafname\n", ""), "are not the procedures"),
    ],
)
def test_a_collection_with_a_mistake_is_refused_naming_the_file(
    make_samples: ModuleType, tmp_path: Path, edit: tuple[str, str], message: str
) -> None:
    shutil.copytree(SAMPLES / "procedures", tmp_path / "procedures")
    text = (SAMPLES / "collection.yaml").read_text(encoding="utf-8")
    assert edit[0] in text
    (tmp_path / "collection.yaml").write_text(text.replace(edit[0], edit[1], 1), encoding="utf-8")

    with pytest.raises(ValueError) as refused:
        make_samples.read_collection(tmp_path)
    assert str(tmp_path / "collection.yaml") in str(refused.value)
    assert message in str(refused.value)
