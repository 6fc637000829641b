#!/usr/bin/env python3
"""Writes GroupNormalization models with onnxruntime's outputs as the
reference: make_group_norm.py DIR -> DIR/<case>/model.onnx and
DIR/<case>/test_data_set_0/.

  gn18    opset 18: scale and bias per group ([num_groups])
  gn21    opset 21: scale and bias per channel ([C])
  unet    a diffusion UNet's block at opset 21: Conv, GroupNorm (8 groups of
          4 channels), SiLU (Sigmoid, Mul), Conv, residual Add
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from ort_case import write_case

out = sys.argv[1]
rng = np.random.default_rng(5)


def tensor(name, *shape, scale=1.0):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def write(name, nodes, x_shape, inits, opset):
    x = (rng.standard_normal(x_shape) * 2 + 0.5).astype(np.float32)
    y = write_case(out, name, nodes, {"x": x}, [("y", TensorProto.FLOAT)], inits, opset)[0]
    print(name, "x".join(map(str, y.shape)))


write("gn18", [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"],
                                num_groups=3, epsilon=1e-5, name="gn")],
      [2, 6, 5, 5], [tensor("s", 3), tensor("b", 3)], 18)
write("gn21", [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"],
                                num_groups=2, epsilon=1e-3, name="gn")],
      [2, 6, 7], [tensor("s", 6), tensor("b", 6)], 21)
write("unet",
      [helper.make_node("Conv", ["x", "w1", "b1"], ["h"], pads=[1, 1, 1, 1], name="conv1"),
       helper.make_node("GroupNormalization", ["h", "s", "b"], ["n"], num_groups=8, name="norm"),
       helper.make_node("Sigmoid", ["n"], ["g"], name="sigmoid"),
       helper.make_node("Mul", ["n", "g"], ["a"], name="silu"),
       helper.make_node("Conv", ["a", "w2", "b2"], ["c"], pads=[1, 1, 1, 1], name="conv2"),
       helper.make_node("Add", ["x", "c"], ["y"], name="residual")],
      [1, 32, 12, 12],
      [tensor("w1", 32, 32, 3, 3, scale=0.06), tensor("b1", 32, scale=0.1),
       tensor("s", 32), tensor("b", 32), tensor("w2", 32, 32, 3, 3, scale=0.06),
       tensor("b2", 32, scale=0.1)], 21)
