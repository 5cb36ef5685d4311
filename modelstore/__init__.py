"""Offline models: the one resolver from a model name to a loadable folder, and the cache it reads.

Importing this package is cheap (standard library only), so `ingest` can resolve its embedder without
pulling in torch; conversion lives in `modelstore.provision` (`python -m modelstore`).
"""

from modelstore.cache import folder_name, is_complete, resolve_model
from modelstore.errors import ModelPackageCorrupt, ModelPackageMissing, ModelProvisioningError

__all__ = [
    "ModelPackageCorrupt",
    "ModelPackageMissing",
    "ModelProvisioningError",
    "folder_name",
    "is_complete",
    "resolve_model",
]
