"""What the GPU check runs: the real shapes on a CUDA device, the same steps with tiny shapes in the CPU dry run.

The dry run exists so CI proves the command works end to end on a machine without a GPU; its figures mean nothing.
"""

from dataclasses import dataclass
from typing import Any

# Llama-3-8B's shapes (meta-llama/Meta-Llama-3-8B-Instruct config.json). RoPE's θ and the norms' epsilon change no
# cost, so they keep transformers' defaults.
LLAMA3_8B: dict[str, Any] = {
    "vocab_size": 128_256,
    "hidden_size": 4096,
    "intermediate_size": 14_336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "max_position_embeddings": 8192,
    "tie_word_embeddings": False,
}
# Gemma 3 270M's shapes (google/gemma-3-270m config.json): check 7 builds a model of this shape with random weights
# where the real one is not on the machine. Only what changes the cost is kept: RoPE's θ, the norms' epsilon and the
# attention scalar keep transformers' defaults; every 6th layer attends fully, the others over a 512-token window.
GEMMA3_270M: dict[str, Any] = {
    "vocab_size": 262_144,
    "hidden_size": 640,
    "intermediate_size": 2048,
    "num_hidden_layers": 18,
    "num_attention_heads": 4,
    "num_key_value_heads": 1,
    "head_dim": 256,
    "sliding_window": 512,
    "layer_types": ["full_attention" if layer % 6 == 5 else "sliding_attention" for layer in range(18)],
    "max_position_embeddings": 32_768,
    "tie_word_embeddings": True,
}
# Its dry-run stand-in: one sliding layer whose window the prompts outrun, one full layer.
DRY_RUN_GEMMA3: dict[str, Any] = {
    "vocab_size": 4096,
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "head_dim": 32,
    "sliding_window": 16,
    "layer_types": ["sliding_attention", "full_attention"],
    "max_position_embeddings": 1024,
    "tie_word_embeddings": True,
}
DRY_RUN_LLAMA: dict[str, Any] = {
    "vocab_size": 4096,
    "hidden_size": 128,
    "intermediate_size": 256,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 1024,
    "tie_word_embeddings": False,
}
# One test of each kind (fp32 token-exact with CASD's copies, bf16 near-tie rule): CI runs them all anyway.
DRY_RUN_TESTS = (
    "engine/test_lossless_tiny_models.py::test_every_method_equals_greedy_generate_on_a_tiny_llama[looping-output-casd]",
    "engine/test_bfloat16_agreement.py::test_bfloat16_answers_agree_with_greedy_and_diverge_only_at_near_ties[casd]",
)


@dataclass(frozen=True)
class Plan:
    """Device, shapes and sizes of one run of the check."""

    device: str
    dry_run: bool
    lossless_tests: tuple[str, ...] | None  # test ids under tests/speculative; None = every lossless test
    worker_dtype: str
    worker_new_tokens: int
    worker_settings: dict[str, str]  # on top of the check's own (model, device, dtype, method)
    verify_model: dict[str, Any]
    verify_model_name: str
    verify_rows: tuple[int, ...]
    prefix_tokens: int
    repeats: int
    copy_bytes: int
    # graph vs eager verify step (verify_model, prefix_tokens, repeats, copy_bytes as above)
    graph_rows: tuple[int, ...]
    compile_verify: (
        bool  # time (d), the forward fused by torch.compile (most of a minute to compile on a CPU)
    )
    # decoding through BatchDecoder with verify_model (engine overhead per step, batched throughput)
    decode_prompt_tokens: int
    decode_new_tokens: int
    overhead_batches: tuple[int, ...]  # answers per step, one row each
    overhead_rounds: int  # batches decoded per row (the first one more, as warm-up)
    concurrency: tuple[int, ...]  # answers at once, the first one the reference ("one answer")
    profile_answers: int  # answers decoded together under torch.profiler (verify_model, decode_* as above)
    profile_steps: int  # steps recorded, after one unprofiled round and the profiler's warm-up step
    # the shipped generator against plain greedy
    generator_model: str | None  # None: not looked for, the shaped fallback runs (dry run)
    generator_dtypes: tuple[str, ...]
    generator_prompts: int
    generator_new_tokens: int
    generator_passage_chars: int
    compile_baseline: bool  # greedy generate() with torch.compile(mode="reduce-overhead") on the static cache
    # where the shipped generator is missing: a model of its shape with random weights, on synthetic token ids
    generator_shape: dict[str, Any]
    generator_shape_name: str
    shaped_prompts: int
    shaped_prompt_tokens: int


def gpu_plan(device: str) -> Plan:
    return Plan(
        device=device,
        dry_run=False,
        lossless_tests=None,
        worker_dtype="bfloat16",
        worker_new_tokens=128,
        worker_settings={
            "TREE_POLICY": "adaptive"
        },  # serves at once, measures the device's cost model when idle, as in production
        verify_model=LLAMA3_8B,
        verify_model_name="Llama-3-8B-shaped (random weights)",
        verify_rows=(1, 8, 16, 32, 64),
        prefix_tokens=1024,
        repeats=20,
        copy_bytes=2 << 30,
        graph_rows=(1, 4, 8, 16, 32, 64),
        compile_verify=True,
        decode_prompt_tokens=512,
        decode_new_tokens=64,
        overhead_batches=(1, 4),
        overhead_rounds=2,
        concurrency=(1, 4, 8, 16),
        profile_answers=4,
        profile_steps=16,
        generator_model="google/gemma-3-270m",
        generator_dtypes=("float32", "bfloat16"),
        generator_prompts=4,
        generator_new_tokens=128,
        generator_passage_chars=2400,
        compile_baseline=True,
        generator_shape=GEMMA3_270M,
        generator_shape_name="Gemma-3-270M-shaped (random weights)",
        shaped_prompts=3,
        shaped_prompt_tokens=900,  # the Dutch RAG prompts of the real check are 846–956 Gemma tokens
    )


def dry_run_plan() -> Plan:
    return Plan(
        device="cpu",
        dry_run=True,
        lossless_tests=DRY_RUN_TESTS,
        worker_dtype="float32",
        worker_new_tokens=16,
        worker_settings={
            "TREE_POLICY": "fixed",
            "TORCH_THREADS": "1",
        },  # no cost model: minutes on a busy CPU
        verify_model=DRY_RUN_LLAMA,
        verify_model_name="tiny Llama (dry run, random weights)",
        verify_rows=(1, 8, 16),
        prefix_tokens=64,
        repeats=3,
        copy_bytes=32 << 20,
        graph_rows=(2, 4, 8),
        compile_verify=False,  # the worker's compiled warm-up is tested on the CPU (test_compiled_warm_up.py)
        decode_prompt_tokens=48,
        decode_new_tokens=8,
        overhead_batches=(1, 2),
        overhead_rounds=1,
        concurrency=(1, 2, 4),
        profile_answers=2,
        profile_steps=4,
        generator_model=None,
        generator_dtypes=("float32", "bfloat16"),
        generator_prompts=2,
        generator_new_tokens=12,
        generator_passage_chars=200,
        compile_baseline=False,  # compiling takes minutes on this CPU; the dry run says so in its report
        generator_shape=DRY_RUN_GEMMA3,
        generator_shape_name="tiny Gemma-3-shaped (dry run, random weights)",
        shaped_prompts=2,
        shaped_prompt_tokens=48,
    )
