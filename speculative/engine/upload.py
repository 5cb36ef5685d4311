"""Host-to-device uploads that do not make the host wait for the device.

A blocking copy from ordinary (pageable) host memory to a CUDA device ends with a stream synchronisation: the host
waits until every kernel queued before the copy has run. A decoding step uploads a few small tensors (tree tokens,
positions, masks, cache row indices, newly committed tokens) between its kernels, so each blocking upload would stall
the host once per step. Copied from pinned (page-locked) memory with `non_blocking=True`, the upload is queued on the
stream like a kernel instead, and the kernels after it on that stream see the copied values.
"""

from collections.abc import Sequence

import torch


def upload(
    data: torch.Tensor | Sequence[int] | Sequence[Sequence[int]], device: torch.device
) -> torch.Tensor:
    """`data` (a host tensor, or numbers in nested lists as `torch.tensor` takes them) on `device`, without waiting
    for the device.

    On CUDA the values are first copied into pinned host memory, then queued for the device with `non_blocking=True`.
    The pinned block comes from torch's caching host allocator, which records the copy on the stream and does not
    hand the block out again before the copy has run, so the pinned copy may be dropped as soon as this returns.
    On any other device, or from a tensor not on the host, it is a plain `.to(device)` (no copy for a tensor
    already on `device`).
    """
    tensor = data if isinstance(data, torch.Tensor) else torch.tensor(data)
    if device.type != "cuda" or tensor.device.type != "cpu":
        return tensor.to(device)
    return tensor.pin_memory().to(device, non_blocking=True)
