"""The EAGLE-1/2 training loop: predict the target's next feature from its feature and the next token.

Loss per sequence (EAGLE-1/2): SmoothL1 between the head's output and the target's next feature, plus
`ce_weight` × the cross-entropy of the head's token distribution against the target's, both read through the
target's lm_head restricted to the draft vocabulary (what the head drafts from). Input features get uniform noise
(±noise/2), as EAGLE does, so the head tolerates its own imperfect features when it drafts deeper levels.
AdamW, linear warm-up then linear decay, gradient clipping. One sequence is one step; the order is a fixed
shuffle per epoch, so a run resumed from its checkpoint (weights, optimizer, step) sees exactly what it would
have seen.
"""

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn
from tqdm import tqdm

from research.train_head import shards
from research.training_state import load_training_state
from speculative.eagle.head import EagleHead
from speculative.engine.attention_mask import additive_mask

CHECKPOINT_NAME = "training_state.pt"


@dataclass(frozen=True)
class Hyperparameters:
    """What the run's config records; the defaults suit a small head on a few hundred thousand tokens."""

    epochs: int = 4
    learning_rate: float = 3e-4
    betas: tuple[float, float] = (0.9, 0.95)
    weight_decay: float = 0.0
    warmup_steps: int = 20
    grad_clip: float = 0.5
    noise: float = 0.2
    ce_weight: float = 0.1
    max_length: int = 1024
    seed: int = 0
    checkpoint_every: int = 25


@dataclass(frozen=True)
class TrainingData:
    """The training sequences (truncated to the maximum length) and how many had to be truncated."""

    sequences: list[shards.Sequence]
    truncated: int
    truncated_tokens: int

    @classmethod
    def load(cls, folders: Sequence[Path], max_length: int) -> "TrainingData":
        sequences, truncated, cut = [], 0, 0
        for folder in folders:
            for sequence in shards.read_sequences(folder):
                excess = len(sequence.tokens) - max_length
                if excess > 0:
                    truncated, cut = truncated + 1, cut + excess
                    sequence = shards.Sequence(sequence.tokens[:max_length], sequence.features[:max_length])
                if len(sequence.tokens) >= 2:
                    sequences.append(sequence)
        return cls(sequences, truncated, cut)


@dataclass
class StepStats:
    loss: float
    feature_loss: float
    ce_loss: float
    top1: float


class HeadTrainer:
    """Trains `head` on `data`; `embed` is the target's embedding layer, `lm_rows` its draft-vocabulary rows."""

    def __init__(
        self,
        head: EagleHead,
        embed: Callable[[torch.Tensor], torch.Tensor],
        lm_rows: torch.Tensor,
        data: TrainingData,
        hyper: Hyperparameters,
        folder: Path,
    ) -> None:
        self.head = head.train()
        self.embed = embed
        self.lm_rows = lm_rows
        self.data = data
        self.hyper = hyper
        self.folder = folder
        self.total_steps = hyper.epochs * len(data.sequences)
        self.optimizer = torch.optim.AdamW(
            [p for p in head.parameters() if p.requires_grad],
            lr=hyper.learning_rate,
            betas=hyper.betas,
            weight_decay=hyper.weight_decay,
        )
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, self._schedule)
        self.step = 0
        self.history: list[dict[str, float]] = []

    def _schedule(self, step: int) -> float:
        if step < self.hyper.warmup_steps:
            return (step + 1) / self.hyper.warmup_steps
        remaining = self.total_steps - self.hyper.warmup_steps
        return max(0.05, 1 - (step - self.hyper.warmup_steps) / max(1, remaining))

    def resume(self) -> bool:
        """Continue from the folder's checkpoint, if any; True when one was found."""
        path = self.folder / CHECKPOINT_NAME
        if not path.is_file():
            return False
        state = load_training_state(path, "cpu")
        self.head.load_state_dict(state["head"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.step, self.history = int(state["step"]), list(state["history"])
        return True

    def run(self, on_checkpoint: Callable[[], None]) -> None:
        """Train to the last step, checkpointing every `checkpoint_every` steps and at the end."""
        window: list[StepStats] = []
        with tqdm(total=self.total_steps, initial=self.step, unit="seq", desc="training") as bar:
            while self.step < self.total_steps:
                stats = self._train_step(self._sequence(self.step))
                self.step += 1
                window.append(stats)
                bar.update(1)
                bar.set_postfix(loss=f"{stats.loss:.3f}", top1=f"{stats.top1:.2f}")
                if self.step % self.hyper.checkpoint_every == 0 or self.step == self.total_steps:
                    self._record(window)
                    window = []
                    self._save_checkpoint()
                    on_checkpoint()

    def _sequence(self, step: int) -> shards.Sequence:
        epoch, index = divmod(step, len(self.data.sequences))
        order = list(range(len(self.data.sequences)))
        random.Random(self.hyper.seed + epoch).shuffle(order)
        return self.data.sequences[order[index]]

    def _train_step(self, sequence: shards.Sequence) -> StepStats:
        torch.manual_seed(self.hyper.seed * 1_000_003 + self.step)
        features = sequence.features.float()
        inputs, targets = features[:-1], features[1:]
        noisy = inputs + (torch.rand_like(inputs) - 0.5) * self.hyper.noise
        with torch.no_grad():
            embeddings = self.embed(sequence.tokens[1:][None])[0].float()
            target_logits = targets @ self.lm_rows.T
        rows = len(inputs)
        mask = additive_mask(torch.ones(rows, rows, dtype=torch.bool).tril(), torch.float32)
        predicted = self.head(noisy, embeddings, torch.arange(rows), mask, None)
        feature_loss = nn.functional.smooth_l1_loss(predicted, targets)
        log_probs = torch.log_softmax(predicted @ self.lm_rows.T, dim=-1)
        ce_loss = -(torch.softmax(target_logits, dim=-1) * log_probs).sum(-1).mean()
        loss = feature_loss + self.hyper.ce_weight * ce_loss
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(self.head.parameters(), self.hyper.grad_clip)
        self.optimizer.step()
        self.scheduler.step()
        top1 = (log_probs.argmax(-1) == target_logits.argmax(-1)).float().mean()
        return StepStats(loss.item(), feature_loss.item(), ce_loss.item(), top1.item())

    def _record(self, window: list[StepStats]) -> None:
        if not window:
            return
        mean = {
            name: sum(getattr(stats, name) for stats in window) / len(window)
            for name in ("loss", "feature_loss", "ce_loss", "top1")
        }
        self.history.append({"step": self.step, **{k: round(v, 5) for k, v in mean.items()}})

    def _save_checkpoint(self) -> None:
        path = self.folder / CHECKPOINT_NAME
        temporary = path.with_name(path.name + ".tmp")
        state = {
            "head": self.head.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "step": self.step,
            "history": self.history,
        }
        torch.save(state, temporary)
        temporary.replace(path)
