"""Drafting methods by name: what the worker's `draft_method` and the benchmark's `--methods` refer to.

`METHODS` lists every base method: its builder turns the settings (and the loaded target, for drafters that need
its weights, like EAGLE's shared embeddings) into a per-request `DrafterFactory`, importing the drafter's module
only when it is called. Joining base methods with `+` merges their trees, the first one being the primary:
`eagle2+casd` is EAGLE-2 with CASD's branches merged in. `check_method` is the one check of a method name: the
worker's against the methods it serves, `drafter_factory`'s against all of them.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType

from speculative.drafters.merged import MergedDrafter
from speculative.engine.drafter import Drafter, DrafterFactory
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings

MethodBuilder = Callable[[SpeculativeSettings, TargetModel], DrafterFactory]
MERGE_HINT = "join different ones with '+' to merge their trees, the first one primary, e.g. eagle2+casd"


@dataclass(frozen=True)
class Method:
    """A base drafting method: its name, its builder, and whether it drafts with an EAGLE head (EAGLE_HEAD)."""

    name: str
    build: MethodBuilder
    needs_head: bool = False

    def __post_init__(self) -> None:
        if "+" in self.name or not self.name:
            raise ValueError(f"a base method name must be non-empty and contain no '+': {self.name!r}")


class MethodUnavailableError(ValueError):
    """The requested drafting method cannot run here; `methods` lists the base methods that can."""

    def __init__(self, message: str, methods: Sequence[str]) -> None:
        super().__init__(message)
        self.methods = list(methods)


class UnknownMethodError(MethodUnavailableError):
    """A part of the requested drafting method is no base method on offer, or repeats."""


def _build_vanilla(settings: SpeculativeSettings, target: TargetModel) -> DrafterFactory:
    from speculative.drafters.vanilla import VanillaDrafter

    return VanillaDrafter


def _build_casd(settings: SpeculativeSettings, target: TargetModel) -> DrafterFactory:
    from speculative.drafters.casd import build_casd

    return build_casd(settings, "context")


def _build_casd_prompt(settings: SpeculativeSettings, target: TargetModel) -> DrafterFactory:
    from speculative.drafters.casd import build_casd

    return build_casd(settings, "prompt")


def _build_eagle2(settings: SpeculativeSettings, target: TargetModel) -> DrafterFactory:
    from speculative.drafters.eagle2 import build_eagle2

    return build_eagle2(settings, target)


METHODS: Mapping[str, Method] = MappingProxyType(
    {
        method.name: method
        for method in (
            Method("vanilla", _build_vanilla),
            Method("casd", _build_casd),
            Method("casd_prompt", _build_casd_prompt),
            Method("eagle2", _build_eagle2, needs_head=True),
        )
    }
)


def available_methods(settings: SpeculativeSettings | None = None) -> list[str]:
    """The base methods, sorted (any of them can be joined with '+' into a merged method); given `settings`, the
    ones they can run: a method drafting with an EAGLE head only when EAGLE_HEAD is set."""
    return sorted(
        name
        for name, method in METHODS.items()
        if settings is None or settings.eagle_head or not method.needs_head
    )


def check_method(method: str, offered: Sequence[str]) -> list[str]:
    """The base methods that `method` joins with '+', in order, when each is one of `offered` and none repeats.

    Otherwise raises `MethodUnavailableError` listing `offered`: `UnknownMethodError` for a part that is no offered
    method or repeats; the error saying the EAGLE head is missing for a head method left out of `offered` (what
    `available_methods(settings)` does when EAGLE_HEAD is unset).
    """
    names = method.split("+")
    listed = ", ".join(offered)
    if any(name not in offered and name in METHODS and METHODS[name].needs_head for name in names):
        raise MethodUnavailableError(
            f"drafting method {method!r} needs an EAGLE head, and there is none (EAGLE_HEAD is unset); "
            f"available: {listed}",
            offered,
        )
    if any(name not in offered for name in names) or len(set(names)) != len(names):
        raise UnknownMethodError(
            f"unknown drafting method {method!r}; available: {listed} ({MERGE_HINT})", offered
        )
    return names


def drafter_factory(method: str, settings: SpeculativeSettings, target: TargetModel) -> DrafterFactory:
    """The per-request drafter factory of `method`; raises `UnknownMethodError` listing the known methods."""
    factories = [METHODS[name].build(settings, target) for name in check_method(method, available_methods())]
    if len(factories) == 1:
        return factories[0]
    return partial(_merge, factories, settings.casd_shares_budget)


def _merge(factories: list[DrafterFactory], share_budget: bool) -> Drafter:
    primary, *extras = (factory() for factory in factories)
    return MergedDrafter(primary, extras, extras_share_budget=share_budget)
