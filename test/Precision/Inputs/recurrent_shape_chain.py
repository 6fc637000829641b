"""Writes OUT/model.onnx, EnCodec's encoder in miniature: a dynamic batch
and length; four blocks that pad their input by ceil(Shape(h)[2] / 2.0)
(Cast to float, Div, Ceil, Cast back, reflect Pad, as EnCodec pads) and
slice the padded tensor to Shape(padded)[2] - 1; an LSTM; two more such
blocks. Plus OUT/set (batch 1) with onnxruntime's outputs. Each block's
shapes fold a round after the block before it; the LSTM unrolls only
once the blocks before it are static, adding ops, and the blocks after it
fold in the rounds after that."""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(os.path.join(out, "set"), exist_ok=True)
rng = np.random.default_rng(4)
C, H = 4, 4
inits = [numpy_helper.from_array(np.array(v, np.int64), n) for n, v in [
    ("zero", [0]), ("one", [1]), ("axis2", [2]), ("i2", 2), ("axes0", [0]),
    ("zeros5", [0, 0, 0, 0, 0])]]
inits.append(numpy_helper.from_array(np.array([2.0], np.float32), "twof"))
inits += [numpy_helper.from_array((rng.standard_normal(s) * 0.5).astype(np.float32), n)
          for n, s in [("W", (1, 4 * H, C)), ("R", (1, 4 * H, H))]]
nodes = []


def block(h, p):
    inits.append(numpy_helper.from_array(
        (rng.standard_normal((C, C, 1)) * 0.5).astype(np.float32), p + "w"))
    nodes.extend([
        helper.make_node("Shape", [h], [p + "s"]),
        helper.make_node("Gather", [p + "s", "i2"], [p + "t"], axis=0),
        helper.make_node("Unsqueeze", [p + "t", "axes0"], [p + "t1"]),
        helper.make_node("Cast", [p + "t1"], [p + "tf"], to=TensorProto.FLOAT),
        helper.make_node("Div", [p + "tf", "twof"], [p + "hf"]),
        helper.make_node("Ceil", [p + "hf"], [p + "cf"]),
        helper.make_node("Cast", [p + "cf"], [p + "extra"], to=TensorProto.INT64),
        helper.make_node("Concat", ["zeros5", p + "extra"], [p + "pads"], axis=0),
        helper.make_node("Pad", [h, p + "pads"], [p + "padded"], mode="reflect"),
        helper.make_node("Shape", [p + "padded"], [p + "ps"]),
        helper.make_node("Gather", [p + "ps", "i2"], [p + "pt"], axis=0),
        helper.make_node("Unsqueeze", [p + "pt", "axes0"], [p + "pt1"]),
        helper.make_node("Sub", [p + "pt1", "one"], [p + "end"]),
        helper.make_node("Slice", [p + "padded", "zero", p + "end", "axis2"], [p + "a"]),
        helper.make_node("Conv", [p + "a", p + "w"], [p + "c"]),
        helper.make_node("Relu", [p + "c"], [p + "out"])])
    return p + "out"


h = "x"
for i in range(4):
    h = block(h, f"b{i}_")
nodes += [helper.make_node("Transpose", [h], ["seq"], perm=[2, 0, 1]),
          helper.make_node("LSTM", ["seq", "W", "R"], ["Y"], hidden_size=H),
          helper.make_node("Squeeze", ["Y", "one"], ["ys"]),
          helper.make_node("Transpose", ["ys"], ["back"], perm=[1, 2, 0])]
h = block(block("back", "b4_"), "b5_")
nodes.append(helper.make_node("Identity", [h], ["y"]))
graph = helper.make_graph(
    nodes, "recurrent_shape_chain",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", C, "T"])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", C, "U"])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.checker.check_model(model, full_check=True)
path = os.path.join(out, "model.onnx")
onnx.save(model, path)
x = rng.standard_normal((1, C, 12)).astype(np.float32)
y = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
for name, a, kind in [("x", x, "input"), ("y", y, "output")]:
    with open(os.path.join(out, "set", f"{kind}_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, name).SerializeToString())
