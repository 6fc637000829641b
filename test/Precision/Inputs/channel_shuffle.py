"""Writes a channel shuffle whose batch size is read at run time
(Shape -> Gather -> Concat -> Reshape, as torch.onnx exports `x.view(n, ...)`)
into OUT/model.onnx, with a batch-2 calibration set and a batch-3 validation
set whose outputs come from onnxruntime."""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


nodes = [
    helper.make_node("Shape", ["x"], ["s"]),
    helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
    helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"]),
    helper.make_node("Concat", ["n1", "groups"], ["shape5"], axis=0),
    helper.make_node("Reshape", ["x", "shape5"], ["r5"]),
    helper.make_node("Transpose", ["r5"], ["t5"], perm=[0, 2, 1, 3, 4]),
    helper.make_node("Concat", ["n1", "rest"], ["shape4"], axis=0),
    helper.make_node("Reshape", ["t5", "shape4"], ["shuffled"]),
    helper.make_node("Flatten", ["shuffled"], ["flat"], axis=1),
    helper.make_node("MatMul", ["flat", "w"], ["y"]),
]
rng = np.random.default_rng(0)
w = numpy_helper.from_array(rng.standard_normal((256, 10)).astype(np.float32), "w")
graph = helper.make_graph(
    nodes, "channel_shuffle",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4, 8, 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])],
    [ints("zero", 0), ints("axes0", [0]), ints("groups", [2, 2, 8, 8]),
     ints("rest", [4, 8, 8]), w])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model, full_check=True)
path = os.path.join(out, "model.onnx")
onnx.save(model, path)
session = ort.InferenceSession(path)
for name, batch in (("calibration", 2), ("validation", 3)):
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    x = np.random.default_rng(batch).standard_normal((batch, 4, 8, 8)).astype(np.float32)
    y = session.run(None, {"x": x})[0]
    with open(os.path.join(folder, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    with open(os.path.join(folder, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "y").SerializeToString())
