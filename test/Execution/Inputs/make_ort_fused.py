#!/usr/bin/env python3
"""Models with onnxruntime's Conv and Gemm activation fusions (its graph
optimizer's com.microsoft FusedConv and FusedGemm):
make_ort_fused.py DIR -> DIR/<case>/model.onnx, DIR/<case>/test_data_set_0/.
- optimized_cnn: a small CNN (Conv with Relu, LeakyRelu, Clip, HardSigmoid
  and Sigmoid; Conv + Add + Relu; Gemm + Relu) as onnxruntime's graph
  optimizer saves it (ORT_ENABLE_EXTENDED, optimized_model_filepath); the
  reference is the unoptimized model run with every optimization off.
- fused_by_hand: FusedConv with Tanh, and with a Z input and no
  activation (the optimizer above left Conv + Add + Relu apart); FusedGemm
  with Elu, LeakyRelu and Selu by their activation_* attributes
  (onnxruntime runs them natively).
- fused_silu: FusedConv with Silu, which onnxruntime 1.32's CPU kernels
  refuse (no reference outputs: the lit test checks its import)."""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(__file__))
from ort_case import write_case  # noqa: E402

out = sys.argv[1]
rng = np.random.default_rng(5)
f32 = np.float32


def w(name, *shape):
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    return numpy_helper.from_array((rng.standard_normal(shape) / np.sqrt(fan_in)).astype(f32), name)


def conv(x, weight, bias, y, **kw):
    return helper.make_node("Conv", [x, weight] + ([bias] if bias else []), [y], **kw)


# --- optimized_cnn: the graph optimizer fuses it ---
nodes = [
    conv("x", "w1", "b1", "c1", pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c1"], ["a1"]),
    conv("a1", "w2", "b2", "c2", pads=[1, 1, 1, 1], strides=[2, 2]),
    helper.make_node("LeakyRelu", ["c2"], ["a2"], alpha=0.2),
    conv("a2", "w3", None, "c3", group=2, kernel_shape=[3, 3], auto_pad="SAME_UPPER"),
    helper.make_node("Clip", ["c3", "lo", "hi"], ["a3"]),
    conv("a3", "w4", "b4", "c4", dilations=[2, 2], pads=[2, 2, 2, 2]),
    helper.make_node("HardSigmoid", ["c4"], ["a4"], alpha=0.3, beta=0.4),
    conv("a4", "w5", "b5", "c5", pads=[1, 1, 1, 1]),
    helper.make_node("Add", ["c5", "a4"], ["s5"]),
    helper.make_node("Relu", ["s5"], ["a5"]),
    conv("a5", "w6", "b6", "c6"),
    helper.make_node("Sigmoid", ["c6"], ["a6"]),
    helper.make_node("GlobalAveragePool", ["a6"], ["gp"]),
    helper.make_node("Flatten", ["gp"], ["fl"]),
    helper.make_node("Gemm", ["fl", "wg", "bg"], ["g1"], transB=1),
    helper.make_node("Relu", ["g1"], ["r1"]),
    helper.make_node("Gemm", ["r1", "wo", "bo"], ["y"], alpha=0.5),
]
inits = [w("w1", 8, 3, 3, 3), w("b1", 8), w("w2", 8, 8, 3, 3), w("b2", 8), w("w3", 8, 4, 3, 3),
         numpy_helper.from_array(np.array(0.0, f32), "lo"),
         numpy_helper.from_array(np.array(6.0, f32), "hi"),
         w("w4", 8, 8, 3, 3), w("b4", 8), w("w5", 8, 8, 3, 3), w("b5", 8), w("w6", 16, 8, 1, 1),
         w("b6", 16), w("wg", 12, 16), w("bg", 12), w("wo", 12, 5), w("bo", 5)]
x = rng.standard_normal((2, 3, 12, 12)).astype(f32)
graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
case = os.path.join(out, "optimized_cnn")
data = os.path.join(case, "test_data_set_0")
os.makedirs(data, exist_ok=True)
plain = os.path.join(out, "optimized_cnn.plain.onnx")
onnx.save(model, plain)
options = ort.SessionOptions()
options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
reference = ort.InferenceSession(plain, options, providers=["CPUExecutionProvider"]).run(None, {"x": x})
options = ort.SessionOptions()
options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
options.optimized_model_filepath = os.path.join(case, "model.onnx")
ort.InferenceSession(plain, options, providers=["CPUExecutionProvider"])
fused = [n.op_type for n in onnx.load(os.path.join(case, "model.onnx")).graph.node
         if n.domain == "com.microsoft"]
# What the lit test relies on: the optimizer did fuse (else this case
# would test plain Conv and Gemm).
print("optimized_cnn: com.microsoft ops", " ".join(sorted(fused)))
with open(os.path.join(data, "input_0.pb"), "wb") as f:
    f.write(numpy_helper.from_array(x, "x").SerializeToString())
with open(os.path.join(data, "output_0.pb"), "wb") as f:
    f.write(numpy_helper.from_array(reference[0], "y").SerializeToString())

# --- fused_by_hand: the forms the optimizer above did not write ---
ms = lambda op, ins, outs, **kw: helper.make_node(op, ins, outs, domain="com.microsoft", **kw)
nodes = [
    ms("FusedConv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], activation="Tanh"),
    ms("FusedConv", ["c1", "w2", "", "z"], ["c2"], strides=[2, 2]),
    helper.make_node("Flatten", ["c2"], ["fl"]),
    ms("FusedGemm", ["fl", "wa", "ba"], ["g1"], activation="Elu", activation_alpha=0.7),
    ms("FusedGemm", ["g1", "wb"], ["g2"], transB=1, beta=0.0, activation="LeakyRelu",
       activation_alpha=0.1),
    ms("FusedGemm", ["g2", "wc", "bc"], ["y"], alpha=2.0, beta=0.5, activation="Selu",
       activation_alpha=1.5, activation_gamma=1.1),
]
inits = [w("w1", 4, 3, 3, 3), w("b1", 4), w("w2", 6, 4, 3, 3), w("wa", 150, 10), w("ba", 10),
         w("wb", 7, 10), w("wc", 7, 3), w("bc", 3)]
write_case(out, "fused_by_hand", nodes, {"x": rng.standard_normal((2, 3, 12, 12)).astype(f32),
                                         "z": rng.standard_normal((2, 6, 5, 5)).astype(f32)},
           [("y", TensorProto.FLOAT)], inits, domains=[("com.microsoft", 1)])

silu = helper.make_model(helper.make_graph(
    [ms("FusedConv", ["x", "w1", "b1"], ["y"], pads=[1, 1, 1, 1], activation="Silu")], "silu",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w("w1", 4, 3, 3, 3), w("b1", 4)]),
    opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
os.makedirs(os.path.join(out, "fused_silu"), exist_ok=True)
onnx.save(silu, os.path.join(out, "fused_silu", "model.onnx"))
