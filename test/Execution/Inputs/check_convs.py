#!/usr/bin/env python3
"""Conv geometries through the evaluator (dsmp-run --engine=evaluate)
against onnxruntime: groups, strides, dilations, asymmetric and SAME
padding, end padding the last window never reaches and input columns it
never reads (oneDNN's primitive takes the first, the evaluator's own im2col
the second), 1D/2D/3D, batches, and the weight-gradient form (a kernel as
large as the input). Each prints
dsmp-run's comparison line (normwise relative error <= 1e-5).

usage: check_convs.py BIN_DIR WORK_DIR
"""
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

# name: (x shape, w shape, Conv attributes)
CASES = {
    "plain_3x3": ((2, 8, 9, 11), (16, 8, 3, 3), {}),
    "bias_pads": ((1, 8, 10, 10), (8, 8, 3, 3), {"pads": [1, 1, 1, 1], "bias": True}),
    "asymmetric_pads": ((1, 6, 9, 8), (12, 6, 3, 2), {"pads": [0, 2, 1, 0]}),
    "strides_unread_end": ((2, 5, 12, 13), (8, 5, 3, 3), {"strides": [2, 3], "pads": [1, 1, 2, 2]}),
    "strides_end_unread": ((1, 8, 12, 12), (8, 8, 3, 3), {"strides": [2, 2]}),
    "dilation": ((1, 4, 15, 14), (8, 4, 3, 3), {"dilations": [2, 3], "pads": [2, 1, 2, 1]}),
    "groups": ((2, 12, 9, 9), (16, 3, 3, 3), {"group": 4, "pads": [1, 1, 1, 1]}),
    "same_upper": ((1, 8, 7, 10), (8, 8, 4, 3), {"auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    "conv1d": ((3, 6, 40), (10, 6, 5), {"pads": [2, 1], "strides": [2]}),
    "conv3d": ((1, 4, 5, 6, 7), (6, 4, 3, 2, 3), {"pads": [1, 0, 1, 1, 1, 0]}),
    "one_channel": ((16, 1, 20, 12), (24, 1, 3, 3), {}),
    "weight_gradient_form": ((8, 4, 12, 12), (6, 4, 12, 12), {"pads": [1, 1, 1, 1]}),
}


def build(name, xs, ws, attrs, path):
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    w = rng.standard_normal(ws).astype(np.float32)
    inputs = ["x", "w"]
    inits = [numpy_helper.from_array(w, "w")]
    attrs = dict(attrs)
    if attrs.pop("bias", False):
        inits.append(numpy_helper.from_array(rng.standard_normal(ws[0]).astype(np.float32), "b"))
        inputs.append("b")
    node = helper.make_node("Conv", inputs, ["y"], **attrs)
    graph = helper.make_graph([node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, xs)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)
    return rng.standard_normal(xs).astype(np.float32)


def main():
    bin_dir, work = sys.argv[1:3]
    for name, (xs, ws, attrs) in CASES.items():
        model = os.path.join(work, name + ".onnx")
        x = build(name, xs, ws, attrs, model)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        (y,) = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"]).run(None, {"x": x})
        data = os.path.join(work, name)
        os.makedirs(data, exist_ok=True)
        for file, array, tensor in (("input_0.pb", x, "x"), ("output_0.pb", y, "y")):
            with open(os.path.join(data, file), "wb") as f:
                f.write(numpy_helper.from_array(array, tensor).SerializeToString())
        run = subprocess.run([os.path.join(bin_dir, "dsmp-run"), model, "--inputs", data,
                              "--compare", "--rtol", "1e-5", "--engine=evaluate"],
                             capture_output=True, text=True)
        lines = [l for l in run.stdout.splitlines() if l.startswith("y:")]
        print(f"{name}: rc {run.returncode} {lines[0] if lines else run.stderr.strip()[-200:]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
