"""`eagle2` and `eagle2+casd` on SmolLM2-135M's real weights, built from the settings as the worker builds them.

No trained head exists for the offline models, so the head is random (saved in the public format): this checks
losslessness on a real model and real prompts, not speed.
"""

from pathlib import Path

import pytest

from speculative.build import build_generator, load_target
from speculative.engine.request import GenerationRequest
from tests.speculative.conftest import SMOLLM2, ReferenceGreedy, cached_model
from tests.speculative.eagle_heads import eagle_settings, saved_random_head

MAX_NEW_TOKENS = 24
CONTEXT = (
    "Titel: Handhygiëne\nTekst: Wrijf de handen 30 seconden in met handalcohol. Was de handen met water en zeep "
    "bij zichtbaar vuil en bij patiënten met C. difficile. Draag geen ringen, horloges of armbanden."
)
PROMPTS = [
    f"[begin documenten]\n{CONTEXT}\n[einde documenten]\n\n[begin vraag]\nHoe lang wrijf ik mijn handen?\n"
    "[einde vraag]\n\n[begin antwoord]\n",
    "Repeat after me: the quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The",
]


@pytest.mark.slow
@pytest.mark.parametrize("method", ["eagle2", "eagle2+casd"])
def test_eagle2_methods_equal_greedy_generate_on_smollm2(
    method: str, tmp_path: Path, reference_greedy: ReferenceGreedy
) -> None:
    # a fixed tree: the adaptive policy rightly verifies hardly any of a random head's drafts
    settings = eagle_settings(None, generator_model=cached_model(SMOLLM2), tree_policy="fixed")
    target, tokenizer = load_target(settings)
    head = saved_random_head(tmp_path / "head", target.config, seed=0)
    generator = build_generator(
        settings.model_copy(update={"eagle_head": str(head)}), target, tokenizer, method
    )

    for prompt in PROMPTS:
        prompt_ids = tokenizer(prompt)["input_ids"]
        result = generator.generate(GenerationRequest(prompt_ids, MAX_NEW_TOKENS)).run()
        expected = reference_greedy(target.model, prompt_ids, MAX_NEW_TOKENS)
        assert result.token_ids == expected, prompt
        assert result.stats.nodes_by_source["eagle2"] > 0
