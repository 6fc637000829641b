#!/usr/bin/env python3
"""Writes OUT/model.onnx and two input sets (test_data_set_0/1) for a model
whose error is in the rounding of a graph input: x holds values near 1000
with unit detail, `centre` subtracts 1000, and six MatMul/Tanh layers
follow.

In f16 (spacing 0.5 near 1000) rounding x before the Sub loses a quarter of
the detail (about 20 % relative error after it). That rounding is no op's
output rounding: the Sub's operand_energy (the adjoint keeps the gradient
of a graph input a compute op reads) predicts it."""
import os
import sys

import numpy as np
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tanh_stack import H, write  # noqa: E402

write(sys.argv[1], "offset_input",
      [helper.make_node("Sub", ["x", "offset"], ["d"], name="centre")],
      [numpy_helper.from_array(np.array(1000.0, np.float32), "offset")], "d",
      np.random.default_rng(5),
      lambda rng: (1000 + rng.normal(0, 1, (8, H))).astype(np.float32))
