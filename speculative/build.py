"""The engine's assembly: settings → target model (with its adapter) → drafters → tree budgets → generator.

The one place that joins the packages below it (`engine`, `drafters`, `budget`, `adapt`); the worker, the benchmark
and the training tools build their generators here.
"""

from functools import partial
from pathlib import Path

from transformers import AutoTokenizer, PreTrainedTokenizerBase

from modelstore.production import require_model
from speculative.adapt.merge import adapter_folder, merge_adapter
from speculative.budget.adaptive import long_run_history
from speculative.budget.cost_model import (
    PREFILL_TOKENS,
    TREE_ROWS,
    CostModel,
    load_or_measure,
    model_identity,
)
from speculative.budget.fixed import FixedTreeBudget, default_tree_nodes
from speculative.budget.prior import CostModelSlot, PriorThenAdaptive
from speculative.drafters.registry import drafter_factory
from speculative.engine.batch_verifier import BatchVerifier, DynamicBatchVerifier
from speculative.engine.drafter import Drafter
from speculative.engine.generator import SpeculativeGenerator
from speculative.engine.static_verifier import StaticBatchVerifier
from speculative.engine.stopping import model_stop_token_ids
from speculative.engine.target import TargetModel
from speculative.engine.tree_budget import TreeBudgetFactory
from speculative.settings import SpeculativeSettings, TreePolicy

DEFAULT_KV_CACHE_TOKENS = 8192


def load_target(settings: SpeculativeSettings) -> tuple[TargetModel, PreTrainedTokenizerBase]:
    """The target model on the configured device and dtype, and its tokenizer, from the offline cache first;
    with GENERATOR_ADAPTER, the adapter verified and merged into it (AdapterError when it does not fit)."""
    source = require_model(settings.generator_model, settings.model_cache, "GENERATOR_MODEL")
    tokenizer = AutoTokenizer.from_pretrained(source)
    target = TargetModel.load(source, settings.device, settings.dtype, settings.attention)
    if settings.generator_adapter is None:
        return target, tokenizer
    adapter = adapter_folder(settings.generator_adapter, settings.model_cache)
    merged = merge_adapter(target.model, adapter, settings.generator_model, Path(source))
    return TargetModel(merged), tokenizer


def verify_mode(settings: SpeculativeSettings) -> str:
    """VERIFY_MODE with `auto` resolved: graphs on a CUDA device, eager elsewhere."""
    if settings.verify_mode != "auto":
        return settings.verify_mode
    return "graphs" if settings.device.startswith("cuda") else "eager"


def build_verifier(
    settings: SpeculativeSettings, target: TargetModel, slots: int, capacity: int | None = None
) -> BatchVerifier:
    """The verifier of VERIFY_MODE for up to `slots` answers decoded together, each of up to `capacity` positions
    (default KV_CACHE_TOKENS); the static ones allocate their KV cache here."""
    mode = verify_mode(settings)
    if mode == "eager":
        return DynamicBatchVerifier(target)
    capacity = capacity or settings.kv_cache_tokens or min(target.context_length, DEFAULT_KV_CACHE_TOKENS)
    return StaticBatchVerifier(
        target, slots, capacity, graphs=mode in ("graphs", "compiled"), fused=mode == "compiled"
    )


def cost_model_verifier(settings: SpeculativeSettings, target: TargetModel) -> BatchVerifier:
    """A verifier of VERIFY_MODE for measuring the cost model: one answer, the measurement's prefix and trees."""
    return build_verifier(settings, target, 1, PREFILL_TOKENS + max(TREE_ROWS))


def load_cost_model(settings: SpeculativeSettings, target: TargetModel) -> CostModel:
    """The device's verification costs for this target: cached in COST_MODEL_DIR, measured when missing."""
    return load_or_measure(
        target,
        cost_model_identity(settings, target),
        settings.cost_model_dir,
        lambda: cost_model_verifier(settings, target),
    )


def cost_model_identity(settings: SpeculativeSettings, target: TargetModel) -> dict[str, str]:
    """What the cost model of this target under these settings is keyed by (model, device, dtype, the verify
    mode, …)."""
    return model_identity(target, settings.generator_model, settings.attention, verify_mode(settings))


def tree_nodes(settings: SpeculativeSettings) -> int:
    """The configured fixed tree budget, or the device's default when unset."""
    return settings.tree_budget if settings.tree_budget is not None else default_tree_nodes(settings.device)


def most_budget_nodes(settings: SpeculativeSettings) -> int:
    """The most nodes a step's tree budget grants under these settings: the fixed budget (or the adaptive
    policy's prior), or the adaptive policy's cap (TREE_BUDGET, else the cost model's largest tree), whichever is
    larger."""
    if settings.tree_policy == "fixed" or settings.tree_budget is not None:
        return tree_nodes(settings)
    return max(tree_nodes(settings), max(TREE_ROWS) - 1)


def most_tree_rows(settings: SpeculativeSettings, drafter: Drafter) -> int:
    """The most rows one answer's tree drafted by `drafter` brings to a verify forward: its root and the most
    nodes the drafter drafts under the largest step budget (what the worker warms its verifier up to)."""
    return 1 + drafter.most_nodes(most_budget_nodes(settings))


def budget_factory(
    settings: SpeculativeSettings, policy: TreePolicy, cost_model: CostModel | CostModelSlot | None
) -> TreeBudgetFactory:
    """Per-request tree budgets of `policy`; the adaptive ones share a long-run acceptance record and are capped
    by TREE_BUDGET or the largest measured tree. Given a `CostModelSlot` still empty, the adaptive policy starts
    from the device's fixed prior (`tree_nodes`) and adapts once the slot is filled."""
    if policy == "fixed":
        return partial(FixedTreeBudget, tree_nodes(settings))
    if cost_model is None:
        raise ValueError("the adaptive tree budget needs the device's cost model (load_cost_model)")
    slot = cost_model if isinstance(cost_model, CostModelSlot) else CostModelSlot(cost_model)
    return PriorThenAdaptive(slot, tree_nodes(settings), settings.tree_budget, long_run_history())


def build_generator(
    settings: SpeculativeSettings,
    target: TargetModel,
    tokenizer: PreTrainedTokenizerBase | None,
    method: str | None = None,
    cost_model: CostModel | CostModelSlot | None = None,
    policy: TreePolicy | None = None,
) -> SpeculativeGenerator:
    """A generator for `method` (default: DRAFT_METHOD) with the tree `policy` (default: TREE_POLICY).

    An adaptive policy without a given `cost_model` loads (or measures) it here; callers building several
    generators over one target load it once with `load_cost_model` and pass it.
    """
    policy = policy or settings.tree_policy
    if policy == "adaptive" and cost_model is None:
        cost_model = load_cost_model(settings, target)
    stop_token_ids = model_stop_token_ids(target.config, target.model.generation_config, tokenizer)
    return SpeculativeGenerator(
        target=target,
        tokenizer=tokenizer,
        drafter_factory=drafter_factory(method or settings.draft_method, settings, target),
        tree_budget=budget_factory(settings, policy, cost_model),
        stop_token_ids=stop_token_ids,
    )
