"""Supervised LoRA fine-tuning with the loss on the target tokens only, sized for one CPU thread.

The 262k-row output layer is the costliest part of a forward of Gemma 3 270M: the decoder runs over the whole
example, but the lm_head only over the rows that predict a target token (the hidden states are sliced first).
Embeddings and output layer stay frozen; LoRA adapts the attention and MLP projections. A checkpoint (adapter
weights, optimizer, schedule, step, history) is written every N steps through a temporary file, so a run that is
stopped (`--max-minutes`, Ctrl-C, a crash) resumes where it was.
"""

import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

import torch
import torch.nn.functional as F
from peft import LoraConfig, PeftModel, get_peft_model, get_peft_model_state_dict, set_peft_model_state_dict
from tqdm import tqdm
from transformers import PreTrainedModel

from research.adapt.examples import TokenizedExample
from research.training_state import load_training_state

LORA_TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


class RunMismatchError(ValueError):
    """The checkpoint belongs to a run with other data or hyperparameters; resuming would mix two runs."""


@dataclass(frozen=True)
class Hyperparameters:
    rank: int = 16
    alpha: int = 32
    dropout: float = 0.05
    learning_rate: float = 2e-4
    weight_decay: float = 0.0
    warmup_steps: int = 20
    grad_clip: float = 1.0
    epochs: int = 1
    seed: int = 0
    eval_every: int = 100
    eval_examples: int = 24
    checkpoint_every: int = 25
    top_layers: int = 9
    max_steps: int = 0
    target_modules: tuple[str, ...] = LORA_TARGET_MODULES


@dataclass
class Progress:
    """What a checkpoint restores besides the weights: the step reached and the losses so far."""

    step: int = 0
    history: list[dict[str, float]] = field(default_factory=list)
    seconds: float = 0.0


def add_lora(model: PreTrainedModel, hyper: Hyperparameters) -> PeftModel:
    """Wrap `model` with LoRA on the named projections of its top `top_layers` layers (0: all); every other
    weight (embeddings, lm_head) is frozen. Below the first adapted layer nothing needs a gradient, so the
    backward pass stops there: adapting the top half costs about a third less than adapting every layer."""
    layers = int(model.config.get_text_config(decoder=True).num_hidden_layers)
    first = max(0, layers - hyper.top_layers) if hyper.top_layers else 0
    config = LoraConfig(
        layers_to_transform=list(range(first, layers)),
        r=hyper.rank,
        lora_alpha=hyper.alpha,
        lora_dropout=hyper.dropout,
        target_modules=list(hyper.target_modules),
        bias="none",
        task_type="CAUSAL_LM",
    )
    return cast(PeftModel, get_peft_model(model, config))


def target_loss(model: PreTrainedModel, example: TokenizedExample, device: torch.device) -> torch.Tensor:
    """Mean cross-entropy of the target tokens, with logits computed only at the rows that predict them."""
    ids = torch.tensor([example.prompt_ids + example.target_ids], device=device)
    hidden = model.get_decoder()(input_ids=ids, use_cache=False).last_hidden_state[0]
    first = len(example.prompt_ids) - 1
    rows = hidden[first : first + len(example.target_ids)]
    logits = model.get_output_embeddings()(rows)
    softcap = getattr(model.config.get_text_config(decoder=True), "final_logit_softcapping", None)
    if softcap:
        logits = torch.tanh(logits / softcap) * softcap
    labels = torch.tensor(example.target_ids, device=device)
    return F.cross_entropy(logits.float(), labels)


def learning_rate_factor(step: int, warmup: int, total: int) -> float:
    """Linear warm-up, then cosine decay to a tenth of the peak at the last planned step."""
    if step < warmup:
        return (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress))


class AdapterTrainer:
    """One run: the order of the examples, the optimizer and the checkpoint are fixed by the hyperparameters."""

    def __init__(
        self,
        peft_model: PeftModel,
        train: Sequence[TokenizedExample],
        val: Sequence[TokenizedExample],
        hyper: Hyperparameters,
        state_path: Path,
        run_key: dict[str, Any],
    ) -> None:
        self.peft_model = peft_model
        self.model = cast(PreTrainedModel, peft_model.get_base_model())
        self.device = next(peft_model.parameters()).device
        self.train = list(train)
        self.val = list(val)[: hyper.eval_examples]
        self.hyper = hyper
        self.state_path = state_path
        self.run_key = run_key
        planned = hyper.epochs * len(self.train)
        self.total_steps = min(planned, hyper.max_steps) if hyper.max_steps else planned
        trainable = [parameter for parameter in peft_model.parameters() if parameter.requires_grad]
        self.optimizer = torch.optim.AdamW(trainable, lr=hyper.learning_rate, weight_decay=hyper.weight_decay)
        total = self.total_steps  # the schedule is fixed here, whatever stops the run earlier
        self.schedule = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda step: learning_rate_factor(step, hyper.warmup_steps, total)
        )
        self.progress = Progress()

    def resume(self) -> bool:
        """Load the checkpoint if there is one; RunMismatchError if it was made with other data or settings."""
        if not self.state_path.is_file():
            return False
        state = load_training_state(self.state_path, self.device)
        if state["run_key"] != self.run_key:
            raise RunMismatchError(
                f"{self.state_path} belongs to another run (data or hyperparameters differ); "
                "delete it or give another --out"
            )
        set_peft_model_state_dict(self.peft_model, state["adapter"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.schedule.load_state_dict(state["schedule"])
        self.progress = Progress(**state["progress"])
        return True

    def run(self, max_seconds: float | None, log: Callable[[str], None]) -> str:
        """Train until every planned step is done or `max_seconds` have passed; returns why it stopped."""
        if not self.progress.history:  # the held-out loss of the base model, to compare the run's against
            self._record([], log)
        started = time.monotonic() - self.progress.seconds
        window: list[float] = []
        self.peft_model.train()
        bar = tqdm(
            total=self.total_steps, initial=self.progress.step, desc="adapt", unit="ex", mininterval=10
        )
        reason = "done"
        for example in self._remaining_examples():
            if max_seconds is not None and time.monotonic() - started > max_seconds:
                reason = "max-minutes"
                break
            window.append(self._train_step(example))
            self.progress.step += 1
            self.progress.seconds = time.monotonic() - started
            bar.update(1)
            bar.set_postfix(loss=f"{sum(window[-50:]) / len(window[-50:]):.3f}")
            if self.progress.step % self.hyper.eval_every == 0:
                self._record(window, log)
                window = []
            if self.progress.step % self.hyper.checkpoint_every == 0:
                self.save_checkpoint()
        bar.close()
        if window:
            self._record(window, log)
        self.save_checkpoint()
        return reason

    def _remaining_examples(self) -> Iterator[TokenizedExample]:
        """The examples of every epoch in a seeded shuffle, from the step reached on."""
        for step in range(self.progress.step, self.total_steps):
            epoch, index = divmod(step, len(self.train))
            order = list(range(len(self.train)))
            random.Random(self.hyper.seed + epoch).shuffle(order)
            yield self.train[order[index]]

    def _train_step(self, example: TokenizedExample) -> float:
        loss = target_loss(self.model, example, self.device)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(
            [p for p in self.peft_model.parameters() if p.requires_grad], self.hyper.grad_clip
        )
        self.optimizer.step()
        self.schedule.step()
        self.optimizer.zero_grad(set_to_none=True)
        return float(loss.detach())

    def held_out_loss(self) -> float | None:
        """Mean target loss over the first `eval_examples` validation rows (dropout off)."""
        if not self.val:
            return None
        self.peft_model.eval()
        with torch.no_grad():
            losses = [float(target_loss(self.model, example, self.device)) for example in self.val]
        self.peft_model.train()
        return sum(losses) / len(losses)

    def _record(self, window: Sequence[float], log: Callable[[str], None]) -> None:
        entry: dict[str, float] = {"step": self.progress.step, "seconds": round(self.progress.seconds, 1)}
        if window:
            entry["train_loss"] = round(sum(window) / len(window), 4)
        held_out = self.held_out_loss()
        if held_out is not None:
            entry["val_loss"] = round(held_out, 4)
        self.progress.history.append(entry)
        log(f"step {entry['step']}: " + ", ".join(f"{k} {v}" for k, v in entry.items() if k != "step"))

    def save_checkpoint(self) -> None:
        """Adapter, optimizer, schedule and progress through a temporary file (a crash leaves the old one)."""
        temporary = self.state_path.with_name(self.state_path.name + ".tmp")
        self.state_path.parent.mkdir(parents=True, exist_ok=True)
        torch.save(
            {
                "run_key": self.run_key,
                "adapter": get_peft_model_state_dict(self.peft_model),
                "optimizer": self.optimizer.state_dict(),
                "schedule": self.schedule.state_dict(),
                "progress": asdict(self.progress),
            },
            temporary,
        )
        temporary.replace(self.state_path)
