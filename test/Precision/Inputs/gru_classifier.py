#!/usr/bin/env python3
"""Writes OUT/model.onnx, a GRU text classifier on embeddings: Gather from
a 200x16 table, a bidirectional GRU (hidden 24) over a dynamic sequence and
batch, a Gemm on the last hidden states. OUT/test_data_set_0 (sequence 6,
batch 2) and OUT/test_data_set_1 (sequence 9, batch 1) differ in shape, so
the flow cannot unroll the GRU at one shape: it is measured as one op.
Each set holds onnxruntime's FP32 logits as output_0.pb."""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(5)
emb, hidden, classes, vocab = 16, 24, 5, 200


def const(name, *shape, scale=0.3):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


inits = [const("table", vocab, emb, scale=1.0),
         const("w", 2, 3 * hidden, emb), const("r", 2, 3 * hidden, hidden),
         const("b", 2, 6 * hidden, scale=0.1),
         const("fc_w", 2 * hidden, classes), const("fc_b", classes, scale=0.1),
         numpy_helper.from_array(np.array([0, -1], np.int64), "flat")]
nodes = [helper.make_node("Gather", ["table", "ids"], ["x"], name="embed"),
         helper.make_node("GRU", ["x", "w", "r", "b"], ["y", "y_h"], name="gru",
                          hidden_size=hidden, direction="bidirectional",
                          linear_before_reset=1),
         helper.make_node("Transpose", ["y_h"], ["h"], name="batch_first", perm=[1, 0, 2]),
         helper.make_node("Reshape", ["h", "flat"], ["hf"], name="flatten"),
         helper.make_node("Gemm", ["hf", "fc_w", "fc_b"], ["logits"], name="fc")]
graph = helper.make_graph(
    nodes, "gru_classifier",
    [helper.make_tensor_value_info("ids", TensorProto.INT64, ["seq", "batch"])],
    [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", classes])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
onnx.checker.check_model(model)
os.makedirs(out, exist_ok=True)
onnx.save(model, os.path.join(out, "model.onnx"))
session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
for index, (seq, batch) in enumerate([(6, 2), (9, 1)]):
    folder = os.path.join(out, f"test_data_set_{index}")
    os.makedirs(folder, exist_ok=True)
    ids = rng.integers(0, vocab, (seq, batch)).astype(np.int64)
    with open(os.path.join(folder, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(ids, "ids").SerializeToString())
    (logits,) = session.run(None, {"ids": ids})
    with open(os.path.join(folder, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(logits, "logits").SerializeToString())
