#!/usr/bin/env python3
"""A padded 3x3 AveragePool on f16 values, with and without
count_include_pad, as an f16 ONNX model (`write DIR`), and the check of a
run's outputs against numpy (`check OUT_DIR IN_DIR`): the windows' means in
float64 from the same f16 inputs. The error allowed is one f16 rounding of
the result plus three of the window's mean magnitude (an f16 sum of nine
values rounds its partial sums: a mean that cancels to near zero is not
within ulps of itself)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

H = TensorProto.FLOAT16


def reference(x, include_pad):
    n, c, h, w = x.shape
    p = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    ones = np.pad(np.ones((h, w)), 1)
    y = np.zeros((n, c, h, w))
    for i in range(h):
        for j in range(w):
            total = p[:, :, i:i + 3, j:j + 3].sum(axis=(2, 3))
            y[:, :, i, j] = total / (9 if include_pad else ones[i:i + 3, j:j + 3].sum())
    return y


if sys.argv[1] == "write":
    out = sys.argv[2]
    os.makedirs(os.path.join(out, "in"), exist_ok=True)
    pools = [helper.make_node("AveragePool", ["x"], [name], kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1], count_include_pad=flag, name=name)
             for name, flag in (("excluding", 0), ("including", 1))]
    graph = helper.make_graph(pools, "avg", [helper.make_tensor_value_info("x", H, [2, 3, 7, 7])],
                              [helper.make_tensor_value_info(n, H, [2, 3, 7, 7])
                               for n in ("excluding", "including")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(out, "model.onnx"))
    x = np.random.default_rng(3).standard_normal((2, 3, 7, 7)).astype(np.float16)
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(out, "in", "input_0.pb"))
else:
    got_dir, in_dir = sys.argv[2], sys.argv[3]
    x = numpy_helper.to_array(onnx.load_tensor(os.path.join(in_dir, "input_0.pb")))
    outputs = {}
    for f in os.listdir(got_dir):
        t = onnx.load_tensor(os.path.join(got_dir, f))
        outputs[t.name] = numpy_helper.to_array(t)
    for name, include in (("excluding", False), ("including", True)):
        got, want = outputs[name], reference(x, include)
        scale = reference(np.abs(x), include)
        allowed = 2.0 ** -11 * (np.abs(want) + 3 * scale)
        worst = float((np.abs(got.astype(np.float64) - want) / allowed).max())
        corner = float(got[0, 0, 0, 0]) / float(want[0, 0, 0, 0])
        print(f"{name}: {got.dtype} worst {worst:.2f} of the allowed error, "
              f"corner/reference {corner:.3f}",
              "ok" if got.dtype == np.float16 and worst <= 1 else "MISMATCH")
