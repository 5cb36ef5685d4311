"""`python -m research.adapt`: LoRA-adapt the generator on prompt/target examples and write the adapter.

`python -m research.adapt --data data.jsonl --out ADAPTER_DIR [--model google/gemma-3-270m] [--max-minutes 45]`
trains on the `train` rows of the JSONL (`python -m research.adapt_data` writes it), reports the held-out
loss on its `val` rows, checkpoints to `ADAPTER_DIR.state.pt` (run it again to resume) and writes the adapter
folder: `adapter_model.safetensors`, `adapter_config.json`, `training.json` and `SHA256SUMS`.
"""

import argparse
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import peft
import torch
import transformers
from transformers import AutoTokenizer

from modelstore.cache import read_manifest
from modelstore.checksums import file_sha256
from modelstore.device import TORCH_DTYPES
from modelstore.production import require_model
from research.adapt.examples import ExampleError, read_examples, tokenize
from research.adapt.train import AdapterTrainer, Hyperparameters, RunMismatchError, add_lora
from research.engine_bench.recording import command_line
from research.training_state import CheckpointError
from speculative.adapt.artifact import AdapterError, base_weights_digest, save_adapter
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings

SAVE_DTYPES = ("float16", "float32")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    settings_help = "(default: the worker's setting)"
    parser = argparse.ArgumentParser(prog="python -m research.adapt", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="JSONL rows {id, prompt, target, split}")
    parser.add_argument("--out", type=Path, required=True, help="the adapter folder to write")
    parser.add_argument("--model", help=f"base model, a name in the model cache or a folder {settings_help}")
    parser.add_argument("--device", help=f"torch device {settings_help}")
    parser.add_argument("--dtype", choices=sorted(TORCH_DTYPES), help=f"training dtype {settings_help}")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch CPU threads (1: see docs/speculative-engine.md)"
    )
    parser.add_argument("--max-length", type=int, default=640, help="prompt + target tokens at most")
    parser.add_argument("--max-minutes", type=float, help="stop (and save) after this much training time")
    parser.add_argument("--save-dtype", choices=SAVE_DTYPES, default="float16")
    defaults = Hyperparameters()
    for name, value in asdict(defaults).items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            flag = "--" + name.replace("_", "-")
            parser.add_argument(flag, type=type(value), default=value, help=f"(default {value})")
    return parser.parse_args(argv)


def hyperparameters(args: argparse.Namespace) -> Hyperparameters:
    names = [name for name in asdict(Hyperparameters()) if name != "target_modules"]
    return Hyperparameters(**{name: getattr(args, name) for name in names})


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.threads < 1 or args.max_length < 2 or (args.max_minutes is not None and args.max_minutes <= 0):
        raise SystemExit("--threads and --max-length must be positive, --max-minutes above 0")
    torch.set_num_threads(args.threads)
    settings = SpeculativeSettings()
    model_name = args.model or settings.generator_model
    source = Path(require_model(model_name, settings.model_cache, "GENERATOR_MODEL"))
    tokenizer = AutoTokenizer.from_pretrained(source)
    try:
        by_split = tokenize(read_examples(args.data), tokenizer, args.max_length)
    except ExampleError as error:
        raise SystemExit(str(error)) from error
    hyper = hyperparameters(args)
    target = TargetModel.load(source, args.device or settings.device, args.dtype or settings.dtype)
    peft_model = add_lora(target.model, hyper)
    run_key = {"data_sha256": file_sha256(args.data), "hyperparameters": asdict(hyper), "model": model_name}
    state_path = args.out.with_name(args.out.name + ".state.pt")
    trainer = AdapterTrainer(peft_model, by_split["train"], by_split["val"], hyper, state_path, run_key)
    try:
        resumed = trainer.resume()
    except (RunMismatchError, CheckpointError) as error:
        raise SystemExit(str(error)) from error
    log = lambda line: print(line, file=sys.stderr)  # noqa: E731
    log(
        f"{'resuming at step ' + str(trainer.progress.step) if resumed else 'starting'}: "
        f"{len(by_split['train'])} train, {len(by_split['val'])} val examples"
    )
    stopped = trainer.run(args.max_minutes * 60 if args.max_minutes else None, log)
    training = training_record(args, argv, model_name, source, by_split, trainer, stopped)
    save_dtype = TORCH_DTYPES[args.save_dtype]

    def write_files(folder: Path) -> None:
        state = {
            name: tensor.to(save_dtype) for name, tensor in peft_model.state_dict().items() if "lora_" in name
        }
        peft_model.save_pretrained(str(folder), state_dict=state)
        (folder / "README.md").unlink(missing_ok=True)

    try:
        save_adapter(args.out, write_files, training)
    except AdapterError as error:
        raise SystemExit(str(error)) from error
    log(f"wrote the adapter to {args.out} after {trainer.progress.step} steps ({stopped})")
    return 0


def training_record(
    args: argparse.Namespace,
    argv: Sequence[str] | None,
    model_name: str,
    source: Path,
    by_split: dict[str, Any],
    trainer: AdapterTrainer,
    stopped: str,
) -> dict[str, Any]:
    """training.json: enough to reproduce the run and to refuse the adapter on another base model."""
    manifest = read_manifest(source)
    return {
        "command": command_line("research.adapt", argv),
        "base_model": {
            "name": model_name,
            "weights_sha256": base_weights_digest(source),
            "sources": manifest.sources if manifest is not None else None,
        },
        "data": {
            "file": str(args.data),
            "sha256": file_sha256(args.data),
            "train_examples": len(by_split["train"]),
            "val_examples": len(by_split["val"]),
            "train_tokens": sum(example.length for example in by_split["train"]),
            "train_target_tokens": sum(len(example.target_ids) for example in by_split["train"]),
        },
        "hyperparameters": asdict(trainer.hyper),
        "max_length": args.max_length,
        "device": str(trainer.device),
        "dtype": args.dtype or str(next(trainer.peft_model.parameters()).dtype).removeprefix("torch."),
        "threads": args.threads,
        "save_dtype": args.save_dtype,
        "steps": trainer.progress.step,
        "planned_steps": trainer.total_steps,
        "stopped": stopped,
        "training_seconds": round(trainer.progress.seconds, 1),
        "history": trainer.progress.history,
        "versions": {
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "peft": peft.__version__,
        },
    }
