"""The GPU check's Markdown report: the machine, then each check with its result and figures."""

import platform
from collections.abc import Sequence
from datetime import UTC, datetime

import torch
import transformers

from research.gpu_check.checks import CheckResult


def machine_lines(device: str) -> list[str]:
    """Card (or CPU), memory, and the versions that decide the kernels."""
    if device.startswith("cuda"):
        properties = torch.cuda.get_device_properties(torch.device(device))
        card = f"{properties.name}, {properties.total_memory / 2**30:.0f} GiB, CUDA {torch.version.cuda}"
    else:
        card = f"CPU ({platform.processor() or platform.machine()}, {torch.get_num_threads()} torch threads)"
    return [
        f"- device: {card}",
        f"- torch {torch.__version__}, transformers {transformers.__version__}, Python {platform.python_version()}",
    ]


def render(checks: Sequence[CheckResult], command: str, device: str, dry_run: bool, seconds: float) -> str:
    passed = all(check.passed for check in checks)
    skipped = [check.name for check in checks if check.skipped]
    lines = [
        "# GPU check",
        "",
        f"`{command}`, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
        f"{seconds:.0f} s: **{'PASS' if passed else 'FAIL'}**"
        + (f" ({len(skipped)} skipped: {', '.join(skipped)})" if skipped else ""),
        "",
        *machine_lines(device),
    ]
    if dry_run:
        lines += [
            "",
            "**Dry run** on the CPU with tiny shapes: it proves the command runs; its figures mean nothing.",
        ]
    lines += ["", "| check | result | seconds |", "|---|---|---|"]
    lines += [f"| {check.name} | {check.verdict} | {check.seconds:.1f} |" for check in checks]
    for check in checks:
        lines += ["", f"## {check.name}: {check.verdict} ({check.seconds:.1f} s)", ""]
        lines += [line if line.startswith("|") or not line else f"- {line}" for line in check.details]
    return "\n".join(lines) + "\n"
