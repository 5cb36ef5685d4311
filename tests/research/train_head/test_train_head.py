"""`python -m research.train_head`: feature extraction, training, the saved head, and bad input.

The target is a tiny random Llama saved as a model folder with SmolLM2's tokenizer, so the command line runs
end to end in seconds: real documents (the sample PDFs), RAG prompts in the product's template, self-distilled
answers that must be the target's greedy answers, and a trained head that must load in the engine and stay
lossless.
"""

import json
import shutil
from functools import partial
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from transformers import AutoTokenizer

from api.prompting import build_rag_prompt
from research.train_head import shards
from research.train_head.cli import RunMismatchError, main
from research.train_head.sources import SourceError, read_all_rag_prompts
from research.train_head.train import HeadTrainer, Hyperparameters, TrainingData
from speculative.budget.fixed import FixedTreeBudget
from speculative.drafters.registry import drafter_factory
from speculative.eagle.checkpoint import HeadLoadError, load_head
from speculative.engine.generator import SpeculativeGenerator
from speculative.engine.kv_cache import KVCache
from speculative.engine.request import GenerationRequest
from speculative.engine.stopping import model_stop_token_ids
from speculative.engine.target import TargetModel
from tests.speculative.conftest import REPO_ROOT, SMOLLM2, ReferenceGreedy, cached_model, tiny_llama
from tests.speculative.eagle_heads import eagle_settings, saved_random_head

PDF = REPO_ROOT / "samples" / "documents" / "handhygiene.pdf"
CHUNKS = ["Wrijf de handen 20 tot 30 seconden in met handalcohol.", "Was de handen bij zichtbaar vuil."]
QUESTIONS = ["hoe lang handen wrijven?", "wanneer handen wassen?", "ring dragen?", "hoeveel ml?"]
SMALL_HEAD = [
    "--draft-vocab",
    "256",
    "--intermediate-size",
    "32",
    "--attention-heads",
    "2",
    "--kv-heads",
    "1",
]


@pytest.fixture(scope="module")
def model_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Llama as a model folder, with SmolLM2's tokenizer (skips without the model cache)."""
    folder = tmp_path_factory.mktemp("tiny-llama")
    tiny_llama(seed=0).save_pretrained(folder)
    tokenizer_folder = Path(cached_model(SMOLLM2))
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(tokenizer_folder / name, folder / name)
    return folder


STOP = ("[einde antwoord]",)


@pytest.fixture(scope="module")
def rag_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rag") / "prompts.jsonl"
    records = [
        {"id": f"q{index}", "prompt": build_rag_prompt(q, CHUNKS), "stop": list(STOP)}
        for index, q in enumerate(QUESTIONS)
    ]
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def test_prompts_of_several_files_keep_their_own_answers_even_with_the_same_ids(
    rag_file: Path, tmp_path: Path
) -> None:
    other = tmp_path / "more.jsonl"
    other.write_bytes(rag_file.read_bytes())

    prompts = read_all_rag_prompts([rag_file, other])

    assert len({prompt.id for prompt in prompts}) == 2 * len(QUESTIONS)


def test_a_prompt_id_that_appears_twice_is_refused(rag_file: Path, tmp_path: Path) -> None:
    concatenated = tmp_path / "both.jsonl"
    concatenated.write_bytes(rag_file.read_bytes() * 2)  # two files of the same ids, joined with cat

    with pytest.raises(SourceError, match="appears twice"):
        read_all_rag_prompts([concatenated])
    with pytest.raises(SourceError, match="appears twice"):
        read_all_rag_prompts([rag_file, rag_file])


def extract(model: Path, out: Path, *arguments: str) -> None:
    assert main(["extract", "--model", str(model), "--out", str(out), "--threads", "1", *arguments]) == 0


@pytest.fixture(scope="module")
def features(model_folder: Path, rag_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("features")
    extract(
        model_folder, out, "--documents", str(PDF), "--rag", str(rag_file), "--held-out", "1",
        "--max-length", "128", "--answer-tokens", "8", "--shard-tokens", "300",
    )  # fmt: skip
    return out


def test_held_out_prompts_are_split_off_first_and_never_extracted(features: Path, rag_file: Path) -> None:
    held_out = [json.loads(line) for line in (features / "held_out.jsonl").read_text().splitlines()]
    done = shards.read_manifest(features).done

    assert [record["id"] for record in held_out] == ["q0"]
    assert not any(source.endswith(":q0") for source in done)
    assert {source.rsplit(":", 1)[1] for source in done if source.startswith("rag:")} == {"q1", "q2", "q3"}


def test_documents_are_cut_into_windows_of_the_maximum_length(features: Path) -> None:
    manifest = shards.read_manifest(features)
    windows = [source for source in manifest.done if source.startswith(f"doc:{PDF}#")]

    assert len(windows) > 3 and len(manifest.shards) > 1
    assert all(len(sequence.tokens) <= 128 for sequence in shards.read_sequences(features))


def test_features_are_the_targets_teacher_forced_hidden_states(features: Path, model_folder: Path) -> None:
    target = TargetModel.load(model_folder, "cpu", "float32")
    sequence = next(shards.read_sequences(features))

    expected = target.prefill(sequence.tokens.tolist(), KVCache()).hidden_states

    assert torch.allclose(sequence.features.float(), expected, atol=2e-3, rtol=1e-3)  # stored as float16


def test_rag_answers_are_the_targets_own_greedy_answers(
    features: Path, model_folder: Path, reference_greedy: ReferenceGreedy
) -> None:
    """The engine wrote them (lossless, stopped at the template's markers): a prefix of plain greedy output."""
    target = TargetModel.load(model_folder, "cpu", "float32")
    tokenizer = AutoTokenizer.from_pretrained(model_folder)
    stops = model_stop_token_ids(target.config, target.model.generation_config, tokenizer)
    answers = shards.read_manifest(features).answers

    assert len(answers) == 3
    for source, answer in answers.items():
        question = QUESTIONS[int(source.rsplit(":q", 1)[1])]
        prompt = tokenizer(build_rag_prompt(question, CHUNKS))["input_ids"]
        assert answer and answer == reference_greedy(target.model, prompt, 8, stops)[: len(answer)]


def test_a_chat_models_rag_prompts_are_extracted_as_the_worker_sends_them_one_user_turn(
    model_folder: Path, rag_file: Path, tmp_path: Path, reference_greedy: ReferenceGreedy
) -> None:
    chat_model = tmp_path / "chat-model"
    shutil.copytree(model_folder, chat_model)
    shutil.copy(Path(cached_model(SMOLLM2)) / "chat_template.jinja", chat_model / "chat_template.jinja")
    extract(
        chat_model,
        tmp_path / "features",
        "--rag",
        str(rag_file),
        "--answer-tokens",
        "4",
        "--max-length",
        "512",
    )
    tokenizer = AutoTokenizer.from_pretrained(chat_model)
    target = TargetModel.load(chat_model, "cpu", "float32")
    stops = model_stop_token_ids(target.config, target.model.generation_config, tokenizer)
    messages = [{"role": "user", "content": build_rag_prompt(QUESTIONS[0], CHUNKS)}]
    turn = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    prompt = tokenizer(turn, add_special_tokens=False)["input_ids"]

    first = next(shards.read_sequences(tmp_path / "features")).tokens.tolist()

    assert first[: len(prompt)] == prompt
    assert tokenizer.decode(prompt).endswith("[begin antwoord]\n<|im_end|>\n<|im_start|>assistant\n")
    assert (
        first[len(prompt) :] == reference_greedy(target.model, prompt, 4, stops)[: len(first) - len(prompt)]
    )


def test_sequences_over_the_maximum_length_are_truncated_and_counted(
    model_folder: Path, rag_file: Path, tmp_path: Path
) -> None:
    extract(model_folder, tmp_path, "--rag", str(rag_file), "--max-length", "40", "--answer-tokens", "4")

    manifest = shards.read_manifest(tmp_path)
    lengths = [len(sequence.tokens) for sequence in shards.read_sequences(tmp_path)]
    assert manifest.truncated == len(QUESTIONS) and manifest.truncated_tokens > 0
    assert lengths == [40] * len(QUESTIONS)


def test_extraction_resumes_without_redoing_what_is_done(
    model_folder: Path, rag_file: Path, tmp_path: Path
) -> None:
    extract(model_folder, tmp_path, "--rag", str(rag_file), "--answer-tokens", "4", "--shard-tokens", "1")
    first = {path.name: path.stat().st_mtime_ns for path in (tmp_path / "shards").iterdir()}
    (tmp_path / "shards" / "shard-00099.safetensors.tmp").write_bytes(b"a shard cut off by a crash")

    extract(model_folder, tmp_path, "--rag", str(rag_file), "--answer-tokens", "4", "--shard-tokens", "1",
            "--documents", str(PDF))  # fmt: skip

    manifest = shards.read_manifest(tmp_path)
    assert {name: (tmp_path / "shards" / name).stat().st_mtime_ns for name in first} == first
    assert len(manifest.done) == len(set(manifest.done)) == len(QUESTIONS) + len(manifest.shards) - len(first)


def test_a_feature_folder_of_another_target_is_refused(features: Path) -> None:
    with pytest.raises(shards.ShardStoreError, match="holds features of target"):
        shards.open_manifest(features, "another-model", 64, 49_152, 128)


def train(model: Path, features: Path, out: Path, *arguments: str) -> None:
    command = [
        "train",
        "--model",
        str(model),
        "--features",
        str(features),
        "--out",
        str(out),
        "--threads",
        "1",
    ]
    assert main([*command, *SMALL_HEAD, *arguments]) == 0


def test_a_trained_head_is_saved_in_the_public_format_with_its_draft_vocabulary_and_run_record(
    features: Path, model_folder: Path, tmp_path: Path
) -> None:
    train(model_folder, features, tmp_path, "--epochs", "1", "--save-dtype", "float16")

    weights = load_file(tmp_path / "model.safetensors")
    config = json.loads((tmp_path / "config.json").read_text())
    record = json.loads((tmp_path / "training.json").read_text())
    assert config["draft_vocab_size"] == 256 and config["intermediate_size"] == 32
    assert weights["d2t"].shape == (256,) and weights["fc.weight"].dtype == torch.float16
    assert record["target"] == str(model_folder) and record["vocabulary"]["draft_vocab_size"] == 256
    assert 0 < record["vocabulary"]["training_token_coverage"] <= 1
    assert record["hyperparameters"]["ce_weight"] == 0.1 and record["steps"] == record["data"]["sequences"]
    assert record["command"].startswith("python -m research.train_head")


def test_the_draft_vocabulary_is_the_most_frequent_training_tokens(
    features: Path, model_folder: Path, tmp_path: Path
) -> None:
    train(model_folder, features, tmp_path, "--epochs", "1")
    counts = torch.zeros(49_152, dtype=torch.long)
    for sequence in shards.read_sequences(features):
        counts += torch.bincount(sequence.tokens, minlength=49_152)

    head = load_head(str(tmp_path), tmp_path / "cache", TargetModel.load(model_folder, "cpu", "float32"))

    assert head.draft_token_ids is not None
    assert int(counts[head.draft_token_ids].min()) >= int(counts.sort(descending=True).values[255])


def test_a_trained_head_drafts_losslessly_in_the_engine(
    features: Path, model_folder: Path, tmp_path: Path, reference_greedy: ReferenceGreedy
) -> None:
    train(model_folder, features, tmp_path, "--epochs", "1")
    target = TargetModel.load(model_folder, "cpu", "float32")
    stops = model_stop_token_ids(target.config, target.model.generation_config, None)
    sequence = next(shards.read_sequences(features)).tokens[:60].tolist()

    for method in ("eagle2", "eagle2+casd"):
        factory = drafter_factory(method, eagle_settings(tmp_path), target)
        generator = SpeculativeGenerator(target, None, factory, partial(FixedTreeBudget, 16), stops)
        result = generator.generate(GenerationRequest(sequence, 24)).run()
        assert result.token_ids == reference_greedy(target.model, sequence, 24, stops), method


def test_training_lowers_the_loss(features: Path, model_folder: Path, tmp_path: Path) -> None:
    train(model_folder, features, tmp_path, "--epochs", "6", "--checkpoint-every", "3", "--lr", "3e-3")

    history = json.loads((tmp_path / "training.json").read_text())["history"]
    first, last = history[:3], history[-3:]
    assert sum(h["loss"] for h in last) < 0.9 * sum(h["loss"] for h in first)
    assert sum(h["top1"] for h in last) > 3 * sum(h["top1"] for h in first)


class Crash(Exception):
    pass


def test_an_interrupted_run_resumes_from_its_checkpoint_to_the_same_weights(
    features: Path, model_folder: Path, tmp_path: Path
) -> None:
    target = TargetModel.load(model_folder, "cpu", "float32")
    data = TrainingData.load([features], 128)
    hyper = Hyperparameters(epochs=2, checkpoint_every=3, warmup_steps=2)

    def trainer(folder: Path) -> HeadTrainer:
        head = saved_random_head(folder / "init", target.config, seed=1)
        loaded = load_head(str(head), folder / "cache", target)
        return HeadTrainer(loaded, target.model.get_input_embeddings(), target.model.lm_head.weight.detach(),
                           data, hyper, folder)  # fmt: skip

    straight = trainer(tmp_path / "straight")
    straight.run(lambda: None)

    def crash() -> None:
        raise Crash

    interrupted = trainer(tmp_path / "interrupted")
    with pytest.raises(Crash):
        interrupted.run(crash)
    resumed = trainer(tmp_path / "interrupted")
    assert resumed.resume() and resumed.step == 3
    resumed.run(lambda: None)

    for key, value in straight.head.state_dict().items():
        assert torch.equal(resumed.head.state_dict()[key], value), key


def test_resuming_with_other_settings_is_refused(features: Path, model_folder: Path, tmp_path: Path) -> None:
    train(model_folder, features, tmp_path, "--epochs", "1")

    with pytest.raises(RunMismatchError, match="hyperparameters"):
        train(model_folder, features, tmp_path, "--epochs", "2")


def test_fine_tuning_a_head_that_does_not_fit_the_target_names_both_shapes(
    features: Path, model_folder: Path, tmp_path: Path
) -> None:
    other = tiny_llama(seed=0)
    other.config.hidden_size = 32
    saved_random_head(tmp_path / "other", other.config, seed=1)

    with pytest.raises(HeadLoadError, match=r"head hidden size 32 .* target hidden size 64"):
        train(model_folder, features, tmp_path / "out", "--from-head", str(tmp_path / "other"))
