"""A cross-encoder made from the offline embedder: the first layers of multilingual-e5-small, LoRA adapters on
them and a one-score head. `python -m research.train_reranker` trains the adapters and the head; what it keeps is
small (float16 `adapter.safetensors`, about 2 MB, with `training.json`), and `assemble_reranker` merges it into
e5's first layers and saves an ordinary Hugging Face sequence-classification folder that sentence-transformers'
`CrossEncoder` (and so RERANKER_MODEL) loads. The recipe (layers, LoRA rank, tokens read) travels in
`training.json`, so training and assembling make the same model.

No trained adapter is committed or provisioned: none trained on this CPU has ranked better than hybrid search
(docs/evaluation.md, "Reranking").
"""

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from peft import PeftModel
    from transformers import PreTrainedTokenizerBase

# Every linear layer of a kept encoder layer; the pooler and the classifier are trained whole.
LORA_TARGETS = (
    r".*encoder\.layer\.\d+\.(attention\.self\.(query|key|value)|attention\.output\.dense|intermediate\.dense"
    r"|output\.dense)"
)
TRAINED_WHOLE = ["pooler", "classifier"]
ADAPTER_FILE = "adapter.safetensors"
RECORD_FILE = "training.json"


@dataclass(frozen=True)
class RerankerRecipe:
    """What a trained adapter fits: the e5 layers kept, the LoRA rank, and the tokens the model reads."""

    layers: int = 3
    rank: int = 32
    max_length: int = 192

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def of_record(cls, record: Path) -> "RerankerRecipe":
        """The recipe in a training record (`training.json`)."""
        data: dict[str, Any] = json.loads(record.read_text(encoding="utf-8"))["recipe"]
        return cls(**data)


def trainable_cross_encoder(
    e5_folder: str | Path, recipe: RerankerRecipe
) -> tuple["PeftModel", "PreTrainedTokenizerBase"]:
    """e5's first `recipe.layers` layers under a one-score head, with LoRA adapters (embeddings frozen)."""
    from peft import LoraConfig, get_peft_model
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer
    from transformers.utils import logging as transformers_logging

    config = AutoConfig.from_pretrained(e5_folder, local_files_only=True)
    config.num_hidden_layers = recipe.layers
    config.num_labels = 1
    torch.manual_seed(0)  # the head's starting point; the trained head replaces it
    verbosity = transformers_logging.get_verbosity()
    transformers_logging.set_verbosity_error()  # the dropped layers and the new head are meant
    try:
        base = AutoModelForSequenceClassification.from_pretrained(
            e5_folder, config=config, local_files_only=True, dtype=torch.float32
        )
    finally:
        transformers_logging.set_verbosity(verbosity)
    lora = LoraConfig(
        r=recipe.rank,
        lora_alpha=2 * recipe.rank,
        lora_dropout=0.0,
        target_modules=LORA_TARGETS,
        modules_to_save=TRAINED_WHOLE,
    )
    tokenizer = AutoTokenizer.from_pretrained(e5_folder, local_files_only=True)
    tokenizer.model_max_length = recipe.max_length
    return get_peft_model(base, lora), tokenizer


def adapter_state(model: "PeftModel") -> dict[str, torch.Tensor]:
    """The trained weights only (LoRA matrices, pooler, classifier)."""
    from peft import get_peft_model_state_dict

    return {name: tensor.detach().cpu() for name, tensor in get_peft_model_state_dict(model).items()}


def save_adapter(state: dict[str, torch.Tensor], path: Path) -> None:
    """The trained weights as float16 safetensors (the committed file)."""
    from safetensors.torch import save_file

    save_file({name: tensor.to(torch.float16).contiguous() for name, tensor in state.items()}, str(path))


def assemble_reranker(e5_folder: str | Path, trained: Path, output: Path) -> None:
    """The cross-encoder folder from e5 and a trained folder (`adapter.safetensors` + `training.json`)."""
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file

    recipe = RerankerRecipe.of_record(trained / RECORD_FILE)
    model, tokenizer = trainable_cross_encoder(e5_folder, recipe)
    state = {
        name: tensor.to(torch.float32) for name, tensor in load_file(str(trained / ADAPTER_FILE)).items()
    }
    loaded = set_peft_model_state_dict(model, state)
    unexpected: list[str] = list(getattr(loaded, "unexpected_keys", []))
    if unexpected:
        raise ValueError(f"{trained / ADAPTER_FILE} does not fit the recipe: {unexpected[:3]}")
    merged = model.merge_and_unload()
    merged.config.num_labels = 1
    merged.save_pretrained(output)
    tokenizer.save_pretrained(output)
