#!/usr/bin/env python3
"""A PoolFormer-like stack (random weights): per block n = GroupNorm(x) with
one group (InstanceNormalization of [N, 1, C*H*W], as timm exports it),
x += AveragePool3x3(n) - n (padded, count_include_pad=0) and x += a 1x1
Conv of x, then GlobalAveragePool and Gemm. Its residual cancels all but
the pooled part of n, so the pool's border gradient decides the error
prediction upstream. Writes OUT/model.onnx and OUT/test_data_set_0."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(7)
C, H, BLOCKS = 8, 5, 12
nodes, inits = [], []


def const(name, a):
    inits.append(numpy_helper.from_array(np.asarray(a), name))
    return name


const("flat", np.array([1, 1, -1], np.int64))
const("back", np.array([1, C, H, H], np.int64))
const("one", np.ones(1, np.float32))
const("zero", np.zeros(1, np.float32))
x = "x"
for b in range(BLOCKS):
    p = f"b{b}_"
    nodes += [
        helper.make_node("Reshape", [x, "flat"], [p + "r"], name=p + "reshape"),
        helper.make_node("InstanceNormalization", [p + "r", "one", "zero"], [p + "in"],
                         epsilon=1e-6, name=p + "norm"),
        helper.make_node("Reshape", [p + "in", "back"], [p + "n"], name=p + "unreshape"),
        helper.make_node("AveragePool", [p + "n"], [p + "pool"], kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], count_include_pad=0, name=p + "pool"),
        helper.make_node("Sub", [p + "pool", p + "n"], [p + "mix"], name=p + "mix"),
        helper.make_node("Add", [x, p + "mix"], [p + "x1"], name=p + "residual1"),
        helper.make_node("Conv", [p + "x1", const(p + "w", (0.2 * rng.standard_normal((C, C, 1, 1)))
                                                  .astype(np.float32))], [p + "c"], name=p + "conv"),
        helper.make_node("Add", [p + "x1", p + "c"], [p + "x2"], name=p + "residual2"),
    ]
    x = p + "x2"
nodes += [helper.make_node("GlobalAveragePool", [x], ["g"], name="gap"),
          helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
          helper.make_node("Gemm", ["f", const("head", rng.standard_normal((C, 10)).astype(np.float32))],
                           ["y"], name="head")]
graph = helper.make_graph(nodes, "pool_mixer",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, H, H])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          os.path.join(out, "model.onnx"))
onnx.save_tensor(numpy_helper.from_array(rng.standard_normal((1, C, H, H)).astype(np.float32), "x"),
                 os.path.join(out, "test_data_set_0", "input_0.pb"))
