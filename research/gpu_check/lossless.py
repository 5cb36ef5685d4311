"""The engine's lossless tests, run on the checked device in a pytest child process.

The same test files CI runs on the CPU (tests/speculative): `DEVICE` selects where their tiny models live. Only the
conftest next to the tests is loaded (`--confcutdir`), so the database fixtures of the whole suite, and the packages
they import, are not needed on the GPU machine.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

from research.gpu_check.checks import CheckResult

TEST_DIR = Path("tests/speculative")
TEST_FILES = (
    "engine/test_lossless_tiny_models.py",
    "engine/test_bfloat16_agreement.py",
    "engine/test_continuous_batching.py",  # batched answers, eager, static and from CUDA graphs, equal lone ones
    "engine/test_upload.py",  # the step's uploads: the same values on the device, and no host sync on CUDA
)
BF16_LINE = "bfloat16 casd: exact match"
TIMEOUT_SECONDS = 300


def run_lossless_tests(device: str, selected: tuple[str, ...] | None, log_path: Path) -> CheckResult:
    """Run the lossless test files (or the `selected` node ids of them) with `DEVICE=device`; run from the
    repository root, where the tests are."""
    started = time.monotonic()
    name = f"lossless tests on {device} (fp32 token-exact, bf16 near-tie rule)"
    if not TEST_DIR.is_dir():
        return CheckResult(
            name, False, 0.0, [f"`{TEST_DIR}` not found: run the check from the repository root"]
        )
    targets = [str(TEST_DIR / test) for test in selected or TEST_FILES]
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-rA",
        "-p",
        "no:cacheprovider",
        "--confcutdir",
        str(TEST_DIR),
    ]
    try:
        completed = subprocess.run(
            [*command, *targets],
            env=os.environ | {"DEVICE": device},
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired as error:
        log_path.write_text(str(error.stdout or ""), encoding="utf-8")
        return CheckResult(name, False, time.monotonic() - started, [f"timed out after {TIMEOUT_SECONDS} s"])
    output = completed.stdout + completed.stderr
    log_path.write_text(output, encoding="utf-8")
    lines = output.strip().splitlines()
    details = [f"`{line.strip()}`" for line in lines if BF16_LINE in line]
    details.append(f"pytest: `{lines[-1] if lines else 'no output'}` (log: `{log_path}`)")
    failures = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
    details.extend(f"`{line}`" for line in failures[:10])
    return CheckResult(name, completed.returncode == 0, time.monotonic() - started, details)
