"""What the worker builds from its settings: the verifier of VERIFY_MODE on this machine's device, and the largest
tree it warms that verifier up to."""

from typing import Any

import pytest

from speculative.build import build_verifier, most_tree_rows
from speculative.drafters.registry import drafter_factory
from speculative.engine.batch_verifier import DynamicBatchVerifier
from speculative.engine.static_verifier import StaticBatchVerifier
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings


@pytest.mark.parametrize(
    ("setting", "runs_as"),
    [
        ("static", "static"),
        ("graphs", "{graphs}"),  # without CUDA the same static code runs without graphs
        ("compiled", "compiled {graphs}"),  # fused by torch.compile at its first step
    ],
)
def test_each_static_verify_mode_builds_a_pool_verifier_that_reports_what_runs(
    tiny_llama_target: TargetModel, setting: str, runs_as: str
) -> None:
    settings = SpeculativeSettings(_env_file=None, verify_mode=setting, kv_cache_tokens=128)
    graphs = "graphs" if tiny_llama_target.device.type == "cuda" else "static"

    verifier = build_verifier(settings, tiny_llama_target, slots=3)

    assert isinstance(verifier, StaticBatchVerifier)
    assert verifier.mode == runs_as.format(graphs=graphs)
    assert verifier.slots == 4 and verifier.context_length == 128


@pytest.mark.parametrize("setting", ["eager", "auto"])
def test_eager_and_auto_on_a_cpu_build_the_dynamic_cache_verifier(
    tiny_llama_target: TargetModel, setting: str
) -> None:
    settings = SpeculativeSettings(_env_file=None, verify_mode=setting)

    assert isinstance(build_verifier(settings, tiny_llama_target, slots=2), DynamicBatchVerifier)


@pytest.mark.parametrize(
    ("settings", "method", "rows"),
    [
        ({"tree_policy": "fixed", "tree_budget": 3}, "casd", 4),
        ({"tree_policy": "fixed", "tree_budget": 3}, "vanilla+casd", 1 + 3 + 2 * 10),  # CASD's 2 × 10 on top
        ({"tree_policy": "fixed", "tree_budget": 3, "casd_shares_budget": True}, "vanilla+casd", 4),
        ({"tree_policy": "fixed"}, "casd", 1 + 16),  # the CPU's fixed budget
        ({"tree_policy": "adaptive", "tree_budget": 5}, "casd", 6),  # TREE_BUDGET caps the adaptive budget
        ({"tree_policy": "adaptive"}, "casd", 64),  # else the cost model's largest tree (64 rows)
    ],
)
def test_the_largest_tree_a_method_drafts_follows_the_tree_policy_and_the_merged_extras(
    tiny_llama_target: TargetModel, settings: dict[str, Any], method: str, rows: int
) -> None:
    configured = SpeculativeSettings(_env_file=None, device="cpu", **settings)
    drafter = drafter_factory(method, configured, tiny_llama_target)()

    assert most_tree_rows(configured, drafter) == rows
