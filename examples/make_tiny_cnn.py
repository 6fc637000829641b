#!/usr/bin/env python3
"""Writes examples/tiny_cnn: a small seeded CNN classifier and its
onnxruntime reference data (test_data_set_0), the bundled example that
scripts/run-example.sh runs through dsmp.

The graph mixes what real exports contain: Conv + BatchNormalization +
Relu, MaxPool, a residual Add, GlobalAveragePool, a Reshape whose target
shape is computed with Shape/Gather/Concat, Gemm and Softmax, with a
symbolic batch dim.
"""
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny_cnn")
rng = np.random.default_rng(2024)


def weight(name, *shape, scale=0.2):
    return numpy_helper.from_array(
        (rng.standard_normal(shape) * scale).astype(np.float32), name)


inits = [
    weight("conv1.w", 8, 3, 3, 3), weight("conv1.b", 8),
    numpy_helper.from_array(rng.uniform(0.5, 1.5, 8).astype(np.float32), "bn.scale"),
    weight("bn.bias", 8), weight("bn.mean", 8, scale=0.1),
    numpy_helper.from_array(rng.uniform(0.5, 1.5, 8).astype(np.float32), "bn.var"),
    weight("conv2.w", 8, 8, 3, 3, scale=0.1), weight("conv2.b", 8),
    weight("fc.w", 10, 8), weight("fc.b", 10),
    numpy_helper.from_array(np.array([0], np.int64), "zero"),
    numpy_helper.from_array(np.array([-1], np.int64), "minus_one"),
]
nodes = [
    helper.make_node("Conv", ["image", "conv1.w", "conv1.b"], ["c1"],
                     name="conv1", pads=[1, 1, 1, 1]),
    helper.make_node("BatchNormalization",
                     ["c1", "bn.scale", "bn.bias", "bn.mean", "bn.var"], ["b1"],
                     name="bn1", epsilon=1e-5),
    helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
    helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1",
                     kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Conv", ["p1", "conv2.w", "conv2.b"], ["c2"],
                     name="conv2", pads=[1, 1, 1, 1]),
    helper.make_node("Add", ["c2", "p1"], ["res"], name="residual"),
    helper.make_node("Relu", ["res"], ["r2"], name="relu2"),
    helper.make_node("GlobalAveragePool", ["r2"], ["gap"], name="gap"),
    helper.make_node("Shape", ["gap"], ["gap_shape"], name="shape"),
    helper.make_node("Gather", ["gap_shape", "zero"], ["batch"], name="batch",
                     axis=0),
    helper.make_node("Concat", ["batch", "minus_one"], ["flat_shape"],
                     name="flat_shape", axis=0),
    helper.make_node("Reshape", ["gap", "flat_shape"], ["flat"], name="flatten"),
    helper.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["logits"], name="fc",
                     transB=1),
    helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
]
graph = helper.make_graph(
    nodes, "tiny_cnn",
    [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 16, 16])],
    [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", 10])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                          producer_name="dsmp-examples")
model.ir_version = 8
onnx.checker.check_model(model, full_check=True)
os.makedirs(os.path.join(here, "test_data_set_0"), exist_ok=True)
onnx.save(model, os.path.join(here, "model.onnx"))

image = rng.standard_normal((4, 3, 16, 16)).astype(np.float32)
session = ort.InferenceSession(os.path.join(here, "model.onnx"),
                               providers=["CPUExecutionProvider"])
(probs,) = session.run(None, {"image": image})
for name, array, file in [("image", image, "input_0.pb"),
                          ("probs", probs, "output_0.pb")]:
    with open(os.path.join(here, "test_data_set_0", file), "wb") as f:
        f.write(numpy_helper.from_array(array, name).SerializeToString())
print(f"wrote {here}: argmax {probs.argmax(axis=1).tolist()}")
