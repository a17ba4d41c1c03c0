"""A sentence-embedding model as an ONNX file on onnxruntime, with its `tokenizers` vocabulary."""

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from app.providers.cores import Cores
from app.providers.local_models import LocalModel, PackageFile, PreparedFile, TextKind
from app.providers.packages import package_dir

# Padded wordpieces per model run: short texts go several to a run, long ones one or two. On two
# cores, runs of this size embedded 80 texts/s of 90 wordpieces where runs of 8 texts managed 58.
_RUN_TOKENS = 256


def runs(lengths: Sequence[int], limit: int = _RUN_TOKENS) -> Iterator[list[int]]:
    """Indices of the texts in model runs: by length, each run padded to its longest text and
    holding at most `limit` padded wordpieces (a longer text runs alone)."""
    group: list[int] = []
    for index in sorted(range(len(lengths)), key=lengths.__getitem__):
        if group and (len(group) + 1) * lengths[index] > limit:
            yield group
            group = []
        group.append(index)
    if group:
        yield group


class ModelNotPrepared(RuntimeError):
    """A model made from its packages at install time has not been made here."""


def locate(model: LocalModel, file: PackageFile | PreparedFile, models_dir: Path) -> Path:
    """A model's file: in its package, or where the command that prepares it put it."""
    if isinstance(file, PackageFile):
        return package_dir(file.package, model.extra) / file.path
    path = models_dir / file.folder / file.path
    if not path.is_file():
        raise ModelNotPrepared(
            f"{model.name} is not prepared: {path} is missing. Run `{model.prepared_by}` (once), "
            "or point CE_EMBEDDINGS__MODELS_DIR at the folder that holds it."
        )
    return path


class OnnxEncoder:
    """Tokenizes with the model's own vocabulary, runs the ONNX graph, pools and normalises."""

    def __init__(self, model: LocalModel, cores: Cores, models_dir: Path) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        if model.tokenizer is None:
            raise ValueError(f"the ONNX model {model.name} needs a tokenizer file")
        weights = locate(model, model.weights, models_dir)
        vocabulary = locate(model, model.tokenizer, models_dir)
        tokenizer = Tokenizer.from_file(str(vocabulary))
        tokenizer.enable_truncation(max_length=model.max_tokens)
        tokenizer.no_padding()  # some files pad to a fixed length; runs are padded in _run
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = ort.InferenceSession(
            str(weights), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = tokenizer
        self._model = model
        self._cores = cores

    def encode(self, texts: Sequence[str], kind: TextKind) -> NDArray[np.float32]:
        """L2-normalised vectors of the texts, in order.

        Texts run sorted by length in small groups, each padded only to its own longest text and
        holding at most `_RUN_TOKENS` padded wordpieces, so a batch of short facts does not pay
        for the one long episode among them and long texts do not make one big slow run.
        """
        prefix = self._model.prefix(kind)
        encodings = self._tokenizer.encode_batch([prefix + text for text in texts])
        lengths = [len(encoding.ids) for encoding in encodings]
        groups = list(runs(lengths))
        batches = [[encodings[i].ids for i in group] for group in groups]
        vectors = self._cores.map(self._run, batches)
        result = np.empty((len(encodings), self._model.dimensions), dtype=np.float32)
        for group, rows in zip(groups, vectors, strict=True):
            result[group] = rows
        return result

    def _run(self, token_ids: list[list[int]]) -> NDArray[np.float32]:
        width = max(len(ids) for ids in token_ids)
        ids = np.full((len(token_ids), width), self._model.pad_id, dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, values in enumerate(token_ids):
            ids[row, : len(values)] = values
            mask[row, : len(values)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        with self._cores.slot():
            hidden = np.asarray(self._session.run(None, feeds)[0], dtype=np.float32)
        if self._model.pooling == "graph":
            return hidden
        if self._model.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: NDArray[np.float32] = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return result
