"""`python -m research.engine_bench.random_head --model M --out DIR`: an untrained EAGLE head for a target.

No trained EAGLE head exists for the offline models, so the benchmark can run `eagle2` and `eagle2+casd` only
with a random head: that checks losslessness on real weights and real prompts and measures what drafting and
verifying an EAGLE tree costs, but its drafts are almost never accepted, so its speed says nothing about a
trained head's. The head is written in the public EAGLE-1/2 format, sized for the target.
"""

import argparse
from collections.abc import Sequence
from pathlib import Path

import torch
from transformers import AutoConfig, PretrainedConfig

from modelstore import resolve_model
from speculative.eagle.checkpoint import save_head
from speculative.eagle.head import PUBLIC_HEAD_POSITIONS, EagleHead, head_config
from speculative.settings import SpeculativeSettings


def write_random_head(target: PretrainedConfig, out: Path, seed: int) -> Path:
    """Save a head with torch's default initialisation, from `seed`, for a target with config `target`."""
    torch.manual_seed(seed)
    head = EagleHead(
        head_config(target), fc_bias=False, max_positions=PUBLIC_HEAD_POSITIONS, attention="sdpa"
    )
    save_head(head, out)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m research.engine_bench.random_head", description=__doc__)
    parser.add_argument("--model", required=True, help="target model: a name in the model cache or a folder")
    parser.add_argument("--out", required=True, type=Path, help="folder to write the head into")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    target_folder = resolve_model(args.model, SpeculativeSettings().model_cache)
    print(write_random_head(AutoConfig.from_pretrained(target_folder), args.out, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
