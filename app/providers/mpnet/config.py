"""all-mpnet-base-v2's hyper-parameters and its relative-position buckets (HF's), which the graph
holds as a constant."""

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.providers.mpnet.files import Array


@dataclass(frozen=True)
class MPNetConfig:
    """The few hyper-parameters the graph depends on (HF `config.json` names)."""

    vocab_size: int = 30527
    hidden_size: int = 768
    num_hidden_layers: int = 12
    num_attention_heads: int = 12
    intermediate_size: int = 3072
    max_position_embeddings: int = 514
    layer_norm_eps: float = 1e-5
    relative_attention_num_buckets: int = 32
    max_distance: int = 128  # hard-coded in HF's relative_position_bucket
    pad_token_id: int = 1

    @property
    def head_size(self) -> int:
        return self.hidden_size // self.num_attention_heads

    @property
    def max_sequence_length(self) -> int:
        """Longest input: positions start at pad_token_id + 1, so two rows are unusable."""
        return self.max_position_embeddings - self.pad_token_id - 1

    @classmethod
    def from_file(cls, path: Path) -> "MPNetConfig":
        """The model's config.json; the keys of HF's that the graph does not need are left."""
        raw = json.loads(path.read_text(encoding="utf-8"))
        return cls(**{name: raw[name] for name in cls.__dataclass_fields__ if name in raw})


def relative_position_buckets(length: int, num_buckets: int = 32, max_distance: int = 128) -> Array:
    """Bucket index of (key position - query position) for a `length` square.

    Mirrors HF `MPNetEncoder.relative_position_bucket`: half the buckets for
    each sign (key after query goes to the upper half), exact buckets below
    `num_buckets // 4` and log-spaced ones up to `max_distance`.  The log is
    taken in float32 as torch does, so bucket edges (16, 32, 64) match.
    """
    positions = np.arange(length, dtype=np.int64)
    n = positions[:, None] - positions[None, :]  # = -(memory - context)
    half = num_buckets // 2
    ret = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    max_exact = half // 2
    with np.errstate(divide="ignore"):
        ratio = np.log(n.astype(np.float32) / np.float32(max_exact))
    scaled = ratio / np.float32(math.log(max_distance / max_exact)) * np.float32(half - max_exact)
    large = max_exact + np.where(n < max_exact, 0, scaled).astype(np.int64)
    large = np.minimum(large, half - 1)
    return np.asarray(ret + np.where(n < max_exact, n, large), dtype=np.int64)
