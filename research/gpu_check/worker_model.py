"""The model the GPU check serves with the worker: small enough to ship as a config, built at run time.

A Llama of `worker_model.json` (9.5M parameters, about 19 MB in bf16) with random weights and a byte-level tokenizer
(the 256 bytes and an end-of-text token, no merges), so no download and no model cache are needed and any text
round-trips. What it generates is noise; the check is that the worker loads, decodes and streams on the device.
"""

import json
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

CONFIG_PATH = Path(__file__).with_name("worker_model.json")
END_OF_TEXT = "<|endoftext|>"
SEED = 0


def byte_tokenizer() -> PreTrainedTokenizerFast:
    """One token per byte (byte-level BPE without merges) plus END_OF_TEXT as BOS and EOS."""
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    backend = Tokenizer(models.BPE(vocab={symbol: index for index, symbol in enumerate(alphabet)}, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    backend.add_special_tokens([END_OF_TEXT])
    return PreTrainedTokenizerFast(tokenizer_object=backend, bos_token=END_OF_TEXT, eos_token=END_OF_TEXT)


def write_worker_model(folder: Path) -> Path:
    """Write tokenizer and random fp32 weights (the worker casts to its DTYPE) to `folder`; returns it."""
    tokenizer = byte_tokenizer()
    end = len(tokenizer) - 1  # the one added token follows the 256 bytes
    shape = json.loads(CONFIG_PATH.read_text(encoding="utf-8"))
    config = LlamaConfig(**shape, vocab_size=len(tokenizer), bos_token_id=end, eos_token_id=end)
    torch.manual_seed(SEED)
    model = LlamaForCausalLM(config)
    model.generation_config.eos_token_id = end
    model.generation_config.bos_token_id = end
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
