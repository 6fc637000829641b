#!/usr/bin/env python3
"""Writes small ONNX models of ops users' exports carry, with onnxruntime's
outputs as the reference: make_new_ops.py DIR -> DIR/<case>/model.onnx and
DIR/<case>/test_data_set_0/.

  log_softmax   a classifier head: MatMul, LogSoftmax (CTC recognisers)
  causal_mask   scores + Trilu(ones, k=1) * -1e4 (upper) and a lower Trilu
                with k=-1 on int64 data
  glu_split13   GLU: Split (opset 13, `split` input omitted, 2 outputs) on a
                dim the model leaves dynamic, Sigmoid, Mul
  split18       Split with num_outputs (opset 18) into 3 unequal parts
  split11       Split with the `split` attribute (opset 11)
  resize11      Resize-11 with an empty roi and empty scales, the sizes
                given (torchvision's LRASPP head at opset 11)
  resize_sizes  a dynamic batch whose Resize sizes are read from the input:
                Shape -> Slice (batch, channels) -> Concat with (6, 5)
  negative_axes ScatterElements and per-axis DequantizeLinear with axis = -1
                (a mixture of experts' top-k gate, a per-column int8 weight)
  eye_like      EyeLike on a dynamic square input (torch.eye(n) of a graph's
                node count): ones on the diagonal added in, and an int64
                one on the diagonal below (k = -1, dtype)
  affine_grid   a spatial transformer's AffineGrid (opset 20): the size read
                from the image's Shape, then GridSample; align_corners 1 on
                a constant size; a 3-D grid
  old_softmax   opset 11's flattening Softmax, LogSoftmax and Hardmax over an
                inner axis, and Softmax over an input whose rank is unknown
                at import (an If that unsqueezes unless the batch is 1)
  opset7        the classic model zoo's opset-7 forms: BatchNormalization-7
                (spatial), Upsample-7 (scales attribute), MaxPool-1,
                PRelu-7, Sum-6, Dropout-7, Flatten-1, Gemm-7, Cast-6, Less-7
  scatter10     Scatter (opset 10, torch's scatter_ below opset 11): the
                old name of ScatterElements, along axes 1 and 2
  image_scaler  tiny-YOLOv2's first op (opset 8): ImageScaler, scale times x
                plus a bias per channel
  opset23       ops whose opset-22 and -23 versions only added types (bf16,
                float4): Conv, AveragePool, Mish, InstanceNormalization,
                Reshape, Transpose, Cast, Squeeze at opset 23
  attention23   Attention (opset 23, torch's SDPA): grouped-query [B, H, S, D]
                with a bool mask and is_causal; packed [B, S, H * D] with a
                float mask, a scale and a softcap
  rms_norm23    RMSNormalization (opset 23, torch's nn.RMSNorm): over the last
                dim, and over the last two with epsilon and stash_type 0
  bn_training   BatchNormalization with training_mode = 1 (BiT's weight
                standardisation): Y by the batch's statistics, and the
                running mean and variance outputs
  cumsum        CumSum over f32 and int64 (HuggingFace position ids: the
                CumSum of the attention mask), plain, exclusive, reversed
  stale_value_info  a Reshape whose int64 shape constant the graph's
                value_info types as float (onnx's version converter leaves
                such hints): onnxruntime loads it, so must dsmp
"""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
f32 = np.float32
rng = np.random.default_rng(2026)


def vi(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def write(name, nodes, inputs, outputs, feeds, inits=(), opset=17, value_info=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits),
                              value_info=list(value_info))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    case = os.path.join(out, name)
    data = os.path.join(case, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(case, "model.onnx"))
    results = ort.InferenceSession(os.path.join(case, "model.onnx"),
                                   providers=["CPUExecutionProvider"]).run(None, feeds)
    for k, (n, a) in enumerate(feeds.items()):
        with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    for k, (o, a) in enumerate(zip(outputs, results)):
        with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, o.name).SerializeToString())


w = numpy_helper.from_array(rng.standard_normal((32, 11)).astype(f32), "w")
write("log_softmax",
      [helper.make_node("MatMul", ["x", "w"], ["logits"], name="head"),
       helper.make_node("LogSoftmax", ["logits"], ["logp"], axis=-1, name="logsoftmax")],
      [vi("x", [2, 7, 32])], [vi("logp", [2, 7, 11])],
      {"x": rng.standard_normal((2, 7, 32)).astype(f32)}, [w])

ones = numpy_helper.from_array(np.ones((6, 6), f32), "ones")
one = numpy_helper.from_array(np.array(1, np.int64), "one")
minus_one = numpy_helper.from_array(np.array(-1, np.int64), "minus_one")
big = numpy_helper.from_array(np.array(-1e4, f32), "big")
write("causal_mask",
      [helper.make_node("Trilu", ["ones", "one"], ["future"], upper=1, name="future"),
       helper.make_node("Mul", ["future", "big"], ["bias"], name="bias"),
       helper.make_node("Add", ["scores", "bias"], ["masked"], name="mask"),
       helper.make_node("Softmax", ["masked"], ["attn"], axis=-1, name="softmax"),
       helper.make_node("Trilu", ["ids", "minus_one"], ["below"], upper=0, name="below")],
      [vi("scores", [2, 6, 6]), vi("ids", [3, 5], TensorProto.INT64)],
      [vi("attn", [2, 6, 6]), vi("below", [3, 5], TensorProto.INT64)],
      {"scores": rng.standard_normal((2, 6, 6)).astype(f32),
       "ids": rng.integers(1, 100, (3, 5)).astype(np.int64)},
      [ones, one, minus_one, big])

write("glu_split13",
      [helper.make_node("Split", ["x"], ["a", "b"], axis=1, name="glu/Split"),
       helper.make_node("Sigmoid", ["b"], ["gate"], name="glu/Sigmoid"),
       helper.make_node("Mul", ["a", "gate"], ["y"], name="glu/Mul")],
      [vi("x", ["batch", 8, "time"])], [vi("y", ["batch", 4, "time"])],
      {"x": rng.standard_normal((2, 8, 5)).astype(f32)}, opset=13)

write("split18",
      [helper.make_node("Split", ["x"], ["p", "q", "r"], axis=-1, num_outputs=3, name="split")],
      [vi("x", [3, 8])], [vi("p", [3, 3]), vi("q", [3, 3]), vi("r", [3, 2])],
      {"x": rng.standard_normal((3, 8)).astype(f32)}, opset=18)

write("split11",
      [helper.make_node("Split", ["x"], ["p", "q"], axis=0, split=[1, 3], name="split")],
      [vi("x", [4, 2])], [vi("p", [1, 2]), vi("q", [3, 2])],
      {"x": rng.standard_normal((4, 2)).astype(f32)}, opset=11)

empty = np.zeros((0,), f32)
write("resize11",
      [helper.make_node("Resize", ["x", "roi", "scales", "sizes"], ["y"], name="up",
                        mode="linear", coordinate_transformation_mode="half_pixel")],
      [vi("x", [1, 2, 3, 3])], [vi("y", [1, 2, 6, 5])],
      {"x": rng.standard_normal((1, 2, 3, 3)).astype(f32)},
      [numpy_helper.from_array(empty, "roi"), numpy_helper.from_array(empty, "scales"),
       numpy_helper.from_array(np.array([1, 2, 6, 5], np.int64), "sizes")], opset=11)

write("resize_sizes",
      [helper.make_node("Shape", ["x"], ["shape"], name="shape"),
       helper.make_node("Slice", ["shape", "zero", "two"], ["nc"], name="nc"),
       helper.make_node("Concat", ["nc", "hw"], ["sizes"], axis=0, name="sizes"),
       helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="up", mode="linear",
                        coordinate_transformation_mode="half_pixel")],
      [vi("x", ["batch", 2, 3, 3])], [vi("y", ["batch", 2, 6, 5])],
      {"x": rng.standard_normal((2, 2, 3, 3)).astype(f32)},
      [numpy_helper.from_array(np.array([0], np.int64), "zero"),
       numpy_helper.from_array(np.array([2], np.int64), "two"),
       numpy_helper.from_array(np.array([6, 5], np.int64), "hw")], opset=13)

write("eye_like",
      [helper.make_node("EyeLike", ["a"], ["eye"], name="eye"),
       helper.make_node("Add", ["a", "eye"], ["y"], name="self_loops"),
       helper.make_node("EyeLike", ["a"], ["z"], k=-1, dtype=TensorProto.INT64, name="below")],
      [vi("a", ["n", "n"])], [vi("y", ["n", "n"]), vi("z", ["n", "n"], TensorProto.INT64)],
      {"a": rng.standard_normal((5, 5)).astype(f32)}, opset=13)

write("negative_axes",
      [helper.make_node("TopK", ["p", "two"], ["top", "idx"], axis=-1, name="topk"),
       helper.make_node("ScatterElements", ["zeros", "idx", "top"], ["gate"], axis=-1,
                        name="gate"),
       helper.make_node("DequantizeLinear", ["wq", "scale", "zp"], ["w"], axis=-1,
                        name="dequant"),
       helper.make_node("MatMul", ["gate", "w"], ["y"], name="mix")],
      [vi("p", [3, 4]), vi("zeros", [3, 4])], [vi("gate", [3, 4]), vi("y", [3, 5])],
      {"p": rng.random((3, 4)).astype(f32), "zeros": np.zeros((3, 4), f32)},
      [numpy_helper.from_array(np.array([2], np.int64), "two"),
       numpy_helper.from_array(rng.integers(-100, 100, (4, 5)).astype(np.int8), "wq"),
       numpy_helper.from_array(np.array([0.01, 0.02, 0.03, 0.04, 0.05], f32), "scale"),
       numpy_helper.from_array(np.array([0, 1, -1, 2, 0], np.int8), "zp")], opset=13)

write("old_softmax",
      [helper.make_node("Softmax", ["x"], ["inner"], axis=1, name="inner"),
       helper.make_node("LogSoftmax", ["x"], ["outer"], axis=0, name="outer"),
       helper.make_node("Hardmax", ["x"], ["onehot"], name="onehot"),
       helper.make_node("Shape", ["x"], ["shape"], name="shape"),
       helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0, name="batch"),
       helper.make_node("Equal", ["batch", "one"], ["single"], name="single"),
       helper.make_node(
           "If", ["single"], ["u"], name="maybe_unsqueeze",
           then_branch=helper.make_graph(
               [helper.make_node("Identity", ["x"], ["same"], name="same")], "then", [],
               [vi("same", None)]),
           else_branch=helper.make_graph(
               [helper.make_node("Unsqueeze", ["x"], ["wide"], axes=[0], name="wide")],
               "else", [], [vi("wide", None)])),
       helper.make_node("Softmax", ["u"], ["any_rank"], axis=2, name="any_rank")],
      [vi("x", ["batch", 3, 4])],
      [vi("inner", None), vi("outer", None), vi("onehot", None), vi("any_rank", None)],
      {"x": rng.standard_normal((2, 3, 4)).astype(f32)},
      [numpy_helper.from_array(np.array(0, np.int64), "zero"),
       numpy_helper.from_array(np.array(1, np.int64), "one")], opset=11)

write("affine_grid",
      [helper.make_node("Shape", ["x"], ["size"], name="size"),
       helper.make_node("AffineGrid", ["theta", "size"], ["grid"], name="grid"),
       helper.make_node("GridSample", ["x", "grid"], ["warped"], name="warp"),
       helper.make_node("AffineGrid", ["theta", "size_c"], ["grid_ac"], align_corners=1,
                        name="grid_ac"),
       helper.make_node("AffineGrid", ["theta3", "size3"], ["grid3"], name="grid3")],
      [vi("x", ["n", 2, 5, 7]), vi("theta", ["n", 2, 3]), vi("theta3", [2, 3, 4])],
      [vi("grid", None), vi("warped", None), vi("grid_ac", None), vi("grid3", None)],
      {"x": rng.standard_normal((2, 2, 5, 7)).astype(f32),
       "theta": (np.array([[1, 0, 0], [0, 1, 0]], f32)
                 + 0.2 * rng.standard_normal((2, 2, 3))).astype(f32),
       "theta3": (np.eye(3, 4, dtype=f32) + 0.2 * rng.standard_normal((2, 3, 4))).astype(f32)},
      [numpy_helper.from_array(np.array([2, 1, 3, 4], np.int64), "size_c"),
       numpy_helper.from_array(np.array([2, 1, 3, 4, 5], np.int64), "size3")], opset=20)

write("opset7",
      [helper.make_node("BatchNormalization", ["x", "gamma", "beta", "mean", "var"], ["bn"],
                        epsilon=1e-3, spatial=1, name="bn"),
       helper.make_node("PRelu", ["bn", "slope"], ["act"], name="prelu"),
       helper.make_node("MaxPool", ["act"], ["pool"], kernel_shape=[2, 2], strides=[2, 2],
                        name="pool"),
       helper.make_node("Upsample", ["pool"], ["up"], scales=[1.0, 1.0, 2.0, 2.0],
                        mode="nearest", name="up"),
       helper.make_node("Sum", ["up", "act", "bn"], ["sum"], name="sum"),
       helper.make_node("Dropout", ["sum"], ["kept"], ratio=0.3, name="dropout"),
       helper.make_node("Flatten", ["kept"], ["flat"], axis=1, name="flatten"),
       helper.make_node("Gemm", ["flat", "w", "b"], ["logits"], transB=1, name="fc"),
       helper.make_node("Less", ["logits", "zero"], ["negative"], name="less"),
       helper.make_node("Cast", ["negative"], ["mask"], to=TensorProto.FLOAT, name="cast")],
      [vi("x", [2, 3, 4, 6])],
      [vi("logits", None), vi("mask", None)],
      {"x": rng.standard_normal((2, 3, 4, 6)).astype(f32)},
      [numpy_helper.from_array(rng.uniform(0.5, 1.5, 3).astype(f32), "gamma"),
       numpy_helper.from_array(rng.standard_normal(3).astype(f32), "beta"),
       numpy_helper.from_array(rng.standard_normal(3).astype(f32), "mean"),
       numpy_helper.from_array(rng.uniform(0.5, 2, 3).astype(f32), "var"),
       numpy_helper.from_array(np.full((3, 1, 1), 0.1, f32), "slope"),
       numpy_helper.from_array(rng.standard_normal((5, 72)).astype(f32), "w"),
       numpy_helper.from_array(rng.standard_normal(5).astype(f32), "b"),
       numpy_helper.from_array(np.array([0.0], f32), "zero")], opset=7)

# Scatter (opsets 9 and 10; torch writes it for scatter_ and one-hot
# patterns below opset 11): ScatterElements under its old name, along
# axes 1 and 2.
write("scatter10",
      [helper.make_node("Scatter", ["x", "idx", "upd"], ["s"], axis=1, name="scatter"),
       helper.make_node("Scatter", ["s", "idx2", "upd2"], ["y"], axis=2, name="scatter_last"),
       helper.make_node("Relu", ["y"], ["r"], name="relu")],
      [vi("x", [3, 5, 4]), vi("upd", [3, 2, 4])], [vi("r", None)],
      {"x": rng.standard_normal((3, 5, 4)).astype(f32),
       "upd": rng.standard_normal((3, 2, 4)).astype(f32)},
      [numpy_helper.from_array(np.array([[[0, 4, 1, 3], [2, 0, 4, 1]]] * 3, np.int64), "idx"),
       numpy_helper.from_array(np.array([[[3]] * 5] * 3, np.int64), "idx2"),
       numpy_helper.from_array(np.full((3, 5, 1), 7.0, f32), "upd2")], opset=10)

write("image_scaler",
      [helper.make_node("ImageScaler", ["x"], ["scaled"], scale=1 / 255.0,
                        bias=[-0.5, 0.25, 1.0], name="scale"),
       helper.make_node("LeakyRelu", ["scaled"], ["y"], alpha=0.1, name="leaky")],
      [vi("x", [1, 3, 4, 5])], [vi("y", None)],
      {"x": rng.uniform(0, 255, (1, 3, 4, 5)).astype(f32)}, opset=8)

write("stale_value_info",
      [helper.make_node("Constant", [], ["shape"], name="shape",
                        value=numpy_helper.from_array(np.array([2, 12], np.int64))),
       helper.make_node("Reshape", ["x", "shape"], ["flat"], name="flatten"),
       helper.make_node("Relu", ["flat"], ["y"], name="relu")],
      [vi("x", [2, 3, 4])], [vi("y", None)],
      {"x": rng.standard_normal((2, 3, 4)).astype(f32)}, opset=7,
      value_info=[vi("shape", [2], TensorProto.FLOAT)])

write("opset23",
      [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
       helper.make_node("InstanceNormalization", ["c", "gamma", "beta"], ["n"], name="norm"),
       helper.make_node("Mish", ["n"], ["m"], name="mish"),
       helper.make_node("AveragePool", ["m"], ["p"], kernel_shape=[2, 2], strides=[2, 2],
                        name="pool"),
       helper.make_node("Transpose", ["p"], ["t"], perm=[0, 2, 3, 1], name="nhwc"),
       helper.make_node("Reshape", ["t", "flat_shape"], ["flat"], name="flatten"),
       helper.make_node("Cast", ["flat"], ["y"], to=TensorProto.FLOAT, name="cast")],
      [vi("x", [2, 3, 6, 6])], [vi("y", None)],
      {"x": rng.standard_normal((2, 3, 6, 6)).astype(f32)},
      [numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(f32), "w"),
       numpy_helper.from_array(rng.uniform(0.5, 1.5, 4).astype(f32), "gamma"),
       numpy_helper.from_array(rng.standard_normal(4).astype(f32), "beta"),
       numpy_helper.from_array(np.array([2, -1], np.int64), "flat_shape")], opset=23)

allowed = rng.uniform(size=(5, 6)) > 0.3
allowed[:, 0] = True  # no row fully masked
write("attention23",
      [helper.make_node("Attention", ["q", "k", "v", "allowed"], ["gqa"], is_causal=1,
                        name="gqa"),
       helper.make_node("Attention", ["qp", "kp", "vp", "bias"], ["packed"], q_num_heads=4,
                        kv_num_heads=2, scale=0.3, softcap=5.0, name="packed")],
      [vi("q", [2, 4, 5, 8]), vi("k", [2, 2, 6, 8]), vi("v", [2, 2, 6, 8]),
       vi("qp", [2, 5, 16]), vi("kp", [2, 6, 8]), vi("vp", [2, 6, 8])],
      [vi("gqa", None), vi("packed", None)],
      {"q": rng.standard_normal((2, 4, 5, 8)).astype(f32),
       "k": rng.standard_normal((2, 2, 6, 8)).astype(f32),
       "v": rng.standard_normal((2, 2, 6, 8)).astype(f32),
       "qp": rng.standard_normal((2, 5, 16)).astype(f32),
       "kp": rng.standard_normal((2, 6, 8)).astype(f32),
       "vp": rng.standard_normal((2, 6, 8)).astype(f32)},
      [numpy_helper.from_array(allowed, "allowed"),
       numpy_helper.from_array(rng.standard_normal((2, 1, 5, 6)).astype(f32), "bias")],
      opset=23)

write("bn_training",
      [helper.make_node("BatchNormalization", ["x", "scale", "b", "mean", "var"],
                        ["y", "running_mean", "running_var"], epsilon=1e-4, momentum=0.8,
                        training_mode=1, name="bn")],
      [vi("x", [3, 4, 5, 2])], [vi("y", None), vi("running_mean", None), vi("running_var", None)],
      {"x": (2 + 3 * rng.standard_normal((3, 4, 5, 2))).astype(f32)},
      [numpy_helper.from_array(rng.uniform(0.5, 1.5, 4).astype(f32), "scale"),
       numpy_helper.from_array(rng.standard_normal(4).astype(f32), "b"),
       numpy_helper.from_array(rng.standard_normal(4).astype(f32), "mean"),
       numpy_helper.from_array(rng.uniform(0.5, 1.5, 4).astype(f32), "var")],
      opset=15)

write("cumsum",
      [helper.make_node("CumSum", ["x", "axis1"], ["plain"], name="plain"),
       helper.make_node("CumSum", ["x", "axis0"], ["rev_excl"], exclusive=1, reverse=1,
                        name="rev_excl"),
       helper.make_node("CumSum", ["m", "axis1"], ["ids"], name="ids"),
       helper.make_node("CumSum", ["m", "axis1"], ["ids_rev"], reverse=1, name="ids_rev")],
      [vi("x", [3, 7]), vi("m", [3, 7], TensorProto.INT64)],
      [vi("plain", None), vi("rev_excl", None), vi("ids", None, TensorProto.INT64),
       vi("ids_rev", None, TensorProto.INT64)],
      {"x": rng.standard_normal((3, 7)).astype(f32),
       "m": (rng.uniform(size=(3, 7)) > 0.3).astype(np.int64)},
      [numpy_helper.from_array(np.array(1, np.int64), "axis1"),
       numpy_helper.from_array(np.array(-2, np.int64), "axis0")])

write("rms_norm23",
      [helper.make_node("RMSNormalization", ["x", "scale"], ["last"], epsilon=1e-6,
                        name="last"),
       helper.make_node("RMSNormalization", ["x", "scale2"], ["two"], axis=-2,
                        epsilon=1e-3, stash_type=0, name="two")],
      [vi("x", [2, 5, 8])], [vi("last", None), vi("two", None)],
      {"x": (3 * rng.standard_normal((2, 5, 8))).astype(f32)},
      [numpy_helper.from_array(rng.uniform(0.5, 1.5, 8).astype(f32), "scale"),
       numpy_helper.from_array(rng.uniform(0.5, 1.5, (5, 8)).astype(f32), "scale2")],
      opset=23)
