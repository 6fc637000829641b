"""Writes OUT/model.onnx with a dynamic batch and shape arithmetic as
torch.onnx exports it from ShuffleNet and ViT, plus batch-2 (calibration)
and batch-3 (validation) sets whose outputs come from onnxruntime:
  - 8 blocks, each splitting its channels at (Shape(h)[1] + 1) / 2 of the
    block before (Add, Div, Mul on int64) and shuffling them (Shape ->
    Gather -> Concat -> Reshape -> Transpose -> Reshape): each block's
    shapes fold only once the block before it is static;
  - a ViT attention reshape whose target slices Shape(h) up to
    Reshape(Mod(c1, c2)), a constant only after folding at import."""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
C, BLOCKS = 8, 8
inits = [numpy_helper.from_array(np.array(v, np.int64), n) for n, v in [
    ("zero", [0]), ("one", [1]), ("two", [2]), ("i1", 1), ("i0", 0), ("axes0", [0]),
    ("groups", [2, C // 2, 4, 4]), ("rest", [C, 4, 4]), ("seven", [7]), ("three", [3]),
    ("minus1", [-1]), ("shape1", [1])]]
nodes = []
h = "x"
for i in range(BLOCKS):
    p = f"b{i}_"
    w = numpy_helper.from_array(rng.standard_normal((C // 2, C // 2, 1, 1)).astype(np.float32) / 2,
                                p + "w")
    inits.append(w)
    nodes += [
        helper.make_node("Shape", [h], [p + "s"]),
        helper.make_node("Gather", [p + "s", "i1"], [p + "c"], axis=0),
        helper.make_node("Gather", [p + "s", "i0"], [p + "n"], axis=0),
        helper.make_node("Unsqueeze", [p + "c", "axes0"], [p + "c1"]),
        helper.make_node("Add", [p + "c1", "one"], [p + "c2"]),
        helper.make_node("Div", [p + "c2", "two"], [p + "half"]),
        helper.make_node("Mul", [p + "half", "two"], [p + "end"]),
        helper.make_node("Slice", [h, "zero", p + "half", "one"], [p + "a"]),
        helper.make_node("Slice", [h, p + "half", p + "end", "one"], [p + "b"]),
        helper.make_node("Conv", [p + "b", p + "w"], [p + "bc"]),
        helper.make_node("Relu", [p + "bc"], [p + "br"]),
        helper.make_node("Concat", [p + "a", p + "br"], [p + "cat"], axis=1),
        helper.make_node("Unsqueeze", [p + "n", "axes0"], [p + "n1"]),
        helper.make_node("Concat", [p + "n1", "groups"], [p + "shape5"], axis=0),
        helper.make_node("Reshape", [p + "cat", p + "shape5"], [p + "r5"]),
        helper.make_node("Transpose", [p + "r5"], [p + "t5"], perm=[0, 2, 1, 3, 4]),
        helper.make_node("Concat", [p + "n1", "rest"], [p + "shape4"], axis=0),
        helper.make_node("Reshape", [p + "t5", p + "shape4"], [p + "out"]),
    ]
    h = p + "out"
nodes += [
    helper.make_node("Mod", ["seven", "three"], ["m"]),       # 1
    helper.make_node("Reshape", ["m", "shape1"], ["end"]),
    helper.make_node("Shape", [h], ["hs"]),
    helper.make_node("Slice", ["hs", "zero", "end"], ["lead"]),  # [N]
    helper.make_node("Concat", ["lead", "minus1"], ["flat_shape"], axis=0),
    helper.make_node("Reshape", [h, "flat_shape"], ["flat"]),
    helper.make_node("MatMul", ["flat", "wo"], ["y"]),
]
inits.append(numpy_helper.from_array(rng.standard_normal((C * 16, 10)).astype(np.float32) / 8,
                                     "wo"))
graph = helper.make_graph(
    nodes, "deep_shape_chain",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", C, 4, 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model, full_check=True)
path = os.path.join(out, "model.onnx")
onnx.save(model, path)
session = ort.InferenceSession(path)
for name, batch in (("calibration", 2), ("validation", 3)):
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    x = np.random.default_rng(batch).standard_normal((batch, C, 4, 4)).astype(np.float32)
    y = session.run(None, {"x": x})[0]
    with open(os.path.join(folder, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    with open(os.path.join(folder, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "y").SerializeToString())
