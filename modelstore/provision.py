"""Convert the offline models into the cache once, and report what the cache holds.

A model is rebuilt only when its entry is missing, incomplete, built from other package versions or by
another converter version (or, with `verify`, when a file's sha256 no longer matches). With `jobs` above 1,
that many models are converted at once, each in a process of its own (one process's converters share
transformers' lazy imports, which are not safe to run side by side).
"""

import logging
import multiprocessing
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from modelstore.cache import (
    cache_lock,
    folder_name,
    install_atomically,
    is_complete,
    read_manifest,
    remove_stale_temp_folders,
)
from modelstore.errors import ModelPackageCorrupt, ModelPackageMissing, ModelProvisioningError
from modelstore.registry import ModelSpec

log = logging.getLogger(__name__)


class Status(StrEnum):
    READY = "ready"
    OUTDATED = "outdated"
    INCOMPLETE = "incomplete"
    ABSENT = "absent"
    PACKAGE_MISSING = "package missing"


@dataclass(frozen=True)
class ProvisionResult:
    name: str
    folder: Path
    converted: bool
    seconds: float


@dataclass(frozen=True)
class ModelState:
    name: str
    purpose: str
    status: Status
    folder: Path


REPOSITORY_FILES = "repository files"
KEPT = (Status.READY, Status.PACKAGE_MISSING)  # a missing package keeps the converted model it made


def provision(
    specs: Iterable[ModelSpec], cache_dir: Path, verify: bool = False, jobs: int = 1
) -> list[ProvisionResult]:
    """Make every model in `specs` ready in `cache_dir`, converting `jobs` at a time; raise the error of the first
    model (in the order given) that cannot be built, once the conversions already running have ended."""
    with cache_lock(cache_dir):
        remove_stale_temp_folders(cache_dir)
        checked = [(spec, *_checked(spec, cache_dir, verify)) for spec in specs]
        converting = [(spec, status) for spec, status, _ in checked if status not in KEPT]
        if jobs <= 1 or len(converting) <= 1:
            return [_provision_one(spec, cache_dir, status, seconds) for spec, status, seconds in checked]
        results = _convert_in_processes(converting, cache_dir, jobs)
        converted = {spec: result for (spec, _), result in zip(converting, results, strict=True)}
        return [
            converted.get(spec) or _provision_one(spec, cache_dir, status, seconds)
            for spec, status, seconds in checked
        ]


def _checked(spec: ModelSpec, cache_dir: Path, verify: bool) -> tuple[Status, float]:
    """The model's status and the seconds it took to find."""
    started = time.perf_counter()
    return model_status(spec, cache_dir, verify), time.perf_counter() - started


def _convert_in_processes(
    specs: list[tuple[ModelSpec, Status]], cache_dir: Path, jobs: int
) -> list[ProvisionResult]:
    level = logging.getLogger("modelstore").getEffectiveLevel()
    with ProcessPoolExecutor(
        max_workers=min(jobs, len(specs)),
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_log_at,
        initargs=(level,),
    ) as pool:
        futures = [pool.submit(_convert, spec, cache_dir, status) for spec, status in specs]
        try:
            return [future.result() for future in futures]
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _log_at(level: int) -> None:
    """A conversion process reports its progress as the command that started it does."""
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logging.getLogger("modelstore").setLevel(level)


def model_states(specs: Iterable[ModelSpec], cache_dir: Path) -> list[ModelState]:
    """What the cache holds for each model, without changing anything."""
    return [
        ModelState(spec.name, spec.purpose, model_status(spec, cache_dir), cache_dir / folder_name(spec.name))
        for spec in specs
    ]


def model_status(spec: ModelSpec, cache_dir: Path, verify: bool = False) -> Status:
    """Ready only when the entry is complete and was built from the installed packages by this converter."""
    folder = cache_dir / folder_name(spec.name)
    if not folder.exists():
        return Status.ABSENT
    if not is_complete(folder, verify_checksums=verify):
        return Status.INCOMPLETE
    try:
        sources = installed_sources(spec)
    except ModelPackageMissing:
        return Status.PACKAGE_MISSING
    manifest = read_manifest(folder)
    if (
        manifest is None
        or manifest.sources != sources
        or manifest.converter_version != spec.converter_version
    ):
        return Status.OUTDATED
    return Status.READY


def installed_sources(spec: ModelSpec) -> dict[str, str]:
    """Distribution → installed version for every package of `spec` (and the repository files' version, for a
    model built from them); raises ModelPackageMissing."""
    sources = {package.distribution: package.version() for package in spec.packages}
    if spec.split is not None:
        sources.update(spec.split.sources())
    if spec.files_version is not None:
        sources[REPOSITORY_FILES] = spec.files_version()
    return sources


def _provision_one(spec: ModelSpec, cache_dir: Path, status: Status, checked_in: float) -> ProvisionResult:
    """The model kept as it is (its `status` is one of KEPT), or converted; `checked_in`: the seconds its status
    took."""
    folder = cache_dir / folder_name(spec.name)
    if status is Status.PACKAGE_MISSING:
        log.warning("%s: keeping %s; its source packages are no longer installed", spec.name, folder)
    if status in KEPT:
        log.debug("%s: up to date in %s", spec.name, folder)
        return ProvisionResult(spec.name, folder, converted=False, seconds=checked_in)
    return _convert(spec, cache_dir, status)


def _convert(spec: ModelSpec, cache_dir: Path, status: Status) -> ProvisionResult:
    """Build the model into a staging folder and move it into place (the old entry stays until then)."""
    folder = cache_dir / folder_name(spec.name)
    started = time.perf_counter()
    sources = installed_sources(spec)
    log.info(
        "%s: %s, converting from %s", spec.name, status, ", ".join(f"{n}=={v}" for n, v in sources.items())
    )
    with install_atomically(spec.name, cache_dir, sources, spec.converter_version) as staging:
        _build(spec, staging.model, staging.work)
    seconds = time.perf_counter() - started
    log.info("%s: converted in %.1f s into %s", spec.name, seconds, folder)
    return ProvisionResult(spec.name, folder, converted=True, seconds=seconds)


def _build(spec: ModelSpec, output: Path, work: Path) -> None:
    """Run the builder; any failure but a missing package is reported as a damaged package."""
    try:
        spec.build(output, work)
    except ModelProvisioningError:
        raise
    except Exception as exc:
        distributions = tuple(package.distribution for package in spec.packages)
        raise ModelPackageCorrupt(spec.name, distributions, str(exc)) from exc
