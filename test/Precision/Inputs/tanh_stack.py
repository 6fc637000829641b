"""Shared by the models whose error one early op carries (offset_input.py,
flipped_threshold.py): six MatMul/Tanh layers (64 wide, weights
N(0, 1/64)) after the given nodes, the model saved as OUT/model.onnx with
input x [8, 64], and two input sets of x drawn by `draw(rng)`."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

H = 64


def write(out, name, nodes, inits, head, rng, draw):
    """`nodes` compute `head` from x; `inits` their constants."""
    nodes, inits, prev = list(nodes), list(inits), head
    for i in range(6):
        w = rng.normal(0, 1 / np.sqrt(H), (H, H)).astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"w{i}"))
        nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"], name=f"matmul{i}"))
        nodes.append(helper.make_node("Tanh", [f"m{i}"], [f"t{i}"], name=f"tanh{i}"))
        prev = f"t{i}"
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, H])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [8, H])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    os.makedirs(out, exist_ok=True)
    onnx.save(model, os.path.join(out, "model.onnx"))
    for s in range(2):
        folder = os.path.join(out, f"test_data_set_{s}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(draw(rng), "x").SerializeToString())
