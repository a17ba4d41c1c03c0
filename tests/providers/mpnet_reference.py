"""all-mpnet-base-v2 in plain numpy (float64), written from HF's `MPNetModel` and
sentence-transformers' pooling, sharing nothing with the graph builder but the position helpers:
a graph-building mistake shows as a difference. And a tiny stand-in of the model (random weights
under the real names, a small vocabulary) that tests build and run in well under a second."""

import json
import math
import re
import struct
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer, models, pre_tokenizers, processors

from app.providers.mpnet.config import MPNetConfig, relative_position_buckets
from app.providers.mpnet.files import FloatArray
from app.providers.mpnet.graph import MASK_VALUE, NORM_EPS, POOL_EPS

# The reference's own arithmetic on weights of any dtype, in float64 where it counts.
Array = npt.NDArray[Any]
Weights = dict[str, Array]
WORDS = ("<s>", "<pad>", "</s>", "<unk>", *(f"w{n}" for n in range(96)))


def config_of(weights: Weights, layer_norm_eps: float = 1e-5) -> MPNetConfig:
    """Infer the shape parameters from tensor shapes (eps is not stored in weights)."""
    vocab, hidden = weights["embeddings.word_embeddings.weight"].shape
    buckets, heads = weights["encoder.relative_attention_bias.weight"].shape
    layer_ids = {int(m.group(1)) for k in weights if (m := re.match(r"encoder\.layer\.(\d+)\.", k))}
    return MPNetConfig(
        vocab_size=int(vocab),
        hidden_size=int(hidden),
        num_hidden_layers=len(layer_ids),
        num_attention_heads=int(heads),
        intermediate_size=int(weights["encoder.layer.0.intermediate.dense.weight"].shape[0]),
        max_position_embeddings=int(weights["embeddings.position_embeddings.weight"].shape[0]),
        layer_norm_eps=layer_norm_eps,
        relative_attention_num_buckets=int(buckets),
    )


def position_ids(input_ids: Array, pad_token_id: int = 1) -> Array:
    """HF ``create_position_ids_from_input_ids``: pads keep ``pad_token_id``."""
    mask = (input_ids != pad_token_id).astype(np.int64)
    return np.asarray(np.cumsum(mask, axis=1) * mask + pad_token_id, dtype=np.int64)


def _erf(x: Array) -> Array:
    """Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7), enough for a float32 check."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return np.asarray(sign * (1.0 - poly * np.exp(-a * a)), dtype=np.float64)


def _ref_layer_norm(x: Array, weights: Weights, name: str, eps: float) -> Array:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    normed = (x - mean) / np.sqrt(var + eps)
    return np.asarray(
        normed * weights[f"{name}.weight"] + weights[f"{name}.bias"], dtype=np.float64
    )


def _ref_linear(x: Array, weights: Weights, name: str) -> Array:
    return x @ np.asarray(weights[f"{name}.weight"], np.float64).T + weights[f"{name}.bias"]


def _ref_layer(x: Array, bias: Array, weights: Weights, cfg: MPNetConfig, index: int) -> Array:
    p = f"encoder.layer.{index}"
    batch, seq, _ = x.shape

    def heads(t: Array) -> Array:
        return t.reshape(batch, seq, cfg.num_attention_heads, cfg.head_size).transpose(0, 2, 1, 3)

    q, k, v = (heads(_ref_linear(x, weights, f"{p}.attention.attn.{n}")) for n in "qkv")
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(cfg.head_size) + bias
    probs = np.exp(scores - scores.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, seq, cfg.hidden_size)
    attn = _ref_linear(context, weights, f"{p}.attention.attn.o")
    x = _ref_layer_norm(attn + x, weights, f"{p}.attention.LayerNorm", cfg.layer_norm_eps)
    inter = _ref_linear(x, weights, f"{p}.intermediate.dense")
    act = 0.5 * inter * (1.0 + _erf(inter / math.sqrt(2.0)))
    out = _ref_linear(act, weights, f"{p}.output.dense")
    return _ref_layer_norm(out + x, weights, f"{p}.output.LayerNorm", cfg.layer_norm_eps)


def reference_forward(
    weights: Weights,
    input_ids: Array,
    attention_mask: Array,
    config: MPNetConfig | None = None,
) -> FloatArray:
    """Plain numpy (float64) forward pass of the same pipeline, to check graphs against.

    Written straight from HF ``MPNetModel`` + sentence-transformers pooling and
    sharing no code with the graph builder except the bucket and position-id
    helpers, so a graph-construction mistake shows up as a mismatch.
    """
    cfg = config or config_of(weights)
    ids = np.asarray(input_ids, dtype=np.int64)
    mask = np.asarray(attention_mask, dtype=np.float64)
    seq = ids.shape[1]
    if seq > cfg.max_sequence_length:
        raise ValueError(f"sequence length {seq} > {cfg.max_sequence_length}")
    x = np.asarray(weights["embeddings.word_embeddings.weight"][ids], np.float64)
    x = x + weights["embeddings.position_embeddings.weight"][position_ids(ids, cfg.pad_token_id)]
    x = _ref_layer_norm(x, weights, "embeddings.LayerNorm", cfg.layer_norm_eps)
    buckets = relative_position_buckets(seq, cfg.relative_attention_num_buckets, cfg.max_distance)
    rel = np.asarray(weights["encoder.relative_attention_bias.weight"], np.float64)[
        buckets
    ].transpose(2, 0, 1)
    bias = rel[None] + ((1.0 - mask) * MASK_VALUE)[:, None, None, :]
    for index in range(cfg.num_hidden_layers):
        x = _ref_layer(x, bias, weights, cfg, index)
    pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), POOL_EPS)
    norm = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), NORM_EPS)
    return np.asarray(pooled / norm, dtype=np.float32)


def tiny_weights(
    seed: int,
    layers: int = 2,
    hidden: int = 32,
    heads: int = 4,
    vocab: int = 100,
    intermediate: int = 64,
    max_positions: int = 66,
    num_buckets: int = 32,
) -> Weights:
    """Random weights with the real key names and shape pattern, for fast tests."""
    rng = np.random.default_rng(seed)

    def normal(*shape: int, std: float = 0.2) -> FloatArray:
        return rng.normal(0.0, std, size=shape).astype(np.float32)

    w: Weights = {
        "embeddings.position_ids": np.arange(max_positions, dtype=np.int64)[None],
        "embeddings.word_embeddings.weight": normal(vocab, hidden),
        "embeddings.position_embeddings.weight": normal(max_positions, hidden),
        "encoder.relative_attention_bias.weight": normal(num_buckets, heads, std=1.0),
        "pooler.dense.weight": normal(hidden, hidden),
        "pooler.dense.bias": normal(hidden),
    }
    linears = {
        "attention.attn.q": (hidden, hidden),
        "attention.attn.k": (hidden, hidden),
        "attention.attn.v": (hidden, hidden),
        "attention.attn.o": (hidden, hidden),
        "intermediate.dense": (intermediate, hidden),
        "output.dense": (hidden, intermediate),
    }
    norms = ["embeddings.LayerNorm"] + [
        f"encoder.layer.{i}.{n}"
        for i in range(layers)
        for n in ("attention.LayerNorm", "output.LayerNorm")
    ]
    for i in range(layers):
        for name, (out_dim, in_dim) in linears.items():
            w[f"encoder.layer.{i}.{name}.weight"] = normal(out_dim, in_dim, std=in_dim**-0.5)
            w[f"encoder.layer.{i}.{name}.bias"] = normal(out_dim, std=0.05)
    for name in norms:
        w[f"{name}.weight"] = 1.0 + normal(hidden, std=0.1)
        w[f"{name}.bias"] = normal(hidden, std=0.1)
    return w


def random_batch(
    seed: int, batch: int, seq: int, vocab: int, pad_token_id: int = 1
) -> tuple[Array, Array]:
    """Token ids of varying lengths, right-padded with pad_token_id like the tokenizer does."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, seq + 1, size=batch)
    lengths[0] = seq
    mask = (np.arange(seq)[None, :] < lengths[:, None]).astype(np.int64)
    ids = rng.integers(pad_token_id + 1, vocab, size=(batch, seq), dtype=np.int64)
    return np.where(mask == 1, ids, pad_token_id), mask


def cosine_rows(a: Array, b: Array) -> FloatArray:
    """Row-wise cosine similarity of two [n, d] matrices."""
    num = np.sum(a * b, axis=1)
    den = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return np.asarray(num / np.maximum(den, NORM_EPS), dtype=np.float32)


def tiny_tokenizer() -> Tokenizer:
    """A word-level vocabulary of the tiny model's 100 ids, with MPNet's special tokens at
    MPNet's ids (<s> 0, <pad> 1, </s> 2) around each text."""
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)]
    )
    return tokenizer


def write_safetensors(weights: Weights, path: Path) -> None:
    """The weights in the safetensors format (header length, JSON header, raw data)."""
    header: dict[str, Any] = {}
    offset, blobs = 0, []
    for name, array in weights.items():
        data = np.ascontiguousarray(array).tobytes()
        dtype = {"float32": "F32", "int64": "I64"}[str(array.dtype)]
        header[name] = {
            "dtype": dtype,
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        offset += len(data)
        blobs.append(data)
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"".join(blobs))
