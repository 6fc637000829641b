#!/usr/bin/env python3
"""ONNX's node tests of the signal ops (DFT, STFT, the windows,
MelWeightMatrix) with their scalar inputs as initializers.

Those tests pass a window's size, STFT's frame_step and MelWeightMatrix's
arguments as graph inputs; dsmp builds its tables at import and needs them
as constants (--fix-input fixes integer inputs only after import). This
writes each test with the scalar inputs of test_data_set_0 folded into the
model, the other inputs and ONNX's stored outputs beside it:
signal_node_tests.py NODE_DIR OUT -> OUT/<test>/model.onnx and
OUT/<test>/test_data_set_0/, and prints each test's name.
"""
import glob
import os
import sys

import onnx
from onnx import numpy_helper

TESTS = """dft dft_axis dft_inverse stft stft_with_window hannwindow
hannwindow_symmetric hammingwindow hammingwindow_symmetric blackmanwindow
blackmanwindow_symmetric melweightmatrix""".split()

node_dir, out = sys.argv[1], sys.argv[2]
for test in TESTS:
    folder = os.path.join(node_dir, "test_" + test)
    model = onnx.load(os.path.join(folder, "model.onnx"))
    data = os.path.join(folder, "test_data_set_0")
    inputs = [onnx.load_tensor(p) for p in sorted(glob.glob(os.path.join(data, "input_*.pb")))]
    kept = []
    for info, tensor in zip(list(model.graph.input), inputs):
        if len(tensor.dims) == 0:
            tensor.name = info.name
            model.graph.initializer.append(tensor)
            model.graph.input.remove(info)
        else:
            kept.append(tensor)
    target = os.path.join(out, test, "test_data_set_0")
    os.makedirs(target, exist_ok=True)
    onnx.save(model, os.path.join(out, test, "model.onnx"))
    for k, tensor in enumerate(kept):
        onnx.save_tensor(tensor, os.path.join(target, f"input_{k}.pb"))
    for k, path in enumerate(sorted(glob.glob(os.path.join(data, "output_*.pb")))):
        onnx.save_tensor(onnx.load_tensor(path), os.path.join(target, f"output_{k}.pb"))
    print(test)
