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
OUT/conv1d.onnx: 1-D convolutions over [batch, 4, length]: explicit pads,
then SAME_UPPER at stride 1, then a ReLU and a MaxPool.
OUT/decoder.onnx: an image decoder over x [batch, 4, h, w]:
BatchNormalization, a 2x2 stride-2 ConvTranspose (blocks that tile the
output) and a 3x3 stride-2 one (pads, output_padding), nearest Resizes
(asymmetric/floor and half_pixel/round_prefer_floor), Concat, a
GlobalAveragePool and an AveragePool that counts its pads.
OUT/upsample.onnx: a linear Resize over [batch, 4, length], which the
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
    r = np.random.default_rng(1)
    w = nh.from_array(r.standard_normal((8, 4, 3)).astype(np.float32), "w")
    w2 = nh.from_array(r.standard_normal((8, 8, 5)).astype(np.float32), "w2")
    b2 = nh.from_array(r.standard_normal(8).astype(np.float32), "b2")
    graph = h.make_graph(
        [h.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1]),
         h.make_node("Conv", ["y", "w2", "b2"], ["z0"], auto_pad="SAME_UPPER"),
         h.make_node("Relu", ["z0"], ["z1"]),
         h.make_node("MaxPool", ["z1"], ["z"], kernel_shape=[2], strides=[2])],
        "conv1d",
        [h.make_tensor_value_info("x", T.FLOAT, ["batch", 4, "length"])],
        [h.make_tensor_value_info("y", T.FLOAT, ["batch", 8, "length"]),
         h.make_tensor_value_info("z", T.FLOAT, ["batch", 8, None])], [w, w2, b2])
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def decoder():
    r = np.random.default_rng(2)

    def f32(name, array):
        return nh.from_array(np.asarray(array, np.float32), name)

    inits = [f32("scale", 1 + 0.1 * r.standard_normal(4)),
             f32("bias", 0.1 * r.standard_normal(4)),
             f32("mean", 0.1 * r.standard_normal(4)),
             f32("var", 1 + 0.1 * r.random(4)),
             f32("w_tile", r.standard_normal((4, 6, 2, 2)) / 4),
             f32("b_tile", 0.1 * r.standard_normal(6)),
             f32("w_up", r.standard_normal((4, 6, 3, 3)) / 6),
             f32("scales", [1, 1, 2, 2])]
    nodes = [
        h.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"],
                    ["bn"]),
        h.make_node("ConvTranspose", ["bn", "w_tile", "b_tile"], ["up1"],
                    kernel_shape=[2, 2], strides=[2, 2]),
        h.make_node("ConvTranspose", ["bn", "w_up"], ["up2"], kernel_shape=[3, 3],
                    strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1]),
        h.make_node("Resize", ["bn", "", "scales"], ["r1"], mode="nearest",
                    coordinate_transformation_mode="asymmetric",
                    nearest_mode="floor"),
        h.make_node("Resize", ["bn", "", "scales"], ["r2"], mode="nearest"),
        h.make_node("Concat", ["up1", "up2", "r1", "r2"], ["cat"], axis=1),
        h.make_node("GlobalAveragePool", ["cat"], ["pooled"]),
        h.make_node("AveragePool", ["cat"], ["smooth"], kernel_shape=[3, 3],
                    pads=[1, 1, 1, 1], count_include_pad=1),
    ]
    graph = h.make_graph(
        nodes, "decoder",
        [h.make_tensor_value_info("x", T.FLOAT, ["batch", 4, "h", "w"])],
        [h.make_tensor_value_info("cat", T.FLOAT, ["batch", 20, None, None]),
         h.make_tensor_value_info("pooled", T.FLOAT, ["batch", 20, 1, 1]),
         h.make_tensor_value_info("smooth", T.FLOAT, ["batch", 20, None, None])],
        inits)
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def upsample():
    scales = nh.from_array(np.asarray([1, 1, 2], np.float32), "scales")
    graph = h.make_graph(
        [h.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear")],
        "upsample",
        [h.make_tensor_value_info("x", T.FLOAT, ["batch", 4, "length"])],
        [h.make_tensor_value_info("y", T.FLOAT, ["batch", 4, None])], [scales])
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, make in (("encoder", encoder), ("shapes", shapes),
                       ("conv1d", conv1d), ("decoder", decoder),
                       ("upsample", upsample)):
        model = make()
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, os.path.join(out, f"{name}.onnx"))
