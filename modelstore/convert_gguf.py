"""Turn a GGUF causal LM into a normal transformers folder (dequantised fp32 safetensors and its tokenizer).

transformers reads GGUF itself; the converted folder keeps the tokenizer's chat template when the GGUF
carries one. Device and dtype are chosen later by whoever loads the folder.
"""

from dataclasses import dataclass
from pathlib import Path

from modelstore.errors import TokenizerMismatch


@dataclass(frozen=True)
class TokenizerProbe:
    """A text and the ids the tested conversion gives it (without special tokens)."""

    text: str
    ids: tuple[int, ...]


def convert_gguf(gguf_path: Path, output: Path, probe: TokenizerProbe) -> None:
    """Dequantise `gguf_path` and save model, generation config and tokenizer into `output`; the tokenizer must
    split `probe` as the tested conversion did."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if not gguf_path.is_file():
        raise FileNotFoundError(f"GGUF file not found: {gguf_path}")
    folder, file_name = str(gguf_path.parent), gguf_path.name
    try:
        model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=file_name, dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=file_name)
    except (ValueError, OSError, EOFError) as exc:
        raise ValueError(
            f"{gguf_path} cannot be read as a GGUF model (truncated or corrupt?): {exc}"
        ) from exc
    _forget_quantisation(model)
    model.save_pretrained(output)
    tokenizer.save_pretrained(output)
    check_tokenizer(output, probe)


def check_tokenizer(folder: Path, probe: TokenizerProbe) -> None:
    """Raise TokenizerMismatch unless the folder's tokenizer gives `probe.text` exactly `probe.ids`."""
    import transformers
    from transformers import AutoTokenizer

    ids = tuple(AutoTokenizer.from_pretrained(folder)(probe.text, add_special_tokens=False).input_ids)
    if ids != probe.ids:
        raise TokenizerMismatch(
            f"the tokenizer converted into {folder} with transformers {transformers.__version__} splits "
            f"{probe.text!r} into {len(ids)} ids, not the {len(probe.ids)} ids of the tested conversion: "
            "convert with the transformers version pinned in constraints.txt (`make models` in this project's "
            "environment)"
        )


def _forget_quantisation(model: object) -> None:
    """The weights are already dequantised, but `save_pretrained` refuses while the GGUF quantiser is attached."""
    model.hf_quantizer = None  # type: ignore[attr-defined]
    del model.config.quantization_config  # type: ignore[attr-defined]
