"""The one model a worker serves: target and tokenizer, the drafting methods it offers, a generator per method.

Methods needing an EAGLE head (`eagle2`) are offered only when `EAGLE_HEAD` is set; a `DRAFT_METHOD` naming one
without a head is refused at start (the registry's `check_method`), not quietly replaced. Generators are
built on first use (an EAGLE head is loaded once) and only on the decoding thread. With the adaptive tree policy
the device's verification cost model is read from its cache at start; when missing, the worker serves at once with
the device's prior tree budget and measures the cost model a forward at a time while it is idle (`measure_step`),
then installs it for every generator (answers started after that adapt). Health reports it.

Before the worker says ready, `warm_up` does the verifier's slow first runs (compiling its forward with
VERIFY_MODE=compiled, capturing CUDA graphs) for every shape serving and the measurement will use, so that no
answer waits for them; health reports what was warmed up and how long it took.
"""

import logging
import threading
import time
from typing import Any

from transformers import PreTrainedTokenizerBase

from speculative.budget.cost_model import TREE_ROWS, CostMeasurement, CostModel, load_cached, store
from speculative.budget.prior import CostModelSlot
from speculative.build import (
    build_generator,
    build_verifier,
    cost_model_identity,
    cost_model_verifier,
    load_target,
    most_tree_rows,
)
from speculative.drafters.registry import available_methods, check_method
from speculative.engine.batch import BatchDecoder
from speculative.engine.batch_verifier import BatchVerifier
from speculative.engine.generator import SpeculativeGenerator
from speculative.engine.request import GenerationRequest, validate_request
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings
from speculative.worker.encoding import PromptEncoder

log = logging.getLogger(__name__)

WARM_UP_PROMPT = "Hello"
WARM_UP_NEW_TOKENS = 8


class LoadedModel:
    """Target, tokenizer, prompt encoder and generators; `load` blocks for seconds to minutes."""

    def __init__(self, settings: SpeculativeSettings) -> None:
        self.settings = settings
        self.method = settings.draft_method
        check_method(self.method, available_methods(settings))
        target, tokenizer = load_target(settings)
        self.target: TargetModel = target
        self.tokenizer: PreTrainedTokenizerBase = tokenizer
        self.encoder = PromptEncoder(tokenizer, settings.chat_template)
        self.cost_models: CostModelSlot | None = None
        self._measurement: CostMeasurement | None = None
        self._measurement_verifier: BatchVerifier | None = None
        if settings.tree_policy == "adaptive":
            identity = cost_model_identity(settings, target)
            cached = load_cached(identity, settings.cost_model_dir)
            self.cost_models = CostModelSlot(cached)
            if cached is None:
                self._measurement_verifier = cost_model_verifier(settings, target)
                self._measurement = CostMeasurement(target, identity, verifier=self._measurement_verifier)
        self._generators: dict[str, SpeculativeGenerator] = {}
        self._lock = threading.Lock()
        self.verifier = build_verifier(settings, target, settings.max_batch)
        self.warmed_up: dict[str, Any] | None = None  # what `warm_up` prepared, for health

    @property
    def context_length(self) -> int:
        """The most positions an answer may reach: the model's context, or the static KV cache's."""
        return self.verifier.context_length

    def validate(self, request: GenerationRequest) -> None:
        """The engine's checks, before queueing (raises `InvalidRequestError`)."""
        validate_request(request, self.context_length, int(self.target.config.vocab_size))

    def generator(self, method: str) -> SpeculativeGenerator:
        """The generator of an already checked `method`, built on first use."""
        with self._lock:
            if method not in self._generators:
                self._generators[method] = build_generator(
                    self.settings, self.target, self.tokenizer, method, self.cost_models
                )
            return self._generators[method]

    @property
    def cost_model(self) -> CostModel | None:
        """The cost model the adaptive budgets use; None before it is measured (or with the fixed policy)."""
        return None if self.cost_models is None else self.cost_models.get()

    @property
    def measuring(self) -> bool:
        """Whether the cost model is still to be measured."""
        return self._measurement is not None

    def measure_step(self) -> CostModel | None:
        """Run the next forward of the pending cost-model measurement (on the decoding thread, between answers);
        once it is complete, cache and install the cost model and return it."""
        measurement = self._measurement
        if measurement is None or not measurement.step():
            return None
        self._measurement = self._measurement_verifier = None
        cost_model = measurement.result
        assert cost_model is not None and self.cost_models is not None
        store(cost_model, self.settings.cost_model_dir)
        self.cost_models.install(cost_model)
        return cost_model

    def warm_up(self) -> None:
        """Before the first question: the serving verifier's slow first runs (`BatchVerifier.warm_up`) for up to
        MAX_BATCH answers and the largest tree of the default method, the measurement verifier's for its trees
        while a cost model is to be measured, then one short answer with the default method, decoded as answers
        are (first calls pay for allocations and lazy initialisation). A compilation or capture that fails is
        logged once and the verifier goes on without it (`/health` says which mode runs)."""
        started = time.monotonic()
        generator = self.generator(self.method)
        rows = most_tree_rows(self.settings, generator.drafter_factory())
        warmed_up: dict[str, Any] = {"verifier": self.verifier.warm_up(rows).to_json()}
        if self._measurement_verifier is not None:
            warmed_up["cost_model_verifier"] = self._measurement_verifier.warm_up(max(TREE_ROWS)).to_json()
        prompt_ids = self.encoder.prompt_ids(WARM_UP_PROMPT)
        generation = generator.generate(GenerationRequest(prompt_ids, WARM_UP_NEW_TOKENS))
        decoder = BatchDecoder(self.target, 1, self.verifier)
        decoder.join(generation)
        while decoder.members:
            decoder.step()
        generation.finish()
        self.warmed_up = warmed_up | {"seconds": round(time.monotonic() - started, 2)}
        log.info("warmed up: %s", self.warmed_up)

    def describe(self) -> dict[str, Any]:
        return {
            "model": self.settings.generator_model,
            "method": self.method,
            "methods": available_methods(self.settings),
            "device": self.settings.device,
            "dtype": self.settings.dtype,
            "chat_template": self.encoder.chat,
            "context_length": self.context_length,
            "verify_mode": self.verifier.mode,
            "tree_policy": self.settings.tree_policy,
            "cost_model": None if self.cost_model is None else self.cost_model.to_json(),
            "cost_model_measuring": self.measuring,
            "warm_up": self.warmed_up,
        }
