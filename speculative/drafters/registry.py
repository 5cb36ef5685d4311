"""Drafting methods by name: what the worker's `draft_method` and the benchmark's `--methods` refer to.

A base method maps to a builder that turns the settings (and the loaded target, for drafters that need its
weights, like EAGLE's shared embeddings) into a per-request `DrafterFactory`. Joining base methods with `+`
merges their trees, the first one being the primary: `eagle2+casd` is EAGLE-2 with CASD's branches merged in.
Later drafters register themselves with `register_method`.
"""

from collections.abc import Callable
from functools import partial

from speculative.drafters.casd import CasdConfig, CasdDrafter
from speculative.drafters.merged import MergedDrafter
from speculative.drafters.vanilla import VanillaDrafter
from speculative.engine.drafter import Drafter, DrafterFactory
from speculative.engine.target import TargetModel
from speculative.settings import SpeculativeSettings

MethodBuilder = Callable[[SpeculativeSettings, TargetModel], DrafterFactory]


class UnknownMethodError(ValueError):
    """The requested drafting method is not registered."""


def casd_config(settings: SpeculativeSettings, scope: str) -> CasdConfig:
    return CasdConfig(
        query_tokens=settings.casd_query_tokens,
        matches=settings.casd_matches,
        draft_tokens=settings.casd_draft_tokens,
        tie_break=settings.casd_tie_break,
        scope="prompt" if scope == "prompt" else "context",
    )


def _build_vanilla(settings: SpeculativeSettings, target: TargetModel) -> DrafterFactory:
    return VanillaDrafter


def _build_casd(settings: SpeculativeSettings, target: TargetModel) -> DrafterFactory:
    return partial(CasdDrafter, casd_config(settings, "context"))


def _build_casd_prompt(settings: SpeculativeSettings, target: TargetModel) -> DrafterFactory:
    return partial(CasdDrafter, casd_config(settings, "prompt"))


_METHODS: dict[str, MethodBuilder] = {
    "vanilla": _build_vanilla,
    "casd": _build_casd,
    "casd_prompt": _build_casd_prompt,
}


def register_method(name: str, builder: MethodBuilder) -> None:
    """Make a base method available by name (e.g. `eagle2`, once its head loader exists)."""
    if "+" in name or not name:
        raise ValueError(f"a base method name must be non-empty and contain no '+': {name!r}")
    _METHODS[name] = builder


def available_methods() -> list[str]:
    """The registered base methods; any of them can be joined with '+' into a merged method."""
    return sorted(_METHODS)


def drafter_factory(method: str, settings: SpeculativeSettings, target: TargetModel) -> DrafterFactory:
    """The per-request drafter factory of `method`; raises `UnknownMethodError` listing the known methods."""
    names = method.split("+")
    unknown = [name for name in names if name not in _METHODS]
    if unknown or len(set(names)) != len(names):
        raise UnknownMethodError(
            f"unknown drafting method {method!r}; available: {', '.join(available_methods())} "
            "(join different ones with '+' to merge their trees, the first one primary, e.g. eagle2+casd)"
        )
    factories = [_METHODS[name](settings, target) for name in names]
    if len(factories) == 1:
        return factories[0]
    return partial(_merge, factories, settings.casd_shares_budget)


def _merge(factories: list[DrafterFactory], share_budget: bool) -> Drafter:
    primary, *extras = (factory() for factory in factories)
    return MergedDrafter(primary, extras, extras_share_budget=share_budget)
