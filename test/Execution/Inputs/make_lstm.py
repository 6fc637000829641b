#!/usr/bin/env python3
"""Writes small ONNX recurrences (LSTM forward with initial state, reverse
with peepholes, bidirectional; GRU with the reset gate before and after the
product; RNN) with onnxruntime's outputs as the reference:
make_lstm.py DIR -> DIR/<case>/model.onnx, DIR/<case>/test_data_set_0/."""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

SEQ, BATCH, INPUT, HIDDEN = 3, 2, 5, 4


def write(folder, name, direction, peepholes, op="LSTM", seq=SEQ, **attrs):
    rng = np.random.default_rng(len(name))
    dirs = 2 if direction == "bidirectional" else 1
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    f32 = np.float32
    x = rng.standard_normal((seq, BATCH, INPUT)).astype(f32)
    h0 = rng.standard_normal((dirs, BATCH, HIDDEN)).astype(f32)
    c0 = rng.standard_normal((dirs, BATCH, HIDDEN)).astype(f32)
    inits = [numpy_helper.from_array((0.5 * rng.standard_normal(s)).astype(f32), n)
             for n, s in (("W", (dirs, gates * HIDDEN, INPUT)),
                          ("R", (dirs, gates * HIDDEN, HIDDEN)),
                          ("B", (dirs, 2 * gates * HIDDEN)), ("P", (dirs, 3 * HIDDEN)))]
    lstm = op == "LSTM"
    inputs = ["x", "W", "R", "B", "", "h0"] + (["c0"] if lstm else []) + \
        (["P"] if peepholes else [])
    outputs = ["Y", "Y_h", "Y_c"] if lstm else ["Y", "Y_h"]
    node = helper.make_node(op, inputs, outputs, name=op.lower(),
                            hidden_size=HIDDEN, direction=direction, **attrs)
    feeds_info = (("x", x), ("h0", h0), ("c0", c0)) if lstm else (("x", x), ("h0", h0))
    graph = helper.make_graph(
        [node], name, [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape))
                       for n, a in feeds_info],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        inits if peepholes else inits[:3])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    case = os.path.join(folder, name)
    data = os.path.join(case, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(case, "model.onnx"))
    feeds = dict(feeds_info)
    outs = ort.InferenceSession(os.path.join(case, "model.onnx"),
                                providers=["CPUExecutionProvider"]).run(None, feeds)
    for k, (n, a) in enumerate(feeds.items()):
        with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    for k, (n, a) in enumerate(zip(outputs, outs)):
        with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())


write(sys.argv[1], "forward", "forward", False)
write(sys.argv[1], "reverse_peepholes", "reverse", True)
write(sys.argv[1], "bidirectional", "bidirectional", True)
write(sys.argv[1], "gru", "forward", False, op="GRU")
write(sys.argv[1], "gru_linear_before_reset", "bidirectional", False, op="GRU",
      linear_before_reset=1)
write(sys.argv[1], "rnn", "reverse", False, op="RNN")
# 40 steps: the output's concat lowers as concats of 16, 16 and 8 steps,
# and the steps' loop nests are compiled once (dsmp-outline-loop-nests).
write(sys.argv[1], "gru_long", "bidirectional", False, op="GRU", seq=40,
      linear_before_reset=1)
