"""The result every check of the GPU check hands to the report."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class CheckResult:
    """One check: passed or not, how long it took, and what the report shows of it (Markdown lines)."""

    name: str
    passed: bool
    seconds: float
    details: list[str] = field(default_factory=list)
