"""Turn a GGUF causal LM into a normal transformers folder (dequantised fp32 safetensors and its tokenizer).

transformers reads GGUF itself; the converted folder keeps the tokenizer's chat template when the GGUF
carries one. Device and dtype are chosen later by whoever loads the folder.
"""

from pathlib import Path


def convert_gguf(gguf_path: Path, output: Path) -> None:
    """Dequantise `gguf_path` and save model, generation config and tokenizer into `output`."""
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


def _forget_quantisation(model: object) -> None:
    """The weights are already dequantised, but `save_pretrained` refuses while the GGUF quantiser is attached."""
    model.hf_quantizer = None  # type: ignore[attr-defined]
    del model.config.quantization_config  # type: ignore[attr-defined]
