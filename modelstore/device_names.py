"""The device and dtype setting types that the worker's and ingest's settings share; a value outside them stops the
program at start with the accepted names. Standard library and pydantic only (no torch), so reading settings
stays cheap."""

from typing import Annotated, Literal

from pydantic import AfterValidator

DTypeName = Literal["float32", "bfloat16", "float16"]


def _check_device(value: str) -> str:
    """Accept the torch device strings we deploy on; anything else fails at start, not mid-request."""
    base, _, index = value.partition(":")
    if base not in {"cpu", "cuda", "mps"} or (index and (base != "cuda" or not index.isdigit())):
        raise ValueError(f"unknown device {value!r}; accepted: cpu, cuda, cuda:N, mps")
    return value


DeviceName = Annotated[str, AfterValidator(_check_device)]
