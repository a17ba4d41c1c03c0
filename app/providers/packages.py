"""Files shipped inside installed packages, located without importing them."""

import importlib.util
from pathlib import Path


class MissingPackageError(RuntimeError):
    """A package that ships a model or vocabulary is not installed."""


def package_dir(package: str) -> Path:
    """The directory of an installed package; importing some of them is slow or noisy."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise MissingPackageError(f"package {package!r} is not installed; run `make install`")
    return Path(next(iter(spec.submodule_search_locations)))
