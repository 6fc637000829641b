"""Models with symbolic dims for test/Execution/dynamic-dims.test.

usage: dynamic_models.py OUT

OUT/encoder.onnx: an attention block over x [batch, seq, 32] with an
additive mask [batch, 1, seq] (the two inputs share `batch` and `seq`):
LayerNormalization, Q/K/V MatMuls, Q.K^T, Softmax, an exact-Erf GELU, a
ReduceMean over the sequence. Its outputs are [batch, seq, 32] and
[batch, 32].
OUT/conv1d.onnx: a 1-D convolution over [batch, 4, length], which the
lowering takes at static shapes only."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh


def encoder(d=32):
    r = np.random.default_rng(0)
    inits = []

    def init(name, array):
        inits.append(nh.from_array(np.asarray(array, np.float32), name))

    for name in ("Wq", "Wk", "Wv", "Wo"):
        init(name, r.standard_normal((d, d)) / np.sqrt(d))
    init("bq", 0.1 * r.standard_normal(d))
    init("g", 1 + 0.1 * r.standard_normal(d))
    init("b", 0.1 * r.standard_normal(d))
    init("scale", 1 / np.sqrt(d))
    init("half", 0.5)
    init("one", 1.0)
    init("rsqrt2", 1 / np.sqrt(2))
    nodes = [
        h.make_node("LayerNormalization", ["x", "g", "b"], ["ln"], axis=-1),
        h.make_node("MatMul", ["ln", "Wq"], ["q0"]),
        h.make_node("Add", ["q0", "bq"], ["q"]),
        h.make_node("MatMul", ["ln", "Wk"], ["k"]),
        h.make_node("MatMul", ["ln", "Wv"], ["v"]),
        h.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
        h.make_node("MatMul", ["q", "kt"], ["s0"]),
        h.make_node("Mul", ["s0", "scale"], ["s1"]),
        h.make_node("Add", ["s1", "mask"], ["s"]),
        h.make_node("Softmax", ["s"], ["p"], axis=-1),
        h.make_node("MatMul", ["p", "v"], ["a"]),
        h.make_node("MatMul", ["a", "Wo"], ["o"]),
        h.make_node("Add", ["o", "x"], ["res"]),
        h.make_node("Mul", ["res", "rsqrt2"], ["e0"]),
        h.make_node("Erf", ["e0"], ["e1"]),
        h.make_node("Add", ["e1", "one"], ["e2"]),
        h.make_node("Mul", ["res", "e2"], ["e3"]),
        h.make_node("Mul", ["e3", "half"], ["hidden"]),
        h.make_node("ReduceMean", ["hidden"], ["pooled0"], axes=[1], keepdims=0),
        h.make_node("Tanh", ["pooled0"], ["pooled"]),
    ]
    graph = h.make_graph(
        nodes, "encoder",
        [h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", d]),
         h.make_tensor_value_info("mask", T.FLOAT, ["batch", 1, "seq"])],
        [h.make_tensor_value_info("hidden", T.FLOAT, ["batch", "seq", d]),
         h.make_tensor_value_info("pooled", T.FLOAT, ["batch", d])],
        inits)
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def conv1d():
    w = nh.from_array(
        np.random.default_rng(1).standard_normal((8, 4, 3)).astype(np.float32), "w")
    graph = h.make_graph(
        [h.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1])], "conv1d",
        [h.make_tensor_value_info("x", T.FLOAT, ["batch", 4, "length"])],
        [h.make_tensor_value_info("y", T.FLOAT, ["batch", 8, "length"])], [w])
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, make in (("encoder", encoder), ("conv1d", conv1d)):
        model = make()
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, os.path.join(out, f"{name}.onnx"))
