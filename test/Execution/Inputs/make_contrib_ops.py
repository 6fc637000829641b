#!/usr/bin/env python3
"""Writes models with onnxruntime's fused contrib ops, as its transformer
optimizer leaves them, with onnxruntime's outputs (which runs the contrib
ops natively) as the reference: make_contrib_ops.py DIR ->
DIR/<case>/model.onnx, DIR/<case>/test_data_set_0/.
- encoder_block: SkipLayerNormalization (beta, bias, and its
  input_skip_bias_sum output), FusedMatMul (transB, alpha), BiasGelu,
  FastGelu with a bias, Gelu, QuickGelu, SkipSimplifiedLayerNormalization and SimplifiedLayerNormalization (the
  default domain), at opset 17.
- layer_norm_opset13: LayerNormalization at opset 13 (onnxruntime's
  registration of opset 17's form) after a SkipLayerNormalization.
- bert_attention: EmbedLayerNormalization (segments, a mask and its
  mask_index) and Attention with that mask_index, num_heads 2.
- causal_attention: Attention with unidirectional, a raw [B, T] mask and a
  scale.
- attention: a com.microsoft MultiHeadAttention, which dsmp does not import.
- bias_add: BiasAdd, which onnxruntime runs on CUDA only (no reference
  outputs: the lit test checks its import)."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(__file__))
from ort_case import write_case  # noqa: E402

MS = ("com.microsoft", 1)
rng = np.random.default_rng(11)
f32 = np.float32
B, S, H, F = 2, 3, 8, 16
w = lambda name, *shape: numpy_helper.from_array(
    (rng.standard_normal(shape) / np.sqrt(shape[0])).astype(f32), name)
ms = lambda op, ins, outs, **kw: helper.make_node(op, ins, outs, domain="com.microsoft", **kw)
x = rng.standard_normal((B, S, H)).astype(f32)
skip = rng.standard_normal((B, S, H)).astype(f32)

inits = [w("gamma", H), w("beta", H), w("bias", H), w("W1", H, F), w("b1", F),
         w("W2t", H, F), w("b2", H), w("gamma2", H), w("scale", H)]
nodes = [
    ms("SkipLayerNormalization", ["x", "skip", "gamma", "beta", "bias"],
       ["ln", "", "", "residual"], epsilon=1e-5),
    helper.make_node("MatMul", ["ln", "W1"], ["h1"]),
    ms("BiasGelu", ["h1", "b1"], ["g1"]),
    ms("FusedMatMul", ["g1", "W2t"], ["h2"], transB=1, alpha=0.5),
    ms("FastGelu", ["h2", "b2"], ["g2"]),
    ms("Gelu", ["g2"], ["g3"]),
    ms("QuickGelu", ["g3"], ["g4"], alpha=1.5),
    helper.make_node("Add", ["g4", "residual"], ["sum"]),
    ms("SkipSimplifiedLayerNormalization", ["sum", "ln", "gamma2"], ["rms", "", "", "rms_in"],
       epsilon=1e-6),
    helper.make_node("SimplifiedLayerNormalization", ["rms_in", "scale"], ["y"],
                     axis=-1, epsilon=1e-5),
]
write_case(sys.argv[1], "encoder_block", nodes, {"x": x, "skip": skip},
           [("y", TensorProto.FLOAT), ("rms", TensorProto.FLOAT)], inits, domains=[MS])

nodes = [
    ms("SkipLayerNormalization", ["x", "skip", "gamma", "beta"], ["ln"], epsilon=1e-12),
    helper.make_node("LayerNormalization", ["ln", "gamma2", "beta"], ["y"], axis=-1,
                     epsilon=1e-5),
]
write_case(sys.argv[1], "layer_norm_opset13", nodes, {"x": x, "skip": skip},
           [("y", TensorProto.FLOAT)], [w("gamma", H), w("beta", H), w("gamma2", H)],
           opset=13, domains=[MS])

# BERT as the optimizer fuses it with num_heads given: embeddings and their
# LayerNorm, the mask's lengths (right padding), packed-QKV attention.
ids = rng.integers(0, 20, (B, S)).astype(np.int32)
segments = rng.integers(0, 2, (B, S)).astype(np.int32)
mask = np.array([[1, 1, 1], [1, 1, 0]], np.int32)
nodes = [
    ms("EmbedLayerNormalization", ["ids", "segments", "words", "places", "kinds", "gamma",
                                   "beta", "mask"], ["emb", "mask_index"], epsilon=1e-12),
    ms("Attention", ["emb", "Wqkv", "bqkv", "mask_index"], ["y"], num_heads=2),
]
write_case(sys.argv[1], "bert_attention", nodes,
           {"ids": ids, "segments": segments, "mask": mask}, [("y", TensorProto.FLOAT)],
           [w("words", 20, H), w("places", 16, H), w("kinds", 2, H), w("gamma", H),
            w("beta", H), w("Wqkv", H, 3 * H), w("bqkv", 3 * H)], domains=[MS])

# GPT-2's: causal, a raw 0/1 mask [B, T], scale given.
nodes = [ms("Attention", ["x", "Wqkv", "bqkv", "raw_mask"], ["y"], num_heads=2,
            unidirectional=1, scale=0.3)]
write_case(sys.argv[1], "causal_attention", nodes, {"x": x, "raw_mask": mask},
           [("y", TensorProto.FLOAT)], [w("Wqkv", H, 3 * H), w("bqkv", 3 * H)], domains=[MS])

# MultiHeadAttention, which dsmp does not import.
nodes = [ms("MultiHeadAttention", ["x", "x", "x"], ["y"], num_heads=2)]
write_case(sys.argv[1], "attention", nodes, {"x": x}, [("y", TensorProto.FLOAT)],
           domains=[MS])

# BiasAdd: onnxruntime's CPU provider has no kernel, so no session runs.
import onnx  # noqa: E402
graph = helper.make_graph(
    [ms("BiasAdd", ["x", "bias", "skip"], ["y"])], "bias_add",
    [helper.make_tensor_value_info(n, TensorProto.FLOAT, [B, S, H]) for n in ("x", "skip")],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w("bias", H)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                helper.make_opsetid(*MS)])
os.makedirs(os.path.join(sys.argv[1], "bias_add"), exist_ok=True)
onnx.save(model, os.path.join(sys.argv[1], "bias_add", "model.onnx"))
