"""The result every check of the GPU check hands to the report."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class CheckResult:
    """One check: passed or not, how long it took, and what the report shows of it (Markdown lines).

    A skipped check (`skipped`) could not run here, e.g. its model is not on this machine: it does not fail the
    run, and its details say why and how to provide what it needs."""

    name: str
    passed: bool
    seconds: float
    details: list[str] = field(default_factory=list)
    skipped: bool = False

    @property
    def verdict(self) -> str:
        if self.skipped:
            return "SKIPPED"
        return "PASS" if self.passed else "FAIL"


def skipped(name: str, seconds: float, details: list[str]) -> CheckResult:
    """A check that could not run on this machine (not a failure)."""
    return CheckResult(name, True, seconds, details, skipped=True)
