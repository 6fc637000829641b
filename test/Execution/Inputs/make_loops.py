#!/usr/bin/env python3
"""Writes ONNX Loops as tf2onnx exports Keras recurrent layers, with
onnxruntime's outputs as the reference: make_loops.py DIR ->
DIR/<case>/model.onnx, DIR/<case>/test_data_set_0/.
- counted_rnn: M = 5, cond = float(i) < 5 and counter < 5 (tf2onnx's
  while-loop condition), carried: an int32 counter, the state h (initial
  [?, ?] from Expand, the body's [?, 4]) and the weights; scan output: h.
- data_cond: the same body, but it stops when sum(h) exceeds a bound: the
  trip count depends on the data."""
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
