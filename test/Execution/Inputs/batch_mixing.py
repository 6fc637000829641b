#!/usr/bin/env python3
"""Writes OUT/<case>/model.onnx: models with a dynamic batch that do not
compute each sample alone, one way each.

  softmax_over_batch: Softmax on axis 0 (each output depends on all rows)
  batch_as_value:     x / batch size (Shape, Gather, Cast: the batch size as
                      a number)
  interleave:         Reshape [batch, 4] -> [4, batch] (samples end up
                      spread across the rows)"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]


def save(name, nodes, inits, out_shape):
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], inits)
    os.makedirs(os.path.join(out, name), exist_ok=True)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(out, name, "model.onnx"))


save("softmax_over_batch", [helper.make_node("Softmax", ["x"], ["y"], axis=0, name="softmax")],
     [], ["batch", 4])
save("batch_as_value",
     [helper.make_node("Shape", ["x"], ["s"], name="shape"),
      helper.make_node("Gather", ["s", "zero"], ["n"], axis=0, name="batch_size"),
      helper.make_node("Cast", ["n"], ["nf"], to=TensorProto.FLOAT, name="as_float"),
      helper.make_node("Div", ["x", "nf"], ["y"], name="mean_share")],
     [numpy_helper.from_array(np.array(0, np.int64), "zero")], ["batch", 4])
save("interleave",
     [helper.make_node("Reshape", ["x", "shape"], ["y"], name="to_columns")],
     [numpy_helper.from_array(np.array([4, -1], np.int64), "shape")], [4, "batch"])
