"""Uploads: a host tensor or a list of numbers arrives on the device with the same values and dtype; on CUDA the
host does not wait for the device's queue to do it."""

from collections.abc import Iterator

import pytest
import torch

from speculative.engine.upload import upload
from tests.speculative.conftest import TEST_DEVICE

CPU = torch.device("cpu")
needs_cuda = pytest.mark.skipif(
    not torch.cuda.is_available(),
    reason="uploads without a host sync happen on CUDA only: `make gpu-check` runs this file there",
)


def test_a_list_becomes_the_tensor_torch_tensor_makes_of_it() -> None:
    uploaded = upload([4, 8, 15, 16, 23, 42], CPU)

    assert uploaded.device == CPU
    assert uploaded.dtype == torch.long
    assert uploaded.tolist() == [4, 8, 15, 16, 23, 42]


def test_nested_lists_keep_their_shape() -> None:
    assert upload([[1, 2, 3], [4, 5, 6]], CPU).tolist() == [[1, 2, 3], [4, 5, 6]]


def test_a_host_tensor_stays_itself_on_the_cpu() -> None:
    mask = torch.eye(3, dtype=torch.bool)

    assert upload(mask, CPU) is mask


@pytest.mark.parametrize(
    "values", [torch.tensor([3, 1, 2]), torch.eye(4, dtype=torch.bool), torch.tensor([0.5, -1.25])]
)
def test_a_tensor_arrives_on_the_test_device_unchanged(values: torch.Tensor) -> None:
    uploaded = upload(values, TEST_DEVICE)

    assert uploaded.device.type == TEST_DEVICE.type
    assert uploaded.dtype == values.dtype
    assert torch.equal(uploaded.cpu(), values)


@needs_cuda
def test_on_cuda_the_kernels_after_an_upload_see_its_values() -> None:
    cuda = torch.device("cuda")
    rows = list(range(1000, 0, -1))
    source = torch.tensor(rows)

    uploaded = upload(source, cuda)
    doubled = upload(rows, cuda) * 2
    source.zero_()  # the host tensor may change as soon as the upload returns

    assert uploaded.device.type == doubled.device.type == "cuda"
    assert uploaded.tolist() == rows
    assert doubled.tolist() == [2 * row for row in rows]


@needs_cuda
def test_on_cuda_an_upload_does_not_wait_for_the_device(cuda_syncs_raise: None) -> None:
    cuda = torch.device("cuda")
    tokens = list(range(64))

    upload(tokens, cuda)
    upload(torch.tensor(tokens), cuda)
    with pytest.raises(RuntimeError, match="synchroniz"):  # as a blocking upload does
        torch.tensor(tokens, device=cuda)


@pytest.fixture
def cuda_syncs_raise() -> Iterator[None]:
    """Make any CUDA operation that waits for the device raise (torch's sync debug mode)."""
    torch.cuda.set_sync_debug_mode("error")
    try:
        yield
    finally:
        torch.cuda.set_sync_debug_mode("default")
