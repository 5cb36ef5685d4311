"""`python -m research.train_head extract|train`: feature extraction and head training from the command line."""

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch

from modelstore.device import TORCH_DTYPES, torch_dtype
from research.train_head import heads, shards
from research.train_head.extract import ExtractionPlan, FeatureExtractor
from research.train_head.sources import (
    read_all_rag_prompts,
    read_documents,
    read_squad_contexts,
    split_held_out,
    write_held_out,
)
from research.train_head.train import CHECKPOINT_NAME, HeadTrainer, Hyperparameters, TrainingData
from research.train_head.vocabulary import most_frequent_tokens
from research.training_state import CheckpointError
from speculative.build import load_target
from speculative.settings import SpeculativeSettings

HELD_OUT_NAME = "held_out.jsonl"
RUN_NAME = "training.json"


ADAPTER_HELP = (
    "LoRA adapter merged into the target (GENERATOR_ADAPTER; default: the model's committed adapter, 'none': the "
    "plain model); a head drafts for the model it was trained on, adapter included"
)


class RunMismatchError(ValueError):
    """The output folder holds a checkpoint of a run with other settings; resuming it would mix two runs."""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m research.train_head", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    extract = commands.add_parser("extract", help="teacher-force the target over text and store its features")
    extract.add_argument("--model", required=True, help="target model: a name in the model cache or a folder")
    extract.add_argument("--adapter", help=ADAPTER_HELP)
    extract.add_argument("--out", required=True, type=Path, help="feature folder (resumed if it exists)")
    extract.add_argument(
        "--documents", type=Path, action="append", default=[], help="PDF, text file or folder"
    )
    extract.add_argument(
        "--squad", type=Path, action="append", default=[], help="SQuAD-format JSON (contexts)"
    )
    extract.add_argument("--squad-limit", type=int, help="at most this many paragraphs per --squad file")
    extract.add_argument(
        "--rag",
        type=Path,
        action="append",
        default=[],
        help="rendered RAG requests of python -m research.rag_prompts (JSON lines; repeatable)",
    )
    extract.add_argument(
        "--held-out",
        type=int,
        default=0,
        help=f"hold out the first N RAG prompts, in --rag order (written to OUT/{HELD_OUT_NAME})",
    )
    extract.add_argument("--max-length", type=int, default=1024, help="tokens per training sequence")
    extract.add_argument(
        "--answer-tokens", type=int, default=96, help="max tokens of a self-distilled answer"
    )
    extract.add_argument(
        "--self-distill",
        type=int,
        help="only the first N training RAG prompts get the target's own answer (default: all)",
    )
    extract.add_argument("--shard-tokens", type=int, default=16_384)
    extract.add_argument("--threads", type=int, help="torch CPU threads")
    train = commands.add_parser(
        "train", help="train a head on extracted features (resumes from OUT's checkpoint)"
    )
    train.add_argument("--model", required=True, help="target model the features came from")
    train.add_argument("--adapter", help=ADAPTER_HELP)
    train.add_argument("--features", type=Path, action="append", required=True, help="feature folder(s)")
    train.add_argument("--out", required=True, type=Path, help="head folder: public format + training.json")
    train.add_argument("--from-head", help="fine-tune this head (folder, cache entry) instead of a new one")
    train.add_argument("--draft-vocab", type=int, default=8192, help="draft vocabulary size of a new head")
    train.add_argument(
        "--intermediate-size", type=int, help="MLP width of a new head (default: the target's)"
    )
    train.add_argument("--attention-heads", type=int, help="attention heads of a new head")
    train.add_argument("--kv-heads", type=int, help="key/value heads of a new head")
    train.add_argument("--head-dim", type=int, help="attention head size of a new head")
    defaults = Hyperparameters()
    train.add_argument("--epochs", type=int, default=defaults.epochs)
    train.add_argument("--lr", type=float, default=defaults.learning_rate)
    train.add_argument("--warmup", type=int, default=defaults.warmup_steps, help="warm-up steps")
    train.add_argument("--grad-clip", type=float, default=defaults.grad_clip)
    train.add_argument("--noise", type=float, default=defaults.noise, help="uniform feature noise width")
    train.add_argument("--ce-weight", type=float, default=defaults.ce_weight)
    train.add_argument("--max-length", type=int, default=defaults.max_length, help="longer sequences are cut")
    train.add_argument("--checkpoint-every", type=int, default=defaults.checkpoint_every, help="steps")
    train.add_argument("--seed", type=int, default=defaults.seed)
    train.add_argument(
        "--save-dtype", choices=sorted(TORCH_DTYPES), default="float32", help="stored weight precision"
    )
    train.add_argument("--threads", type=int, help="torch CPU threads")
    return parser.parse_args(argv)


def extract(args: argparse.Namespace) -> int:
    documents = read_documents(args.documents)
    documents += [doc for path in args.squad for doc in read_squad_contexts(path, args.squad_limit)]
    held_out, rag_prompts = (
        split_held_out(read_all_rag_prompts(args.rag), args.held_out) if args.rag else ([], [])
    )
    if args.rag:
        write_held_out(held_out, args.out / HELD_OUT_NAME)
    settings = target_settings(args)
    target, tokenizer = load_target(settings)
    plan = ExtractionPlan(
        folder=args.out,
        target_name=target_identity(settings),
        documents=documents,
        rag_prompts=rag_prompts,
        max_length=args.max_length,
        answer_tokens=args.answer_tokens,
        shard_tokens=args.shard_tokens,
        self_distilled=args.self_distill,
    )
    manifest = FeatureExtractor(target, tokenizer, settings, plan).run()
    summary = {
        "sequences": len(manifest.done),
        "tokens": manifest.tokens,
        "truncated_sequences": manifest.truncated,
        "truncated_tokens": manifest.truncated_tokens,
        "held_out_prompts": len(held_out),
    }
    print(json.dumps(summary, indent=2))
    return 0


def target_settings(args: argparse.Namespace) -> SpeculativeSettings:
    """The target as the worker would load it: the model's default adapter unless `--adapter` names another."""
    overrides: dict[str, Any] = {"generator_model": args.model}
    if args.adapter is not None:
        overrides["generator_adapter"] = args.adapter
    return SpeculativeSettings(**overrides)


def target_identity(settings: SpeculativeSettings) -> str:
    """The name features are kept under: an adapted target's features are not the plain model's."""
    adapter = settings.generator_adapter
    return settings.generator_model if adapter is None else f"{settings.generator_model} + {adapter}"


def hyperparameters(args: argparse.Namespace) -> Hyperparameters:
    return Hyperparameters(
        epochs=args.epochs,
        learning_rate=args.lr,
        warmup_steps=args.warmup,
        grad_clip=args.grad_clip,
        noise=args.noise,
        ce_weight=args.ce_weight,
        max_length=args.max_length,
        seed=args.seed,
        checkpoint_every=args.checkpoint_every,
    )


def train(args: argparse.Namespace) -> int:
    hyper = hyperparameters(args)
    settings = target_settings(args)
    shards.check_target(args.features, target_identity(settings))
    target, _ = load_target(settings)
    target.model.requires_grad_(False)
    data = TrainingData.load(args.features, hyper.max_length)
    vocab_size = int(target.config.vocab_size)
    if args.from_head:
        head = heads.existing_head(args.from_head, settings.model_cache, target)
        vocabulary = None
    else:
        vocabulary = most_frequent_tokens((s.tokens for s in data.sequences), vocab_size, args.draft_vocab)
        shape = heads.HeadShape(args.intermediate_size, args.attention_heads, args.kv_heads, args.head_dim)
        head = heads.new_head(target, vocabulary, shape, hyper.seed)
    record = run_record(args, settings, hyper, data, vocabulary.coverage if vocabulary else None, head)
    check_resumable(args.out, record)
    args.out.mkdir(parents=True, exist_ok=True)
    trainer = HeadTrainer(
        head, target.model.get_input_embeddings(), heads.draft_rows(target, head), data, hyper, args.out
    )
    try:
        resumed = trainer.resume()
    except CheckpointError as error:
        raise SystemExit(f"error: {error}") from None
    if resumed:
        print(f"resuming {args.out} at step {trainer.step} of {trainer.total_steps}", file=sys.stderr)

    def save() -> None:
        heads.save_trained(head, args.out, torch_dtype(args.save_dtype))
        shards.write_json(args.out / RUN_NAME, record | {"steps": trainer.step, "history": trainer.history})

    shards.write_json(args.out / RUN_NAME, record | {"steps": trainer.step, "history": trainer.history})
    trainer.run(save)
    print(json.dumps({"steps": trainer.step, "last": trainer.history[-1:], **record["data"]}, indent=2))
    return 0


def run_record(
    args: argparse.Namespace,
    settings: SpeculativeSettings,
    hyper: Hyperparameters,
    data: TrainingData,
    coverage: float | None,
    head: Any,
) -> dict[str, Any]:
    """What `training.json` records: target, data, vocabulary, head shape, hyperparameters, command."""
    manifests = [shards.read_manifest(folder) for folder in args.features]
    draft_ids = head.draft_token_ids
    return {
        "target": settings.generator_model,
        "adapter": settings.generator_adapter,
        "from_head": args.from_head,
        "data": {
            "feature_folders": [str(folder) for folder in args.features],
            "sequences": len(data.sequences),
            "tokens": sum(len(sequence.tokens) for sequence in data.sequences),
            "truncated_sequences": data.truncated,
            "truncated_tokens": data.truncated_tokens,
            "extraction_truncated_sequences": sum(manifest.truncated for manifest in manifests),
            "self_distilled_answers": sum(len(manifest.answers) for manifest in manifests),
        },
        "vocabulary": {
            "draft_vocab_size": None if draft_ids is None else len(draft_ids),
            "training_token_coverage": coverage,
        },
        "head": {key: getattr(head.config, key) for key in HEAD_FIELDS},
        "hyperparameters": asdict(hyper),
        "save_dtype": args.save_dtype,
        "command": shlex.join(["python", "-m", "research.train_head", *sys.argv[1:]]),
    }


HEAD_FIELDS = ("hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads", "head_dim")


def check_resumable(folder: Path, record: dict[str, Any]) -> None:
    """A checkpoint in `folder` may only be resumed by the same run (data, vocabulary, head, hyperparameters)."""
    previous_path = folder / RUN_NAME
    if not (folder / CHECKPOINT_NAME).is_file() or not previous_path.is_file():
        return
    previous = json.loads(previous_path.read_text(encoding="utf-8"))
    keys = ("target", "adapter", "from_head", "data", "vocabulary", "head", "hyperparameters")
    changed = [key for key in keys if previous.get(key) != json.loads(json.dumps(record[key]))]
    if changed:
        raise RunMismatchError(
            f"{folder} holds a checkpoint of another run (differs in: {', '.join(changed)}); "
            "use another --out folder or delete it to start over"
        )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if getattr(args, "threads", None):
        torch.set_num_threads(args.threads)
    if args.command == "extract":
        return extract(args)
    return train(args)
