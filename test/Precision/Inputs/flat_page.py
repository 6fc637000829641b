#!/usr/bin/env python3
"""A small text-detection-like CNN (random weights) on a rendered "page":
a flat background with a few dark strokes, normalised as ImageNet's mean
and std. Stem Conv 3x3, then per block a per-channel affine (Mul, Add),
hardswish (x * Clip(x + 3, 0, 6) / 6) and a Conv 3x3 (every other one with
stride 2); a 1x1 Conv gives a 16x16 map of logits. Across the
background every layer's output holds one value per channel, so rounding
it errs the same way at thousands of places at once. Writes OUT/model.onnx
and OUT/test_data_set_0."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(11)
C, SIZE, BLOCKS = 16, 64, 4
nodes, inits = [], []


def const(name, a):
    inits.append(numpy_helper.from_array(np.asarray(a, np.float32), name))
    return name


def conv(name, x, cin, cout, k, stride):
    # Smoothing filters, as trained early layers are: each sums to about
    # 1.2, so a shift of a flat region moves the output the same way at
    # every pixel.
    fan = cin * k * k
    w = 0.5 * rng.standard_normal((cout, cin, k, k)) / np.sqrt(fan) + 1.2 / fan
    nodes.append(helper.make_node("Conv", [x, const(name + "_w", w), const(name + "_b", 0.1 * rng.standard_normal(cout))],
                                  [name], kernel_shape=[k, k], pads=[k // 2] * 4,
                                  strides=[stride, stride], name=name))
    return name


const("three", [3.0])
const("six", [6.0])
const("zero", [0.0])
x = conv("stem", "page", 3, C, 3, 1)
for b in range(BLOCKS):
    p = f"b{b}_"
    nodes += [
        helper.make_node("Mul", [x, const(p + "scale", 1 + 0.2 * rng.standard_normal((1, C, 1, 1)))],
                         [p + "scaled"], name=p + "scale"),
        helper.make_node("Add", [p + "scaled", const(p + "shift", 0.2 * rng.standard_normal((1, C, 1, 1)))],
                         [p + "affine"], name=p + "shift"),
        helper.make_node("Add", [p + "affine", "three"], [p + "plus3"], name=p + "plus3"),
        helper.make_node("Clip", [p + "plus3", "zero", "six"], [p + "clip"], name=p + "clip"),
        helper.make_node("Mul", [p + "affine", p + "clip"], [p + "gated"], name=p + "gate"),
        helper.make_node("Div", [p + "gated", "six"], [p + "act"], name=p + "hardswish"),
    ]
    x = conv(p + "conv", p + "act", C, C, 3, 2 if b % 2 else 1)
x = conv("head", x, C, 1, 1, 1)
graph = helper.make_graph(nodes, "flat_page",
                          [helper.make_tensor_value_info("page", TensorProto.FLOAT, [1, 3, SIZE, SIZE])],
                          [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 1, SIZE // 4, SIZE // 4])],
                          inits)
os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          os.path.join(out, "model.onnx"))
# 8-bit pixels: background 239, three strokes of ink 40 with a little noise.
pixels = np.full((SIZE, SIZE, 3), 239, np.float64)
for row in (12, 30, 48):
    pixels[row:row + 5, 8:56] = 40 + rng.integers(0, 20, (5, 48, 1))
mean, std = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])
page = ((pixels / 255 - mean) / std).transpose(2, 0, 1)[None].astype(np.float32)
onnx.save_tensor(numpy_helper.from_array(page, "page"),
                 os.path.join(out, "test_data_set_0", "input_0.pb"))
