"""`python -m ingest run|status|list|delete` as an admin uses it: summaries, exit codes, clear errors."""

from pathlib import Path

import pytest

from ingest.cli import main
from ingest.settings import IngestSettings
from tests.ingest.ingest_pdfs import scanned_pdf


@pytest.mark.usefixtures("environment")
def test_run_then_list_status_and_delete(procedures: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(procedures)]) == 0
    assert "3 files: 3 indexed, 0 skipped, 0 failed" in capsys.readouterr().out

    assert main(["list"]) == 0
    listing = capsys.readouterr().out
    assert "Koorts bij kinderen" in listing and "3 documents" in listing
    document_id = listing.split()[0]

    assert main(["status"]) == 0
    assert "finished" in capsys.readouterr().out
    assert main(["status", "1"]) == 0
    assert "indexed" in capsys.readouterr().out

    assert main(["delete", document_id]) == 0
    main(["list"])
    assert "2 documents" in capsys.readouterr().out


@pytest.mark.usefixtures("environment")
def test_a_failed_file_is_listed_in_the_summary_and_the_exit_status_is_nonzero(
    procedures: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scan = scanned_pdf(tmp_path / "scan.pdf")

    assert main(["run", str(procedures), str(scan)]) == 1

    output = capsys.readouterr().out
    assert "3 indexed, 0 skipped, 1 failed" in output
    assert f"FAILED {scan}: geen tekstlaag" in output


@pytest.mark.usefixtures("environment", "index")
def test_unknown_documents_and_jobs_are_clear_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["delete", "bestaat-niet"]) == 2
    assert "no document with id or path 'bestaat-niet'" in capsys.readouterr().err
    assert main(["status", "999"]) == 2
    assert "job 999 does not exist" in capsys.readouterr().err


@pytest.mark.usefixtures("environment")
def test_run_prune_names_the_withdrawn_documents_and_list_no_longer_shows_them(
    procedures: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(procedures)]) == 0
    (procedures / "wondzorg.pdf").unlink()
    capsys.readouterr()

    assert main(["run", str(procedures), "--prune"]) == 0

    output = capsys.readouterr().out
    assert "1 withdrawn" in output
    assert f"WITHDRAWN Wondzorg na een operatie ({procedures / 'wondzorg.pdf'})" in output
    main(["list"])
    listing = capsys.readouterr().out
    assert "2 documents" in listing and "Wondzorg" not in listing
    main(["status", "2"])
    assert f"withdrawn {procedures / 'wondzorg.pdf'}: ingetrokken" in capsys.readouterr().out


@pytest.mark.usefixtures("environment")
def test_run_without_prune_keeps_a_removed_file_listed(
    procedures: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["run", str(procedures)])
    (procedures / "wondzorg.pdf").unlink()

    assert main(["run", str(procedures)]) == 0

    assert "withdrawn" not in capsys.readouterr().out
    main(["list"])
    assert "3 documents" in capsys.readouterr().out


@pytest.mark.usefixtures("environment")
def test_run_prune_on_a_missing_folder_says_why_and_removes_nothing(
    procedures: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["run", str(procedures)])
    procedures.rename(tmp_path / "elders")
    capsys.readouterr()

    # the job itself fails the missing path, as it does without --prune
    assert main(["run", str(procedures), "--prune"]) == 1

    output = capsys.readouterr().out
    assert "0 withdrawn" in output
    assert f"NOT PRUNED {procedures}: bestaat niet" in output
    main(["list"])
    assert "3 documents" in capsys.readouterr().out


@pytest.mark.usefixtures("environment")
def test_prune_without_paths_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--prune"]) == 2
    assert "--prune needs the folders to prune" in capsys.readouterr().err


def test_the_help_explains_prune(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])

    assert "--prune" in capsys.readouterr().out


@pytest.mark.usefixtures("environment")
@pytest.mark.parametrize("command", [["list"], ["delete", "0123456789ab"]])
def test_a_read_only_command_refuses_a_missing_index_instead_of_creating_one(
    command: list[str],
    ingest_settings: IngestSettings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    mistyped = tmp_path / "indx"
    monkeypatch.setenv("INDEX_DIR", str(mistyped))

    assert main(command) == 2

    assert f"no search index in {mistyped}" in capsys.readouterr().err
    assert not mistyped.exists()
