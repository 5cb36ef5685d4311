"""Teacher-force the frozen target over training sequences and stream its features to shards.

Documents are tokenised and cut into windows of `max_length` tokens (every token is trained on). A RAG prompt
first gets the target's own greedy answer (self-distillation: the head learns the answers it will be asked to
draft), generated losslessly with the engine (on a slow machine only the first `self_distilled` prompts get
one; the others are teacher-forced without an answer, which still teaches the template and the documents). A
prompt is encoded as the worker encodes it (`speculative.worker.encoding`: one user turn of a chat model's
template under CHAT_TEMPLATE=auto), so the head learns the sequences it will draft. Prompt and answer together
over `max_length` are truncated from the end and counted. Only the prompt's tail matters less than the answer,
but truncating the start would cut the template the answer depends on, so the tail is what goes.
"""

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from tqdm import tqdm
from transformers import PreTrainedTokenizerBase

from research.rendered_requests import RagPrompt
from research.train_head import shards
from research.train_head.sources import Document
from speculative.build import build_generator
from speculative.engine.kv_cache import KVCache
from speculative.engine.request import GenerationRequest
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings
from speculative.worker.encoding import PromptEncoder

MIN_WINDOW = 16  # a document's last window shorter than this teaches little and is dropped


@dataclass(frozen=True)
class ExtractionPlan:
    """What to extract into `folder`, for the target named `target_name`."""

    folder: Path
    target_name: str
    documents: Sequence[Document]
    rag_prompts: Sequence[RagPrompt]
    max_length: int
    answer_tokens: int
    shard_tokens: int
    self_distilled: int | None = None


@dataclass(frozen=True)
class Item:
    source_id: str
    token_ids: list[int]


class FeatureExtractor:
    """Runs the plan, skipping what the folder's manifest already lists (resume after an interruption)."""

    def __init__(
        self,
        target: TargetModel,
        tokenizer: PreTrainedTokenizerBase,
        settings: SpeculativeSettings,
        plan: ExtractionPlan,
    ) -> None:
        self.target = target
        self.tokenizer = tokenizer
        self.settings = settings
        self.plan = plan
        self.encoder = PromptEncoder(tokenizer, settings.chat_template)
        self.manifest = shards.open_manifest(
            plan.folder,
            plan.target_name,
            target.hidden_size,
            int(target.config.vocab_size),
            plan.max_length,
        )

    def run(self) -> shards.Manifest:
        writer = shards.ShardWriter(self.plan.folder, self.manifest, self.plan.shard_tokens)
        done = set(self.manifest.done)
        items = [
            item
            for item in tqdm(self._items(), desc="answers and windows", unit="seq")
            if item.source_id not in done
        ]
        with tqdm(total=sum(len(item.token_ids) for item in items), unit="tok", desc="features") as bar:
            for item in items:
                writer.add(item.source_id, self._features(item.token_ids))
                bar.update(len(item.token_ids))
        writer.flush()
        return self.manifest

    def _items(self) -> Iterator[Item]:
        for document in self.plan.documents:
            yield from self._windows(document)
        for index, prompt in enumerate(self.plan.rag_prompts):
            answered = self.plan.self_distilled is None or index < self.plan.self_distilled
            yield self._rag_item(prompt, answered)

    def _windows(self, document: Document) -> Iterator[Item]:
        token_ids = list(self.tokenizer(document.text)["input_ids"])
        body = token_ids[1:] if token_ids and token_ids[0] == self.tokenizer.bos_token_id else token_ids
        prefix = token_ids[: len(token_ids) - len(body)]
        step = self.plan.max_length - len(prefix)
        for index, start in enumerate(range(0, len(body), step)):
            window = body[start : start + step]
            if len(window) >= MIN_WINDOW:
                yield Item(f"{document.source_id}#{index}", prefix + window)

    def _rag_item(self, prompt: RagPrompt, answered: bool) -> Item:
        prompt_ids = self.encoder.prompt_ids(prompt.prompt)
        answer = self.manifest.answers.get(prompt.id, [] if not answered else None)
        if answer is None:
            context_ids = None if prompt.context is None else self.encoder.context_ids(prompt.context)
            answer = self._greedy_answer(prompt_ids, prompt.stop, context_ids)
            self.manifest.answers[prompt.id] = answer
            shards.save_manifest(self.plan.folder, self.manifest)  # answers cost minutes: keep them at once
        token_ids = prompt_ids + answer
        excess = len(token_ids) - self.plan.max_length
        if excess > 0:
            self.manifest.truncated += 1
            self.manifest.truncated_tokens += excess
            token_ids = token_ids[: self.plan.max_length]
        return Item(prompt.id, token_ids)

    def _greedy_answer(
        self, prompt_ids: list[int], stop: tuple[str, ...], context_ids: list[int] | None
    ) -> list[int]:
        """The target's greedy answer, through the engine (lossless; CASD, copying from the passages as in the
        worker, only makes it faster)."""
        generator = build_generator(self.settings, self.target, self.tokenizer, "casd")
        request = GenerationRequest(prompt_ids, self.plan.answer_tokens, stop, context_ids)
        return list(generator.generate(request).run().token_ids)

    def _features(self, token_ids: list[int]) -> shards.Sequence:
        output = self.target.prefill(token_ids, KVCache())
        return shards.Sequence(
            tokens=torch.tensor(token_ids), features=output.hidden_states.to("cpu", shards.FEATURE_DTYPE)
        )
