"""What the worker builds from its settings: the verifier of VERIFY_MODE on this machine's device."""

import pytest

from speculative.build import build_verifier
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
