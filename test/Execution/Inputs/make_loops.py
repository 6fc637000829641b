#!/usr/bin/env python3
"""Writes ONNX Loops as tf2onnx exports Keras recurrent layers, with
onnxruntime's outputs as the reference: make_loops.py DIR ->
DIR/<case>/model.onnx, DIR/<case>/test_data_set_0/.
- counted_rnn: M = 5, cond = float(i) < 5 and counter < 5 (tf2onnx's
  while-loop condition), carried: an int32 counter, the state h (initial
  [?, ?] from Expand, the body's [?, 4]) and the weights; scan output: h.
- data_cond: the same body, but it stops when sum(h) exceeds a bound: the
  trip count depends on the data.
- dynamic_rnn: the trip count read from the input's symbolic sequence dim,
  two sets of different shapes."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(__file__))
from ort_case import write_case  # noqa: E402

STEPS, BATCH, INPUT, HIDDEN = 5, 2, 3, 4
rng = np.random.default_rng(7)
f32 = np.float32
x = rng.standard_normal((BATCH, STEPS, INPUT)).astype(f32)
W = numpy_helper.from_array((0.5 * rng.standard_normal((INPUT, HIDDEN))).astype(f32), "W")
R = numpy_helper.from_array((0.5 * rng.standard_normal((HIDDEN, HIDDEN))).astype(f32), "R")
c = lambda name, value, dtype=np.int64: numpy_helper.from_array(np.array(value, dtype), name)


def body(stop):
    """Body inputs: i, cond, counter, h; outputs: cond, counter, h, h."""
    tensor = lambda n, t, s: helper.make_tensor_value_info(n, t, s)
    nodes = [
        helper.make_node("Gather", ["xT", "counter"], ["x_t"], axis=0),
        helper.make_node("MatMul", ["x_t", "W"], ["xw"]),
        helper.make_node("MatMul", ["h", "R"], ["hr"]),
        helper.make_node("Add", ["xw", "hr"], ["pre"]),
        helper.make_node("Tanh", ["pre"], ["h_next"]),
        helper.make_node("Add", ["counter", "one_i32"], ["counter_next"]),
    ]
    if stop == "count":
        nodes += [
            helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT),
            helper.make_node("Less", ["i_f", "steps_f"], ["more_i"]),
            helper.make_node("Less", ["counter_next", "steps_i32"], ["more_c"]),
            helper.make_node("And", ["more_i", "more_c"], ["cond_next"]),
        ]
    else:
        nodes += [
            helper.make_node("ReduceSum", ["h_next"], ["total"], keepdims=0),
            helper.make_node("Less", ["total", "bound"], ["cond_next"]),
        ]
    inits = [c("one_i32", 1, np.int32)] + (
        [c("steps_f", STEPS, f32), c("steps_i32", STEPS, np.int32)]
        if stop == "count" else [c("bound", 100.0, f32)])
    return helper.make_graph(
        nodes, "body",
        [tensor("i", TensorProto.INT64, []), tensor("cond", TensorProto.BOOL, []),
         tensor("counter", TensorProto.INT32, []),
         tensor("h", TensorProto.FLOAT, ["batch", HIDDEN])],
        [tensor("cond_next", TensorProto.BOOL, []),
         tensor("counter_next", TensorProto.INT32, []),
         tensor("h_next", TensorProto.FLOAT, ["batch", HIDDEN]),
         tensor("h_scan", TensorProto.FLOAT, ["batch", HIDDEN])],
        inits)


def write(name, stop):
    g = body(stop)
    g.node.append(helper.make_node("Identity", ["h_next"], ["h_scan"]))
    nodes = [
        helper.make_node("Transpose", ["x"], ["xT"], perm=[1, 0, 2]),
        # The initial state's shape from the input's: [batch, HIDDEN], which
        # ONNX's inference types [?, ?].
        helper.make_node("Shape", ["x"], ["x_shape"], start=0, end=1),
        helper.make_node("Concat", ["x_shape", "hidden"], ["h0_shape"], axis=0),
        helper.make_node("Expand", ["zero", "h0_shape"], ["h0"]),
        helper.make_node("Less", ["zero", "steps_f"], ["cond0"]),
        helper.make_node("Loop", ["M", "cond0", "counter0", "h0"],
                         ["counter_final", "h_final", "Y"], body=g),
    ]
    inits = [c("hidden", [HIDDEN]), c("zero", 0.0, f32), c("steps_f", STEPS, f32),
             c("M", STEPS), c("counter0", 0, np.int32), W, R]
    write_case(sys.argv[1], name, nodes, {"x": x},
               [("h_final", TensorProto.FLOAT), ("Y", TensorProto.FLOAT)], inits)


write("counted_rnn", "count")
write("data_cond", "sum")


def write_dynamic():
    """dynamic_rnn: counted_rnn with the trip count read from the input's
    sequence dim (Shape), the condition passed through, and the input's
    dims symbolic; set 0 has 2 x 5 steps, set 1 1 x 6."""
    import onnx
    import onnxruntime as ort
    g = body("count")
    del g.node[:]
    g.node.extend([n for n in body("count").node
                   if n.output[0] not in ("i_f", "more_i", "more_c", "cond_next")])
    g.node.append(helper.make_node("Identity", ["cond"], ["cond_next"]))
    g.node.append(helper.make_node("Identity", ["h_next"], ["h_scan"]))
    del g.initializer[:]
    g.initializer.append(c("one_i32", 1, np.int32))
    nodes = [
        helper.make_node("Transpose", ["x"], ["xT"], perm=[1, 0, 2]),
        helper.make_node("Shape", ["x"], ["x_shape"], start=0, end=1),
        helper.make_node("Shape", ["x"], ["steps"], start=1, end=2),
        helper.make_node("Squeeze", ["steps"], ["M"]),
        helper.make_node("Concat", ["x_shape", "hidden"], ["h0_shape"], axis=0),
        helper.make_node("Expand", ["zero", "h0_shape"], ["h0"]),
        helper.make_node("Loop", ["M", "", "counter0", "h0"],
                         ["counter_final", "h_final", "Y"], body=g),
    ]
    graph = helper.make_graph(
        nodes, "dynamic_rnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", INPUT])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("h_final", "Y")],
        [c("hidden", [HIDDEN]), c("zero", 0.0, f32), c("counter0", 0, np.int32), W, R])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    case = os.path.join(sys.argv[1], "dynamic_rnn")
    os.makedirs(case, exist_ok=True)
    onnx.save(model, os.path.join(case, "model.onnx"))
    session = ort.InferenceSession(os.path.join(case, "model.onnx"),
                                   providers=["CPUExecutionProvider"])
    for k, (batch, steps) in enumerate(((2, 5), (1, 6))):
        xs = rng.standard_normal((batch, steps, INPUT)).astype(f32)
        data = os.path.join(case, f"test_data_set_{k}")
        os.makedirs(data, exist_ok=True)
        with open(os.path.join(data, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(xs, "x").SerializeToString())
        for i, (n, a) in enumerate(zip(("h_final", "Y"), session.run(None, {"x": xs}))):
            with open(os.path.join(data, f"output_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())


write_dynamic()
