#!/usr/bin/env python3
"""Writes Col2Im models (opset 18; torch's F.fold) with onnxruntime's
outputs as the reference: make_col2im.py DIR -> DIR/<case>/model.onnx and
DIR/<case>/test_data_set_0/.

  fold     MobileViT's fold: 2x2 blocks, stride 2, no overlap
  overlap  3x3 blocks, pads 1, strides (2, 1): overlapping sums, and an
           image row the stride leaves over (H = 8)
  dilated  2x2 blocks, dilations (2, 3), strides (1, 2)
  line     1-D: blocks of 3, stride 2, pads (1, 2)
  vit      tokens -> MatMul -> Transpose -> Col2Im -> Conv: a patch
           decoder, for the precision flow
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from ort_case import write_case

out = sys.argv[1]
rng = np.random.default_rng(11)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def col2im(name, x_shape, image, block, **attrs):
    x = rng.standard_normal(x_shape).astype(np.float32)
    node = helper.make_node("Col2Im", ["x", "image", "block"], ["y"], name="fold", **attrs)
    y = write_case(out, name, [node], {"x": x}, [("y", TensorProto.FLOAT)],
                   [ints("image", image), ints("block", block)], 18)[0]
    print(name, "x".join(map(str, y.shape)))


col2im("fold", [2, 3 * 4, 16], [8, 8], [2, 2], strides=[2, 2])
col2im("overlap", [1, 2 * 9, 4 * 6], [8, 6], [3, 3], pads=[1, 1, 1, 1], strides=[2, 1])
col2im("dilated", [2, 2 * 4, 7 * 3], [9, 9], [2, 2], dilations=[2, 3], strides=[1, 2])
col2im("line", [1, 4 * 3, 7], [13], [3], pads=[1, 2], strides=[2])

tokens = rng.standard_normal((1, 16, 32)).astype(np.float32)
nodes = [helper.make_node("MatMul", ["x", "w"], ["t"], name="project"),
         helper.make_node("Transpose", ["t"], ["c"], perm=[0, 2, 1], name="columns"),
         helper.make_node("Col2Im", ["c", "image", "block"], ["f"], strides=[2, 2], name="fold"),
         helper.make_node("Conv", ["f", "k", "b"], ["y"], pads=[1, 1, 1, 1], name="conv")]
inits = [numpy_helper.from_array((rng.standard_normal((32, 48)) * 0.2).astype(np.float32), "w"),
         ints("image", [8, 8]), ints("block", [2, 2]),
         numpy_helper.from_array((rng.standard_normal((4, 12, 3, 3)) * 0.1).astype(np.float32), "k"),
         numpy_helper.from_array((rng.standard_normal(4) * 0.1).astype(np.float32), "b")]
y = write_case(out, "vit", nodes, {"x": tokens}, [("y", TensorProto.FLOAT)], inits, 18)[0]
print("vit", "x".join(map(str, y.shape)))
