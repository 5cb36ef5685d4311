"""Build a ready generator from the settings: the one entry point for the worker and the benchmark."""

from transformers import AutoTokenizer, PreTrainedTokenizerBase

from speculative.drafters.registry import drafter_factory
from speculative.engine.budget import FixedTreeBudget, default_tree_nodes
from speculative.engine.generator import SpeculativeGenerator
from speculative.engine.stopping import model_stop_token_ids
from speculative.engine.target import TargetModel
from speculative.models.production import require_model
from speculative.settings import SpeculativeSettings


def load_target(settings: SpeculativeSettings) -> tuple[TargetModel, PreTrainedTokenizerBase]:
    """The target model on the configured device and dtype, and its tokenizer, from the offline cache first."""
    source = require_model(settings.generator_model, settings.model_cache, "GENERATOR_MODEL")
    tokenizer = AutoTokenizer.from_pretrained(source)
    return TargetModel.load(source, settings.device, settings.dtype, settings.attention), tokenizer


def tree_nodes(settings: SpeculativeSettings) -> int:
    """The configured tree budget, or the device's default when unset."""
    return settings.tree_budget if settings.tree_budget is not None else default_tree_nodes(settings.device)


def build_generator(
    settings: SpeculativeSettings,
    target: TargetModel,
    tokenizer: PreTrainedTokenizerBase | None,
    method: str | None = None,
) -> SpeculativeGenerator:
    """A generator for `method` (default: the settings' `draft_method`) over an already loaded target."""
    stop_token_ids = model_stop_token_ids(target.config, target.model.generation_config, tokenizer)
    return SpeculativeGenerator(
        target=target,
        tokenizer=tokenizer,
        drafter_factory=drafter_factory(method or settings.draft_method, settings, target),
        tree_budget=FixedTreeBudget(tree_nodes(settings)),
        stop_token_ids=stop_token_ids,
    )
