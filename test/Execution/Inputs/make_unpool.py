#!/usr/bin/env python3
"""Writes models with MaxPool's Indices, MaxUnpool and ReverseSequence,
onnxruntime's outputs as the reference: make_unpool.py DIR ->
DIR/<case>/model.onnx and DIR/<case>/test_data_set_0/.

  argmax    MaxPool 3x3, stride 2, pads 1, its Indices an output (row-major)
  columns   MaxPool 2x2 with storage_order 1 (column-major Indices), ceil_mode
  torch     torch's F.max_pool2d(return_indices=True) as torch.onnx exports
            it (indices per plane: a second 1x1 MaxPool and a Sub)
  segnet    SegNet's encoder-decoder step: Conv, MaxPool with Indices,
            Conv, MaxUnpool to the pre-pool shape (output_shape read with
            Shape), Conv; two input sets of different sizes
  unpool    MaxUnpool alone, output_shape larger than the unpooled shape
  reverse   ReverseSequence, time-major [T, B, C], lengths 0, 3, T and 9 > T
  reverse_b ReverseSequence, batch-major [B, T, C] (tf2onnx's Bidirectional)
  reverse_t the same with a symbolic T, two sets of T = 5 and 8
"""
import os
import sys
import warnings

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from ort_case import write_case

out = sys.argv[1]
rng = np.random.default_rng(5)
F, I64 = TensorProto.FLOAT, TensorProto.INT64


def weight(name, shape, scale=0.3):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def shape_of(a):
    return "x".join(map(str, a.shape))


x = rng.standard_normal((2, 3, 9, 9)).astype(np.float32)
r = write_case(out, "argmax", [helper.make_node(
    "MaxPool", ["x"], ["y", "i"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
    {"x": x}, [("y", F), ("i", I64)])
print("argmax", shape_of(r[0]), shape_of(r[1]))

x = rng.standard_normal((1, 2, 7, 6)).astype(np.float32)
r = write_case(out, "columns", [helper.make_node(
    "MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1,
    storage_order=1)], {"x": x}, [("y", F), ("i", I64)])
print("columns", shape_of(r[0]), shape_of(r[1]))

import torch  # noqa: E402


class Pool(torch.nn.Module):
    def forward(self, x):
        y, i = torch.nn.functional.max_pool2d(x, 3, 2, padding=1, return_indices=True)
        return y * 2, i


warnings.simplefilter("ignore")
case = os.path.join(out, "torch")
os.makedirs(os.path.join(case, "test_data_set_0"), exist_ok=True)
x = rng.standard_normal((2, 4, 10, 10)).astype(np.float32)
torch.onnx.export(Pool(), (torch.from_numpy(x),), os.path.join(case, "model.onnx"),
                  input_names=["x"], output_names=["y", "i"], opset_version=17, dynamo=False)
want = Pool()(torch.from_numpy(x))
for k, a in enumerate([x]):
    onnx.save_tensor(numpy_helper.from_array(a, "x"),
                     os.path.join(case, "test_data_set_0", f"input_{k}.pb"))
for k, (n, a) in enumerate(zip(["y", "i"], want)):
    onnx.save_tensor(numpy_helper.from_array(a.numpy(), n),
                     os.path.join(case, "test_data_set_0", f"output_{k}.pb"))
types = sorted({n.op_type for n in onnx.load(os.path.join(case, "model.onnx")).graph.node})
print("torch", " ".join(types), shape_of(want[1]))

# SegNet's step. The set written second (larger image) is the validation set.
nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="enc"),
         helper.make_node("Relu", ["c1"], ["r1"], name="enc_relu"),
         helper.make_node("MaxPool", ["r1"], ["p", "idx"], kernel_shape=[2, 2], strides=[2, 2],
                          name="pool"),
         helper.make_node("Conv", ["p", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], name="mid"),
         helper.make_node("Relu", ["c2"], ["r2"], name="mid_relu"),
         helper.make_node("Shape", ["r1"], ["size"], name="size"),
         helper.make_node("MaxUnpool", ["r2", "idx", "size"], ["u"], kernel_shape=[2, 2],
                          strides=[2, 2], name="unpool"),
         helper.make_node("Conv", ["u", "w3", "b3"], ["y"], pads=[1, 1, 1, 1], name="dec")]
inits = [weight("w1", (8, 3, 3, 3)), weight("b1", (8,), 0.1), weight("w2", (8, 8, 3, 3), 0.2),
         weight("b2", (8,), 0.1), weight("w3", (4, 8, 3, 3), 0.2), weight("b3", (4,), 0.1)]
x = rng.standard_normal((1, 3, 16, 16)).astype(np.float32)
y = write_case(out, "segnet", nodes, {"x": x}, [("y", F)], inits)[0]
segnet = os.path.join(out, "segnet")
m = onnx.load(os.path.join(segnet, "model.onnx"))
for d, name in zip(m.graph.input[0].type.tensor_type.shape.dim, ["n", None, "h", "w"]):
    if name:
        d.dim_param = name
onnx.save(m, os.path.join(segnet, "model.onnx"))
x1 = rng.standard_normal((2, 3, 20, 24)).astype(np.float32)
sess = ort.InferenceSession(os.path.join(segnet, "model.onnx"), providers=["CPUExecutionProvider"])
os.makedirs(os.path.join(segnet, "test_data_set_1"))
onnx.save_tensor(numpy_helper.from_array(x1, "x"),
                 os.path.join(segnet, "test_data_set_1", "input_0.pb"))
onnx.save_tensor(numpy_helper.from_array(sess.run(None, {"x": x1})[0], "y"),
                 os.path.join(segnet, "test_data_set_1", "output_0.pb"))
print("segnet", shape_of(y))

x = rng.standard_normal((1, 2, 3, 3)).astype(np.float32)
idx = np.array([[[[0, 3, 5], [12, 14, 17], [24, 27, 29]],
                 [[1, 2, 10], [13, 15, 22], [30, 33, 35]]]], np.int64)
y = write_case(out, "unpool", [helper.make_node(
    "MaxUnpool", ["x", "i", "s"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
    {"x": x, "i": idx}, [("y", F)],
    [numpy_helper.from_array(np.array([1, 2, 7, 8], np.int64), "s")])[0]
print("unpool", shape_of(y))

x = rng.standard_normal((6, 4, 5)).astype(np.float32)
lens = np.array([0, 3, 6, 9], np.int64)
y = write_case(out, "reverse", [helper.make_node(
    "ReverseSequence", ["x", "lens"], ["y"], time_axis=0, batch_axis=1)],
    {"x": x}, [("y", F)], [numpy_helper.from_array(np.minimum(lens, 6), "lens")])[0]
# onnxruntime rejects a length beyond T; dsmp reverses all T steps there.
m = onnx.load(os.path.join(out, "reverse", "model.onnx"))
m.graph.initializer[0].CopyFrom(numpy_helper.from_array(lens, "lens"))
onnx.save(m, os.path.join(out, "reverse", "model.onnx"))
print("reverse", shape_of(y))

x = rng.standard_normal((3, 7, 4)).astype(np.float32)
y = write_case(out, "reverse_b", [helper.make_node(
    "ReverseSequence", ["x", "lens"], ["y"], time_axis=1, batch_axis=0)],
    {"x": x, "lens": np.array([7, 2, 5], np.int64)}, [("y", F)])[0]
print("reverse_b", shape_of(y))

# The time dim left symbolic (tf2onnx's masked Bidirectional layers): the
# steps are a Range to the dim read at run time; two sets of T = 5 and 8.
x = rng.standard_normal((2, 5, 3)).astype(np.float32)
lens = np.array([4, 2], np.int64)
y = write_case(out, "reverse_t", [helper.make_node(
    "ReverseSequence", ["x", "lens"], ["y"], time_axis=1, batch_axis=0)],
    {"x": x, "lens": lens}, [("y", F)])[0]
case = os.path.join(out, "reverse_t")
m = onnx.load(os.path.join(case, "model.onnx"))
m.graph.input[0].type.tensor_type.shape.dim[1].dim_param = "t"
onnx.save(m, os.path.join(case, "model.onnx"))
x1 = rng.standard_normal((2, 8, 3)).astype(np.float32)
lens1 = np.array([8, 6], np.int64)
y1 = ort.InferenceSession(os.path.join(case, "model.onnx"),
                          providers=["CPUExecutionProvider"]).run(None, {"x": x1, "lens": lens1})[0]
os.makedirs(os.path.join(case, "test_data_set_1"))
for k, (n, a) in enumerate([("x", x1), ("lens", lens1)]):
    onnx.save_tensor(numpy_helper.from_array(a, n),
                     os.path.join(case, "test_data_set_1", f"input_{k}.pb"))
onnx.save_tensor(numpy_helper.from_array(y1, "y"),
                 os.path.join(case, "test_data_set_1", "output_0.pb"))
print("reverse_t", shape_of(y), shape_of(y1))
