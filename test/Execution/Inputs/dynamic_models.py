"""Models with symbolic dims for test/Execution/dynamic-dims.test.

usage: dynamic_models.py OUT

OUT/encoder.onnx: an attention block over x [batch, seq, 32] with an
additive mask [batch, 1, seq] (the two inputs share `batch` and `seq`):
LayerNormalization, Q/K/V MatMuls, Q.K^T, Softmax, an exact-Erf GELU, a
ReduceMean over the sequence. Its outputs are [batch, seq, 32] and
[batch, 32].
OUT/shapes.onnx: data movement along a dynamic dim, over x [batch, seq,
8]: positions by CumSum over ConstantOfShape(Shape(x)), the sequence
reversed by GatherElements with negative indices, Concat of x and that,
a reflect Pad, a reversed CumSum, Tile, Split into two static parts and
into two run-time halves (opset 18's num_outputs: the second one shorter
when seq is odd).
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


def shapes():
    def ints(name, values):
        return nh.from_array(np.asarray(values, np.int64), name)

    inits = [ints("one_axis", 1), ints("repeats", [1, 1, 2]),
             ints("pads", [0, 1, 0, 0, 1, 0]), ints("parts", [4, 12])]
    nodes = [
        h.make_node("Shape", ["x"], ["shape"]),
        h.make_node("ConstantOfShape", ["shape"], ["ones"],
                    value=nh.from_array(np.ones(1, np.int64))),
        h.make_node("CumSum", ["ones", "one_axis"], ["pos"]),
        h.make_node("Neg", ["pos"], ["back"]),
        h.make_node("GatherElements", ["x", "back"], ["rev"], axis=1),
        h.make_node("Concat", ["x", "rev"], ["cat"], axis=1),
        h.make_node("Pad", ["cat", "pads"], ["padded"], mode="reflect"),
        h.make_node("CumSum", ["x", "one_axis"], ["sums"], reverse=1),
        h.make_node("Tile", ["sums", "repeats"], ["tiled"]),
        h.make_node("Split", ["tiled", "parts"], ["narrow", "wide"], axis=2),
        h.make_node("Split", ["wide"], ["first", "second"], axis=1,
                    num_outputs=2),
    ]
    graph = h.make_graph(
        nodes, "shapes",
        [h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", 8])],
        [h.make_tensor_value_info("padded", T.FLOAT, ["batch", None, 8]),
         h.make_tensor_value_info("narrow", T.FLOAT, ["batch", "seq", 4]),
         h.make_tensor_value_info("first", T.FLOAT, ["batch", None, 12]),
         h.make_tensor_value_info("second", T.FLOAT, ["batch", None, 12])],
        inits)
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 18)])


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
    for name, make in (("encoder", encoder), ("shapes", shapes),
                       ("conv1d", conv1d)):
        model = make()
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, os.path.join(out, f"{name}.onnx"))
