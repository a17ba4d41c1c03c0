"""Files shipped inside installed packages, located without importing them."""

import importlib.util
from pathlib import Path


class MissingPackageError(RuntimeError):
    """A package that ships a model or vocabulary is not installed."""


def package_dir(package: str, extra: str | None = None) -> Path:
    """The directory of an installed package; importing some of them is slow or noisy.

    `extra` names the optional dependency group that installs it, for the error message.
    """
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        how = (
            f"install the project with its `{extra}` extra (pip install -e '.[{extra}]')"
            if extra
            else "run `make install`"
        )
        raise MissingPackageError(f"package {package!r} is not installed; {how}")
    return Path(next(iter(spec.submodule_search_locations)))
