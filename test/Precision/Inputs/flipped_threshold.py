#!/usr/bin/env python3
"""Writes OUT/model.onnx and two input sets (test_data_set_0/1) for a model
whose error the prediction does not place: `lift` adds 1000 to x (small
values), `above` compares the sum with 1000.1 and `select` takes 1 or 0
by it; `mix` adds a hundredth of the sum's detail (so that the sum has a
continuous use too) and six MatMul/Tanh layers follow.

In f16 (spacing 0.5 near 1000) the sum lands on 1000 or 1000.5, which
flips the comparison for x in (0.1, 0.25), 30 % of the elements, but no
gradient crosses a comparison: the adjoint sees only the small continuous
use and predicts ~4e-3. The MatMuls, whose predicted shares are the
largest, carry almost none of it."""
import os
import sys

import numpy as np
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tanh_stack import H, write  # noqa: E402


def scalar(name, value):
    return numpy_helper.from_array(np.array(value, np.float32), name)


write(sys.argv[1], "flipped_threshold",
      [helper.make_node("Add", ["x", "offset"], ["lifted"], name="lift"),
       helper.make_node("Greater", ["lifted", "threshold"], ["high"], name="above"),
       helper.make_node("Where", ["high", "one", "zero"], ["bits"], name="select"),
       helper.make_node("Sub", ["lifted", "offset"], ["detail"], name="detail"),
       helper.make_node("Mul", ["detail", "hundredth"], ["small"], name="scale"),
       helper.make_node("Add", ["bits", "small"], ["mixed"], name="mix")],
      [scalar("offset", 1000.0), scalar("threshold", 1000.1), scalar("one", 1.0),
       scalar("zero", 0.0), scalar("hundredth", 0.01)], "mixed",
      np.random.default_rng(5), lambda rng: rng.uniform(0, 0.5, (8, H)).astype(np.float32))
