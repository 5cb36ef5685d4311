"""Provisioning the real offline models: `python -m modelstore` and the idempotent second run."""

from collections.abc import Callable
from pathlib import Path

import pytest

from modelstore.__main__ import main
from modelstore.provision import provision
from modelstore.registry import (
    ALL_MINILM_L6_V2,
    EMBEDDINGGEMMA_300M,
    QWEN25_CODER_15B_INSTRUCT,
    REGISTRY,
    select,
)


@pytest.mark.slow
def test_a_second_provision_of_the_real_models_does_nothing(
    provisioned: Callable[[str], str], model_cache: Path
) -> None:
    suite_models = select(None)
    for spec in suite_models:
        provisioned(spec.name)
    mtimes = {path: path.stat().st_mtime_ns for path in model_cache.rglob("*") if path.name != ".lock"}

    results = provision(suite_models, model_cache)

    assert not any(result.converted for result in results)
    assert {
        path: path.stat().st_mtime_ns for path in model_cache.rglob("*") if path.name != ".lock"
    } == mtimes


def test_a_plain_provision_leaves_out_the_optional_models_unless_a_setting_names_one() -> None:
    optional = {spec.name for spec in REGISTRY.values() if spec.optional}
    assert optional == {QWEN25_CODER_15B_INSTRUCT}

    plain = [spec.name for spec in select(None)]
    assert plain == [name for name in REGISTRY if name not in optional]
    assert EMBEDDINGGEMMA_300M in plain
    assert QWEN25_CODER_15B_INSTRUCT in [spec.name for spec in select(None, [QWEN25_CODER_15B_INSTRUCT])]
    assert [spec.name for spec in select([QWEN25_CODER_15B_INSTRUCT])] == [QWEN25_CODER_15B_INSTRUCT]


def test_list_shows_every_model_with_its_status_and_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["list", "--cache", str(tmp_path)]) == 0

    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(REGISTRY)
    for name, line in zip(REGISTRY, lines, strict=True):
        assert line.split()[:2] == [name, "absent"]
        assert str(tmp_path / name.replace("/", "--")) in line


def test_provision_only_converts_the_named_model_and_list_then_shows_it_ready(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["provision", "--cache", str(tmp_path), "--only", ALL_MINILM_L6_V2]) == 0
    assert main(["provision", "--cache", str(tmp_path), "--only", ALL_MINILM_L6_V2]) == 0
    assert main(["list", "--cache", str(tmp_path)]) == 0

    first, second, *listing = capsys.readouterr().out.splitlines()
    assert first.split()[:2] == [ALL_MINILM_L6_V2, "converted"]
    assert second.split()[:4] == [ALL_MINILM_L6_V2, "up", "to", "date"]
    statuses = {line.split()[0]: line.split()[1] for line in listing}
    assert statuses[ALL_MINILM_L6_V2] == "ready"
    assert [status for name, status in statuses.items() if name != ALL_MINILM_L6_V2] == ["absent"] * (
        len(REGISTRY) - 1
    )


def test_an_unusable_cache_folder_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    not_a_folder = tmp_path / "models.txt"
    not_a_folder.write_text("a file, not a folder")

    assert main(["provision", "--cache", str(not_a_folder), "--only", ALL_MINILM_L6_V2]) == 1

    assert f"error: cannot use the model cache {not_a_folder}" in capsys.readouterr().err
    assert not_a_folder.read_text() == "a file, not a folder"


def test_an_unknown_model_name_is_refused_with_the_known_names(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_status:
        main(["provision", "--only", "google/gemma-2b"])

    assert exit_status.value.code == 2
    assert "google/gemma-3-270m" in capsys.readouterr().err
