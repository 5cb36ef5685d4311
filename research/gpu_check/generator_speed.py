"""The shipped generator against the strongest plain baseline: tokens per second of `casd` and `eagle2+casd` next
to transformers' greedy `generate()` with a static KV cache and `torch.compile(mode="reduce-overhead")`.

The generator is Gemma 3 270M with its committed adapter merged, as the worker's defaults load it
(`speculative.build.load_target`), found in the model cache (MODEL_CACHE) or the Hugging Face cache and never
downloaded: where it is missing the check is skipped and says how to provide it. The adapter and the EAGLE head of
the adapted model come from the model cache or, failing that, from the folders committed under
`modelstore/trained/`. Each dtype loads the model once; every method decodes the same Dutch RAG prompts
(`rag_prompts`) to the same token limit with the same stop ids (no stop strings: `generate()` would need the
tokenizer's), interleaved prompt by prompt after an untimed pass over every prompt (which compiles the baseline and
meets every graph bucket of the engine's verifier). The engine decodes each answer alone the worker's way: a
`BatchDecoder` of one slot over `build_verifier` (VERIFY_MODE `graphs` unless the environment says otherwise).
Tokens per second are all answer tokens over all wall seconds, prefill included, per method. In float32 every
method must equal the baseline token for token (the check fails otherwise); in bfloat16 a near-tied argmax may
flip, so the equal answers are counted.

Where the generator is missing, and in the dry run, `shaped_generator` runs the same measurement on a model of its
shape with random weights instead (`measure_methods` is shared).
"""

import importlib.util
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import torch
from transformers import CompileConfig, PreTrainedModel, PreTrainedTokenizerBase

from modelstore import resolve_model
from modelstore.device import synced_clock
from modelstore.trained import COMMITTED_FOLDERS
from modelstore.trained import HERE as TRAINED_FOLDER
from research.gpu_check.checks import CheckResult, skipped
from research.gpu_check.decoding import check_verify_mode, decode_alone, release
from research.gpu_check.rag_prompts import rag_prompts
from speculative.build import build_generator, build_verifier, load_target, tree_nodes
from speculative.engine.batch import BatchDecoder
from speculative.engine.generator import SpeculativeGenerator
from speculative.engine.request import GenerationRequest
from speculative.engine.stats import GenerationStats
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings

# The head trained on each generator's answers (docs/speculative-engine.md), by generator and adapter.
HEADS = {
    ("google/gemma-3-270m", "vraagbaak/lora-gemma-3-270m"): "vraagbaak/eagle2-gemma-3-270m-lora",
    ("google/gemma-3-270m", None): "vraagbaak/eagle2-gemma-3-270m",
}
METHODS = ("casd", "eagle2+casd")
BASELINE = "greedy generate()"
GOAL_SPEEDUP = 2.0  # issue 32: casd at least twice the compiled baseline's tokens/s
PROVIDE_HINT = (
    "on a machine with internet `python -m modelstore provision --only {name}` fills `.models/`; bring the folder "
    "`.models/{folder}` to this machine (weights are not carried to the GPU machine) and run "
    "`MODEL_CACHE=/path/to/.models python -m research.gpu_check`"
)


@dataclass
class MethodFigures:
    """One method's answers over the prompts: tokens, seconds, τ of each, and how many equal the baseline's; for the
    engine also its verification steps, the tokens they accepted, the tree nodes they verified and its prefill (the
    baseline's prefill where `measure_methods` was asked to time it)."""

    tokens: int = 0
    seconds: float = 0.0
    taus: list[float] = field(default_factory=list)
    equal: int = 0
    answers: int = 0
    steps: int = 0
    accepted: int = 0
    nodes: int = 0
    prefill_seconds: float = 0.0

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class Generator:
    """A loaded generator: the target, its tokenizer, the settings to build drafters from, and its head's folder
    (None: no head, `head_note` says why)."""

    target: TargetModel
    tokenizer: PreTrainedTokenizerBase | None  # None: prompts of token ids (the shaped fallback)
    settings: SpeculativeSettings
    head: str | None
    head_note: str
    description: str


def compare_with_greedy(
    model_name: str,
    device: str,
    dtypes: Sequence[str],
    prompt_count: int,
    new_tokens: int,
    passage_chars: int,
    compile_baseline: bool,
) -> CheckResult:
    """Decode `prompt_count` Dutch RAG prompts with each method and the baseline in each dtype; skipped (saying
    why) when the model cannot load here without a download."""
    started = time.monotonic()
    name = f"{model_name} on {device}: casd and eagle2+casd against {BASELINE}"
    reasons = missing_parts(model_name)
    if reasons:
        return skipped(name, time.monotonic() - started, reasons)
    prompts = rag_prompts(prompt_count, passage_chars)
    details: list[str] = []
    table: list[str] = []
    problems: list[str] = []
    for dtype in dtypes:
        generator = load_shipped(model_name, device, dtype)
        tokenizer = cast(PreTrainedTokenizerBase, generator.tokenizer)
        try:
            requests = [
                GenerationRequest(list(tokenizer(prompt.prompt)["input_ids"]), new_tokens)
                for prompt in prompts
            ]
            figures, notes = measure_methods(generator, requests, compile_baseline)
        finally:
            del generator
            release(device)
        if dtype == dtypes[0]:
            details += [
                notes["model"],
                f"{len(prompts)} Dutch RAG prompts of the samples ({notes['prompt_tokens']} tokens), "
                f"{new_tokens} new tokens at most, stop ids only; fixed tree of {notes['tree_nodes']} nodes; "
                "each answer alone through the worker's path (a BatchDecoder of one slot); tokens/s = all answer "
                "tokens over all wall seconds (prefill included), every prompt decoded once untimed, then "
                "interleaved per prompt",
            ]
        details += [
            f"{dtype}: baseline = {notes['baseline']}; engine verifier: {notes['verifier']}; eagle2+casd: "
            f"{notes['head']}"
        ]
        table += _rows(dtype, figures)
        problems += mismatches(dtype, figures)
    header = [
        "| dtype | method | tokens | tokens/s | × baseline | τ | answers equal to the baseline | goal ≥ 2× |",
        "|---|---|---|---|---|---|---|---|",
    ]
    return CheckResult(
        name, not problems, time.monotonic() - started, [*details, *problems, "", *header, *table]
    )


def missing_parts(model_name: str) -> list[str]:
    """Why the shipped generator cannot load here without a download, and how to provide it (empty: it can)."""
    settings = SpeculativeSettings(_env_file=None, generator_model=model_name)
    if find_model(model_name, settings.model_cache) is None:
        return missing_model_lines(model_name, settings.model_cache)
    if settings.generator_adapter and importlib.util.find_spec("peft") is None:
        return [
            f"peft is not installed, and it merges the adapter {settings.generator_adapter} that the worker serves "
            f"{model_name} with",
            "to provide it: `make gpu-wheels` (on a machine with internet) puts it, with accelerate and psutil, into "
            '`.whl/`; install those here as docs/benchmarks.md "GPU check" shows',
        ]
    return []


def find_model(name: str, cache: Path) -> str | None:
    """Where `name` loads from without a download: its model-cache folder, or the name when the Hugging Face
    cache holds it; None when neither does."""
    from huggingface_hub import try_to_load_from_cache

    resolved = resolve_model(name, cache)
    if Path(resolved).is_dir():
        return resolved
    return name if isinstance(try_to_load_from_cache(name, "config.json"), str) else None


def missing_model_lines(name: str, cache: Path) -> list[str]:
    folder = name.replace("/", "--")
    return [
        f"`{name}` is not in the model cache `{cache}` (MODEL_CACHE) nor in the Hugging Face cache, and the check "
        "downloads nothing",
        "to provide it: " + PROVIDE_HINT.format(name=name, folder=folder),
    ]


def local_folder(name: str, cache: Path) -> Path | None:
    """A committed adapter or head: its model-cache entry (what `make models` installs) or else its committed
    folder under modelstore/trained; None when neither exists."""
    resolved = Path(resolve_model(name, cache))
    if resolved.is_dir():
        return resolved
    committed = TRAINED_FOLDER / COMMITTED_FOLDERS[name] if name in COMMITTED_FOLDERS else None
    return committed if committed is not None and committed.is_dir() else None


def load_shipped(model_name: str, device: str, dtype: str) -> Generator:
    """The generator as the worker's defaults load it: the model with its default adapter merged, and the head
    trained for that pair."""
    settings = SpeculativeSettings(
        _env_file=None,
        generator_model=model_name,
        device=device,
        dtype=dtype,
        tree_policy="fixed",
        verify_mode=check_verify_mode(),
    )
    adapter = settings.generator_adapter
    if adapter is not None:
        adapter_path = local_folder(adapter, settings.model_cache)
        if adapter_path is None:
            raise FileNotFoundError(
                f"the adapter {adapter} is neither in {settings.model_cache} nor committed"
            )
        settings = settings.model_copy(update={"generator_adapter": str(adapter_path)})
    target, tokenizer = load_target(settings)
    head_name = HEADS.get((model_name, adapter))
    head_path = None if head_name is None else local_folder(head_name, settings.model_cache)
    if head_name is None:
        note = f"skipped: no EAGLE head is known for {model_name} with adapter {adapter}"
    elif head_path is None:
        note = f"skipped: the head {head_name} is neither in {settings.model_cache} nor committed"
    else:
        note = f"head {head_name} ({head_path})"
    return Generator(
        target,
        tokenizer,
        settings,
        None if head_path is None else str(head_path),
        note,
        f"{model_name} with adapter {adapter or 'none'}",
    )


class GreedyBaseline:
    """transformers' greedy `generate()` on a static KV cache, its decoding forward compiled with
    `torch.compile(mode="reduce-overhead")` (CUDA graphs) when `compile` is set; stops at `stop_ids`."""

    def __init__(self, model: PreTrainedModel, stop_ids: frozenset[int], compile: bool) -> None:
        self.model = model
        self.stop_ids = sorted(stop_ids)
        self.compile = compile
        # One config for every call: transformers recompiles when the config differs from the last call's.
        self.compile_config = CompileConfig(mode="reduce-overhead")
        self.compile_error: str | None = None

    def __call__(self, prompt_ids: Sequence[int], new_tokens: int) -> list[int]:
        input_ids = torch.tensor([list(prompt_ids)], device=self.model.device)
        options: dict[str, Any] = (
            {"compile_config": self.compile_config} if self.compile else {"disable_compile": True}
        )
        # generate() runs under its own no_grad; inference mode is left out, as transformers' compile examples do
        output = cast(Any, self.model).generate(
            input_ids,
            attention_mask=torch.ones_like(input_ids),
            max_new_tokens=new_tokens,
            do_sample=False,
            cache_implementation="static",
            eos_token_id=self.stop_ids,
            pad_token_id=self.stop_ids[0] if self.stop_ids else 0,
            **options,
        )
        return [int(token) for token in output[0, len(prompt_ids) :]]

    def warm_up(self, prompt_ids: Sequence[int], new_tokens: int) -> None:
        """One answer (compiling the forward); a compile that fails leaves the baseline uncompiled, noted."""
        try:
            self(prompt_ids, new_tokens)
        except Exception as error:  # a compiler failure must not hide the other figures
            if not self.compile:
                raise
            self.compile_error = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
            self.compile = False
            torch._dynamo.reset()
            self(prompt_ids, new_tokens)

    @property
    def compiled(self) -> bool:
        """Whether generate() ran a compiled forward (transformers keeps it on the model)."""
        return self.compile and hasattr(self.model, "_compiled_call")

    def describe(self) -> str:
        if self.compiled:
            return "static cache + torch.compile(mode=reduce-overhead)"
        if self.compile_error is not None:
            return f"static cache, NOT compiled: torch.compile failed ({self.compile_error})"
        if self.compile:
            return "static cache, NOT compiled: transformers did not compile on this device"
        return "static cache, not compiled (dry run: compiling takes minutes on a CPU)"


def measure_methods(
    generator: Generator,
    requests: Sequence[GenerationRequest],
    compile_baseline: bool,
    baseline_prefill: bool = False,
) -> tuple[dict[str, MethodFigures], dict[str, str]]:
    """Every method and the baseline decode every request once untimed, then timed interleaved per request;
    the figures per method and notes on how it ran (model, prompt lengths, tree, baseline, verifier, head).
    `baseline_prefill`: afterwards, time the baseline's prefill too (a `generate()` of one token per request, after
    the timed runs so that its static cache cannot disturb them)."""
    target = generator.target
    engines: dict[str, SpeculativeGenerator] = {
        "casd": build_generator(generator.settings, target, generator.tokenizer, "casd", policy="fixed")
    }
    if generator.head is not None:
        with_head = generator.settings.model_copy(update={"eagle_head": generator.head})
        engines["eagle2+casd"] = build_generator(
            with_head, target, generator.tokenizer, "eagle2+casd", policy="fixed"
        )
    baseline = GreedyBaseline(target.model, engines["casd"].stop_token_ids, compile_baseline)
    capacity = max(len(request.prompt_ids) + request.max_new_tokens for request in requests)
    decoder = BatchDecoder(target, 1, build_verifier(generator.settings, target, 1, capacity))
    longest = max(requests, key=lambda request: len(request.prompt_ids))
    baseline.warm_up(
        longest.prompt_ids, longest.max_new_tokens
    )  # the largest static cache first: no recompile
    for request in requests:  # warm-up: greedy decoding repeats its trees, so every graph bucket is met here
        baseline(request.prompt_ids, request.max_new_tokens)
        for engine in engines.values():
            decode_alone(engine, decoder, request)
    figures = {method: MethodFigures() for method in (BASELINE, *engines)}
    for request in requests:
        started = synced_clock(target.device)
        expected = baseline(request.prompt_ids, request.max_new_tokens)
        _add(figures[BASELINE], expected, synced_clock(target.device) - started, expected, None)
        for method, engine in engines.items():
            started = synced_clock(target.device)
            result = decode_alone(engine, decoder, request)
            _add(
                figures[method],
                result.token_ids,
                synced_clock(target.device) - started,
                expected,
                result.stats,
            )
    for request in requests if baseline_prefill else ():
        started = synced_clock(target.device)
        baseline(request.prompt_ids, 1)
        figures[BASELINE].prefill_seconds += synced_clock(target.device) - started
    lengths = sorted(len(request.prompt_ids) for request in requests)
    notes = {
        "model": f"model: {generator.description}",
        "prompt_tokens": f"{lengths[0]}–{lengths[-1]}",
        "tree_nodes": str(tree_nodes(generator.settings)),
        "baseline": baseline.describe(),
        "verifier": decoder.verifier.mode,
        "head": generator.head_note,
    }
    return figures, notes


def mismatches(dtype: str, figures: dict[str, MethodFigures]) -> list[str]:
    """What fails the check: in float32 every method's answers must equal the baseline's token for token (in
    bfloat16 a near-tied argmax may flip, so there they are only counted)."""
    if dtype != "float32":
        return []
    return [
        f"float32 {method}: {figure.equal} of {figure.answers} answers equal the baseline's tokens"
        for method, figure in figures.items()
        if method != BASELINE and figure.equal < figure.answers
    ]


def _add(
    figure: MethodFigures,
    tokens: Sequence[int],
    seconds: float,
    expected: Sequence[int],
    stats: GenerationStats | None,
) -> None:
    figure.tokens += len(tokens)
    figure.seconds += seconds
    figure.answers += 1
    figure.equal += list(tokens) == list(expected)
    if stats is not None:
        figure.taus.append(stats.tau)
        figure.steps += len(stats.steps)
        figure.accepted += sum(step.acceptance_length for step in stats.steps)
        figure.nodes += sum(stats.nodes_by_source.values())
        figure.prefill_seconds += stats.prefill_seconds


def _rows(dtype: str, figures: dict[str, MethodFigures]) -> list[str]:
    reference = figures[BASELINE].tokens_per_second
    lines = []
    for method in (BASELINE, *METHODS):
        figure = figures.get(method)
        if figure is None:
            lines.append(f"| {dtype} | {method} | skipped (no EAGLE head) | | | | | |")
            continue
        ratio = figure.tokens_per_second / reference if reference > 0 else 0.0
        tau = f"{sum(figure.taus) / len(figure.taus):.2f}" if figure.taus else "—"
        goal = "—" if method == BASELINE else ("met" if ratio >= GOAL_SPEEDUP else "not met")
        lines.append(
            f"| {dtype} | {method} | {figure.tokens} | {figure.tokens_per_second:.1f} | {ratio:.2f}× | {tau} | "
            f"{figure.equal} of {figure.answers} | {goal} |"
        )
    return lines
