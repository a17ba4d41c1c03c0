"""all-mpnet-base-v2 as one ONNX graph, built from its weights without PyTorch: the MPNet
encoder (HF `MPNetModel`), mean pooling over the attention mask and L2 normalisation, as
sentence-transformers runs it. Building needs the `onnx` package; running it, onnxruntime."""

import json
import math
from collections.abc import Sequence
from typing import Final

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from app.providers.mpnet.config import MPNetConfig, relative_position_buckets
from app.providers.mpnet.files import Array, FloatArray, Weights

# The values of the nodes' attributes here: axes, epsilons, permutations, types.
Attribute = int | float | list[int]

OPSET: Final = 17
INPUT_NAMES: Final = ("input_ids", "attention_mask")
OUTPUT_NAME: Final = "sentence_embedding"
MASK_VALUE: Final = -1e9  # added to scores of padded keys; exp() of it is exactly 0
POOL_EPS: Final = 1e-9  # sentence-transformers clamps the token count to this
NORM_EPS: Final = 1e-12  # torch.nn.functional.normalize's default eps


class _GraphBuilder:
    """Accumulates nodes and initializers and hands out unique tensor names."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._counter = 0

    def const(self, name: str, value: Array) -> str:
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op_type: str, inputs: Sequence[str], name: str = "", **attrs: Attribute) -> str:
        return self.ops(op_type, inputs, 1, name, **attrs)[0]

    def ops(
        self, op_type: str, inputs: Sequence[str], n_out: int, name: str = "", **attrs: Attribute
    ) -> list[str]:
        self._counter += 1
        base = f"{name or op_type}_{self._counter}"
        outputs = [f"{base}_out{i}" for i in range(n_out)]
        node = helper.make_node(op_type, list(inputs), outputs, name=base)
        node.attribute.extend(helper.make_attribute(key, value) for key, value in attrs.items())
        self.nodes.append(node)
        return outputs


def _f32(value: Array) -> FloatArray:
    return np.asarray(value, dtype=np.float32)


def _linear(g: _GraphBuilder, x: str, weight: Array, bias: Array, name: str) -> str:
    """x @ W.T + b, storing W transposed ([in, out]) so MatMul needs no Transpose."""
    w = g.const(f"{name}.weight_t", _f32(weight).T)
    b = g.const(f"{name}.bias", _f32(bias))
    return g.op("Add", [g.op("MatMul", [x, w], f"{name}.matmul"), b], f"{name}.add")


def _layer_norm(g: _GraphBuilder, x: str, weights: Weights, name: str, eps: float) -> str:
    scale = g.const(f"{name}.weight", _f32(weights[f"{name}.weight"]))
    bias = g.const(f"{name}.bias", _f32(weights[f"{name}.bias"]))
    return g.op("LayerNormalization", [x, scale, bias], name, axis=-1, epsilon=eps)


def _embeddings(g: _GraphBuilder, weights: Weights, cfg: MPNetConfig) -> str:
    """Word + position embeddings (positions derived from input_ids) and LayerNorm."""
    word = g.const(
        "embeddings.word_embeddings.weight", _f32(weights["embeddings.word_embeddings.weight"])
    )
    pos_table = _f32(weights["embeddings.position_embeddings.weight"])
    pos = g.const("embeddings.position_embeddings.weight", pos_table)
    pad = g.const("pad_token_id", np.array(cfg.pad_token_id, dtype=np.int64))
    not_pad = g.op("Not", [g.op("Equal", ["input_ids", pad])])
    not_pad_i = g.op("Cast", [not_pad], "not_pad_int", to=TensorProto.INT64)
    axis = g.const("seq_axis", np.array(1, dtype=np.int64))
    cumsum = g.op("CumSum", [not_pad_i, axis])
    pos_ids = g.op("Add", [g.op("Mul", [cumsum, not_pad_i]), pad], "position_ids")
    summed = g.op("Add", [g.op("Gather", [word, "input_ids"]), g.op("Gather", [pos, pos_ids])])
    return _layer_norm(g, summed, weights, "embeddings.LayerNorm", cfg.layer_norm_eps)


def _attention_bias(g: _GraphBuilder, weights: Weights, cfg: MPNetConfig) -> tuple[str, str]:
    """Relative-position bias plus padding mask, [batch, heads, seq, seq], built once.

    The bucket matrix for the longest allowed sequence is a constant; the graph
    slices its top-left seq x seq corner.  Also returns the float mask [batch, seq].
    """
    buckets = relative_position_buckets(
        cfg.max_sequence_length, cfg.relative_attention_num_buckets, cfg.max_distance
    )
    bucket_c = g.const("relative_position_buckets", buckets)
    table = g.const(
        "encoder.relative_attention_bias.weight",
        _f32(weights["encoder.relative_attention_bias.weight"]),
    )
    seq = g.op("Shape", ["input_ids"], "seq_len", start=1, end=2)
    zeros = g.const("zeros_2", np.zeros(2, dtype=np.int64))
    ends = g.op("Concat", [seq, seq], axis=0)
    square = g.op("Slice", [bucket_c, zeros, ends], "bucket_slice")
    bias = g.op("Transpose", [g.op("Gather", [table, square])], perm=[2, 0, 1])  # [H, S, S]
    mask_f = g.op("Cast", ["attention_mask"], "mask_float", to=TensorProto.FLOAT)
    one = g.const("one_f", np.array(1.0, dtype=np.float32))
    big = g.const("mask_value", np.array(MASK_VALUE, dtype=np.float32))
    additive = g.op("Mul", [g.op("Sub", [one, mask_f]), big])
    axes = g.const("axes_1_2", np.array([1, 2], dtype=np.int64))
    additive4 = g.op("Unsqueeze", [additive, axes])  # [B, 1, 1, S]
    return g.op("Add", [additive4, bias], "attention_bias"), mask_f


def _self_attention(
    g: _GraphBuilder, x: str, bias: str, weights: Weights, cfg: MPNetConfig, name: str
) -> str:
    """One fused q/k/v projection, scaled dot-product attention and output projection.

    1/sqrt(head_size) is folded into the q weights (exact for head_size 64).
    """
    scale = 1.0 / math.sqrt(cfg.head_size)
    w = np.concatenate(
        [
            _f32(weights[f"{name}.q.weight"]) * scale,
            weights[f"{name}.k.weight"],
            weights[f"{name}.v.weight"],
        ]
    )
    b = np.concatenate(
        [
            _f32(weights[f"{name}.q.bias"]) * scale,
            weights[f"{name}.k.bias"],
            weights[f"{name}.v.bias"],
        ]
    )
    qkv = _linear(g, x, w, b, f"{name}.qkv")
    split = g.const(f"{name}.split", np.full(3, cfg.hidden_size, dtype=np.int64))
    q, k, v = g.ops("Split", [qkv, split], 3, f"{name}.split", axis=-1)
    heads = g.const(
        f"{name}.heads_shape",
        np.array([0, 0, cfg.num_attention_heads, cfg.head_size], dtype=np.int64),
    )
    q4 = g.op("Transpose", [g.op("Reshape", [q, heads])], perm=[0, 2, 1, 3])  # [B, H, S, D]
    k4 = g.op("Transpose", [g.op("Reshape", [k, heads])], perm=[0, 2, 3, 1])  # [B, H, D, S]
    v4 = g.op("Transpose", [g.op("Reshape", [v, heads])], perm=[0, 2, 1, 3])
    scores = g.op("Add", [g.op("MatMul", [q4, k4], f"{name}.scores"), bias])
    probs = g.op("Softmax", [scores], f"{name}.softmax", axis=-1)
    context = g.op("Transpose", [g.op("MatMul", [probs, v4])], perm=[0, 2, 1, 3])
    merged = g.const(f"{name}.merged_shape", np.array([0, 0, cfg.hidden_size], dtype=np.int64))
    flat = g.op("Reshape", [context, merged])
    return _linear(g, flat, weights[f"{name}.o.weight"], weights[f"{name}.o.bias"], f"{name}.o")


def _gelu(g: _GraphBuilder, x: str, name: str) -> str:
    """Exact (erf) GELU; onnxruntime fuses this pattern into its Gelu kernel."""
    sqrt2 = g.const(f"{name}.sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))
    one = g.const(f"{name}.one", np.array(1.0, dtype=np.float32))
    half = g.const(f"{name}.half", np.array(0.5, dtype=np.float32))
    erf = g.op("Erf", [g.op("Div", [x, sqrt2])])
    return g.op("Mul", [g.op("Mul", [x, g.op("Add", [erf, one])]), half], name)


def _encoder_layer(
    g: _GraphBuilder, x: str, bias: str, weights: Weights, cfg: MPNetConfig, index: int
) -> str:
    p = f"encoder.layer.{index}"
    attn = _self_attention(g, x, bias, weights, cfg, f"{p}.attention.attn")
    x = _layer_norm(
        g, g.op("Add", [attn, x]), weights, f"{p}.attention.LayerNorm", cfg.layer_norm_eps
    )
    inter = _linear(
        g,
        x,
        weights[f"{p}.intermediate.dense.weight"],
        weights[f"{p}.intermediate.dense.bias"],
        f"{p}.intermediate.dense",
    )
    act = _gelu(g, inter, f"{p}.intermediate.gelu")
    out = _linear(
        g,
        act,
        weights[f"{p}.output.dense.weight"],
        weights[f"{p}.output.dense.bias"],
        f"{p}.output.dense",
    )
    return _layer_norm(
        g, g.op("Add", [out, x]), weights, f"{p}.output.LayerNorm", cfg.layer_norm_eps
    )


def _pool_and_normalize(g: _GraphBuilder, hidden: str, mask_f: str) -> str:
    """sentence-transformers mean pooling over real tokens, then L2 normalisation."""
    axis2 = g.const("axes_2", np.array([2], dtype=np.int64))
    axis1 = g.const("axes_1", np.array([1], dtype=np.int64))
    mask3 = g.op("Unsqueeze", [mask_f, axis2])  # [B, S, 1]
    summed = g.op("ReduceSum", [g.op("Mul", [hidden, mask3]), axis1], keepdims=0)
    count = g.op("ReduceSum", [mask_f, axis1], keepdims=1)  # [B, 1]
    pool_eps = g.const("pool_eps", np.array(POOL_EPS, dtype=np.float32))
    mean = g.op("Div", [summed, g.op("Max", [count, pool_eps])], "mean_pooling")
    # Sqrt(ReduceSum(x*x)) rather than ReduceL2, whose axes moved from attribute to
    # input in opset 18: this way the graph is valid for every opset from 17 to 21.
    norm = g.op("Sqrt", [g.op("ReduceSum", [g.op("Mul", [mean, mean]), axis1], keepdims=1)])
    norm_eps = g.const("norm_eps", np.array(NORM_EPS, dtype=np.float32))
    return g.op("Div", [mean, g.op("Max", [norm, norm_eps])], "l2_normalize")


def build_graph(weights: Weights, config: MPNetConfig) -> onnx.ModelProto:
    """Build the fp32 sentence-embedding graph.

    Inputs `input_ids` and `attention_mask` are int64 [batch, seq] with
    seq <= config.max_sequence_length; output `sentence_embedding` is
    [batch, hidden] float32, unit length.  Only standard ONNX ops (opset 17,
    IR version 8) are used, so older runtimes load it too; the graph is also
    valid under opsets 18-21.  The unused BERT-style `pooler` weights are
    left out.  ~438 MB of initializers fits the 2 GB protobuf limit.
    """
    g = _GraphBuilder()
    x = _embeddings(g, weights, config)
    bias, mask_f = _attention_bias(g, weights, config)
    for index in range(config.num_hidden_layers):
        x = _encoder_layer(g, x, bias, weights, config, index)
    result = _pool_and_normalize(g, x, mask_f)
    g.nodes.append(helper.make_node("Identity", [result], [OUTPUT_NAME], name="output"))
    inputs = [
        helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
        for n in INPUT_NAMES
    ]
    output = helper.make_tensor_value_info(
        OUTPUT_NAME, TensorProto.FLOAT, ["batch", config.hidden_size]
    )
    graph = helper.make_graph(g.nodes, "mpnet_sentence_embedding", inputs, [output], g.initializers)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="mpnet_onnx",
        ir_version=8,
    )
    model.doc_string = json.dumps({"config": config.__dict__, "pooling": "mean", "normalize": "l2"})
    return model
