#!/usr/bin/env python3
"""Writes OUT/model.onnx and OUT/test_data_set_0: a ViT-like head whose
contractions reach the output only through ops the adjoint used to stop at.

  h = HardSwish(MatMul(x, W1))                    [2, 6, 16]
  t = Gather(Concat(cls, h, axis 1), 3, axis 1)   one token, [2, 16]
  y = MaxPool(ceil_mode) -> Identity -> MatMul(W2) [2, 8]
  b = Cast(Floor(Log(|x| + 1) * 4), int64)          an index computation
  z = Gather(table, b)                             a lookup by bucket

The MatMuls must get a measured sensitivity; the bucket chain, whose
every use ends in a Cast to integers, stays f32 as discrete_use."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(5)


def const(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


inits = [const("w1", rng.standard_normal((16, 16)).astype(np.float32) / 4),
         const("w2", rng.standard_normal((8, 8)).astype(np.float32) / 3),
         const("cls", rng.standard_normal((2, 1, 16)).astype(np.float32)),
         const("three", np.array(3, np.int64)),
         const("one", np.array(1.0, np.float32)),
         const("four", np.array(4.0, np.float32)),
         const("table", rng.standard_normal((32, 4)).astype(np.float32)),
         const("shape3", np.array([2, 1, 16], np.int64))]
nodes = [
    helper.make_node("MatMul", ["x", "w1"], ["p"], name="matmul_1"),
    helper.make_node("HardSwish", ["p"], ["h"], name="hard_swish"),
    helper.make_node("Concat", ["cls", "h"], ["c"], axis=1, name="concat"),
    helper.make_node("Gather", ["c", "three"], ["t"], axis=1, name="class_token"),
    helper.make_node("Reshape", ["t", "shape3"], ["t3"], name="reshape"),
    helper.make_node("MaxPool", ["t3"], ["m"], kernel_shape=[3], strides=[2], ceil_mode=1,
                     name="max_pool"),
    helper.make_node("Identity", ["m"], ["mi"], name="identity"),
    helper.make_node("MatMul", ["mi", "w2"], ["y"], name="matmul_2"),
    helper.make_node("Abs", ["x"], ["a"], name="abs"),
    helper.make_node("Add", ["a", "one"], ["a1"], name="add"),
    helper.make_node("Log", ["a1"], ["l"], name="log"),
    helper.make_node("Mul", ["l", "four"], ["l4"], name="scale"),
    helper.make_node("Floor", ["l4"], ["f"], name="floor"),
    helper.make_node("Cast", ["f"], ["b"], to=TensorProto.INT64, name="bucket"),
    helper.make_node("Gather", ["table", "b"], ["z"], name="lookup"),
]
graph = helper.make_graph(
    nodes, "class_token", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6, 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 1, 8]),
     helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 6, 16, 4])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
onnx.save(model, os.path.join(out, "model.onnx"))
x = rng.standard_normal((2, 6, 16)).astype(np.float32)
with open(os.path.join(out, "test_data_set_0", "input_0.pb"), "wb") as f:
    f.write(numpy_helper.from_array(x, "x").SerializeToString())
