"""Convert the offline models into the cache once, and report what the cache holds.

A model is rebuilt only when its entry is missing, incomplete, built from other package versions or by
another converter version (or, with `verify`, when a file's sha256 no longer matches).
"""

import logging
import time
from collections.abc import Iterable
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


def provision(specs: Iterable[ModelSpec], cache_dir: Path, verify: bool = False) -> list[ProvisionResult]:
    """Make every model in `specs` ready in `cache_dir`; stop at the first model that cannot be built."""
    with cache_lock(cache_dir):
        remove_stale_temp_folders(cache_dir)
        return [_provision_one(spec, cache_dir, verify) for spec in specs]


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


def _provision_one(spec: ModelSpec, cache_dir: Path, verify: bool) -> ProvisionResult:
    folder = cache_dir / folder_name(spec.name)
    started = time.perf_counter()
    status = model_status(spec, cache_dir, verify)
    if status is Status.PACKAGE_MISSING:
        log.warning("%s: keeping %s; its source packages are no longer installed", spec.name, folder)
    if status in (Status.READY, Status.PACKAGE_MISSING):
        log.debug("%s: up to date in %s", spec.name, folder)
        return ProvisionResult(spec.name, folder, converted=False, seconds=time.perf_counter() - started)
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
