"""`python -m tests.api.chat.blocking_worker`: the real generation worker, except that once its model has warmed
up every forward pass blocks for good, as a decode does on a CUDA hang or a deadlock. Its event loop goes on:
keep-alives, `/health` and new requests are answered as by any worker."""

import threading

from speculative.worker.__main__ import main
from speculative.worker.model import LoadedModel

_warm_up = LoadedModel.warm_up
_never = threading.Event()


def _warm_up_then_hang(self: LoadedModel) -> None:
    _warm_up(self)
    embeddings = self.target.model.get_input_embeddings()  # every forward pass starts there
    embeddings.register_forward_pre_hook(lambda module, arguments: _never.wait())


if __name__ == "__main__":
    LoadedModel.warm_up = _warm_up_then_hang  # type: ignore[method-assign]
    main()
