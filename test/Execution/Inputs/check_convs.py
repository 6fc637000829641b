#!/usr/bin/env python3
"""Conv and ConvTranspose geometries through the evaluator (dsmp-run --engine=evaluate)
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
import zlib

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

# name: (x shape, w shape, attributes; op ConvTranspose for the t_ ones,
# whose weights are [C_in, C_out / group, k..])
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
    "depthwise_weight_gradient": ((1, 8, 20, 21), (8, 1, 18, 19), {"group": 8, "pads": [1, 1, 1, 1]}),
    "depthwise_weight_gradient_dilated": ((1, 6, 21, 22), (6, 1, 10, 11),
                                          {"group": 6, "dilations": [2, 2], "pads": [1, 0, 1, 1]}),
    "depthwise_3d_gradient": ((1, 4, 6, 9, 10), (4, 1, 4, 7, 8), {"group": 4, "pads": [1, 1, 1, 1, 1, 1]}),
    "t_plain": ((2, 8, 7, 9), (8, 16, 3, 3), {}),
    "t_input_gradient": ((1, 16, 10, 10), (16, 8, 3, 3), {"pads": [1, 1, 1, 1], "bias": True}),
    "t_strides": ((2, 8, 5, 6), (8, 6, 3, 3), {"strides": [2, 2], "pads": [1, 1, 1, 1]}),
    "t_output_padding": ((1, 8, 5, 5), (8, 4, 3, 3), {"strides": [2, 2], "pads": [1, 0, 1, 0],
                                                      "output_padding": [1, 1]}),
    "t_output_padding_past_pads": ((1, 8, 5, 5), (8, 4, 3, 3), {"strides": [2, 2],
                                                                "output_padding": [1, 1]}),
    "t_dilation": ((1, 8, 6, 7), (8, 4, 3, 2), {"dilations": [2, 3], "pads": [1, 2, 0, 1]}),
    "t_groups": ((2, 12, 6, 6), (12, 4, 3, 3), {"group": 3, "strides": [2, 1], "pads": [1, 1, 1, 1]}),
    "t_output_shape": ((1, 8, 5, 5), (8, 4, 3, 3), {"strides": [2, 2], "output_shape": [10, 10]}),
    "t_same_upper": ((1, 8, 5, 6), (8, 4, 3, 3), {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    "t_conv1d": ((3, 6, 20), (6, 5, 4), {"strides": [2], "pads": [1, 2]}),
    "t_conv1d_groups": ((2, 8, 11), (8, 3, 3), {"group": 2, "pads": [1, 1]}),
    "t_conv3d": ((1, 4, 3, 4, 5), (4, 6, 3, 2, 3), {"pads": [1, 0, 1, 1, 1, 0]}),
}


def build(name, xs, ws, attrs, path):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    w = rng.standard_normal(ws).astype(np.float32)
    inputs = ["x", "w"]
    inits = [numpy_helper.from_array(w, "w")]
    attrs = dict(attrs)
    if attrs.pop("bias", False):
        maps = ws[0] if not name.startswith("t_") else ws[1] * attrs.get("group", 1)
        inits.append(numpy_helper.from_array(rng.standard_normal(maps).astype(np.float32), "b"))
        inputs.append("b")
    op = "ConvTranspose" if name.startswith("t_") else "Conv"
    node = helper.make_node(op, inputs, ["y"], **attrs)
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
