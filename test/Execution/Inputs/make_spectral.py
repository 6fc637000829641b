#!/usr/bin/env python3
"""Writes models with ONNX's signal ops (DFT, STFT, the windows,
MelWeightMatrix) with onnxruntime's outputs as the reference, each checked
against numpy's FFT first: make_spectral.py DIR -> DIR/<case>/model.onnx and
DIR/<case>/test_data_set_0/.

  dft        real input, axis 1 (opset 17's attribute)
  inverse    complex input, axis 2, inverse
  lengths    onesided transforms cut (dft_length 16) and zero-padded (24)
  dft20      opset 20: the axis as an input
  irfft      inverse and onesided (torch.fft.irfft through dynamo): five
             bins back to 6 and 10 real samples (dft_length: bins cut and
             zero-padded), and to 2 * (5 - 1) (no dft_length)
  stft       HannWindow(64) as the window, frame_step 32, onesided
  complex    a complex signal, frame_length 20 and no window, two-sided
  window_in  the window as a graph input (not a constant)
  melspec    BlackmanWindow, STFT, power, MelWeightMatrix, MatMul, Log:
             a log-mel front end, for the precision flow
  fnet       FNet's token mixing as torch's dynamo exporter writes it: two
             DFTs (hidden, then sequence), the real part, a residual Add,
             LayerNormalization
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from ort_case import write_case

out = sys.argv[1]
rng = np.random.default_rng(17)
F = TensorProto.FLOAT


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def complex_of(y):
    return y[..., 0] + 1j * y[..., 1]


def check(name, got, want, tol=1e-4):
    err = np.max(np.abs(got - want)) / max(1.0, np.max(np.abs(want)))
    assert err < tol, f"{name}: onnxruntime differs from numpy by {err}"


def show(name, y):
    print(name, "x".join(map(str, y.shape)))


x = rng.standard_normal((2, 16, 8, 1)).astype(np.float32)
y = write_case(out, "dft", [helper.make_node("DFT", ["x"], ["y"], axis=1, name="fft")],
               {"x": x}, [("y", F)])[0]
check("dft", complex_of(y), np.fft.fft(x[..., 0], axis=1))
show("dft", y)

x = rng.standard_normal((2, 8, 12, 2)).astype(np.float32)
y = write_case(out, "inverse",
               [helper.make_node("DFT", ["x"], ["y"], axis=2, inverse=1, name="ifft")],
               {"x": x}, [("y", F)])[0]
check("inverse", complex_of(y), np.fft.ifft(complex_of(x), axis=2))
show("inverse", y)

x = rng.standard_normal((3, 20, 1)).astype(np.float32)
y16, y24 = write_case(
    out, "lengths",
    [helper.make_node("DFT", ["x", "n16"], ["y16"], axis=1, onesided=1, name="cut"),
     helper.make_node("DFT", ["x", "n24"], ["y24"], axis=1, onesided=1, name="padded")],
    {"x": x}, [("y16", F), ("y24", F)], [ints("n16", 16), ints("n24", 24)])
check("cut", complex_of(y16), np.fft.rfft(x[:, :16, 0], axis=1))
check("padded", complex_of(y24), np.fft.rfft(x[..., 0], n=24, axis=1))
show("lengths", y16)
show("lengths", y24)

x = rng.standard_normal((2, 6, 10, 1)).astype(np.float32)
y = write_case(out, "dft20", [helper.make_node("DFT", ["x", "", "axis"], ["y"], name="fft")],
               {"x": x}, [("y", F)], [ints("axis", -3)], opset=20)[0]
check("dft20", complex_of(y), np.fft.fft(x[..., 0], axis=1))
show("dft20", y)


x = rng.standard_normal((2, 5, 6, 2)).astype(np.float32)
ys = write_case(
    out, "irfft",
    [helper.make_node("DFT", ["x", "n6"], ["y6"], axis=1, inverse=1, onesided=1, name="cut"),
     helper.make_node("DFT", ["x", "n10"], ["y10"], axis=1, inverse=1, onesided=1, name="padded"),
     helper.make_node("DFT", ["x"], ["y8"], axis=1, inverse=1, onesided=1, name="default")],
    {"x": x}, [("y6", F), ("y10", F), ("y8", F)], [ints("n6", 6), ints("n10", 10)])
# onnxruntime 1.32's irfft misses numpy's (ONNX's reference) at odd
# lengths and where dft_length pads the bins (0.19 here): the padded case's
# reference is numpy's.
for k, (y, n) in enumerate(zip(ys, (6, 10, 8))):
    want = np.fft.irfft(complex_of(x), n=n, axis=1)[..., np.newaxis].astype(np.float32)
    if n == 10:
        y = want
        with open(os.path.join(out, "irfft", "test_data_set_0", f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(want, "y10").SerializeToString())
    check(f"irfft {n}", y, want)
    show("irfft", y)


def frames(signal, step, length):
    count = (signal.shape[1] - length) // step + 1
    return np.stack([signal[:, i * step:i * step + length] for i in range(count)], 1)


def hann(n):
    return 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)


signal = rng.standard_normal((2, 256, 1)).astype(np.float32)
y = write_case(out, "stft",
               [helper.make_node("HannWindow", ["size"], ["w"], name="hann"),
                helper.make_node("STFT", ["x", "step", "w"], ["y"], name="stft")],
               {"x": signal}, [("y", F)], [ints("size", 64), ints("step", 32)])[0]
check("stft", complex_of(y), np.fft.rfft(frames(signal[..., 0], 32, 64) * hann(64), axis=-1))
show("stft", y)

signal = rng.standard_normal((1, 100, 2)).astype(np.float32)
y = write_case(out, "complex",
               [helper.make_node("STFT", ["x", "step", "", "length"], ["y"], onesided=0,
                                 name="stft")],
               {"x": signal}, [("y", F)], [ints("step", 10), ints("length", 20)])[0]
check("complex", complex_of(y), np.fft.fft(frames(complex_of(signal), 10, 20), axis=-1))
show("complex", y)

signal = rng.standard_normal((1, 128, 1)).astype(np.float32)
window = (0.54 - 0.46 * np.cos(2 * np.pi * np.arange(16) / 15)).astype(np.float32)
y = write_case(out, "window_in", [helper.make_node("STFT", ["x", "step", "w"], ["y"], name="stft")],
               {"x": signal, "w": window}, [("y", F)], [ints("step", 8)])[0]
check("window_in", complex_of(y), np.fft.rfft(frames(signal[..., 0], 8, 16) * window, axis=-1))
show("window_in", y)

# A log-mel front end: |STFT|^2 summed over the parts, MelWeightMatrix,
# log(mel + 1e-6).
signal = (rng.standard_normal((2, 400, 1)) * 0.3).astype(np.float32)
nodes = [helper.make_node("BlackmanWindow", ["size"], ["w"], name="window"),
         helper.make_node("STFT", ["x", "step", "w"], ["spec"], name="stft"),
         helper.make_node("Mul", ["spec", "spec"], ["sq"], name="square"),
         helper.make_node("ReduceSum", ["sq", "last"], ["power"], keepdims=0, name="power"),
         helper.make_node("MelWeightMatrix", ["bins", "size", "rate", "low", "high"], ["fb"],
                          name="filters"),
         helper.make_node("MatMul", ["power", "fb"], ["mel"], name="mel"),
         helper.make_node("Add", ["mel", "eps"], ["mel_eps"], name="floor"),
         helper.make_node("Log", ["mel_eps"], ["y"], name="log")]
inits = [ints("size", 64), ints("step", 16), ints("last", [-1]), ints("bins", 12),
         ints("rate", 16000),
         numpy_helper.from_array(np.array(60.0, np.float32), "low"),
         numpy_helper.from_array(np.array(7600.0, np.float32), "high"),
         numpy_helper.from_array(np.array(1e-6, np.float32), "eps")]
y = write_case(out, "melspec", nodes, {"x": signal}, [("y", F)], inits)[0]
show("melspec", y)

# FNet's mixing: Re(FFT2(x)) over (sequence, hidden), then x + it, LayerNorm.
x = rng.standard_normal((2, 12, 32)).astype(np.float32)
nodes = [helper.make_node("Unsqueeze", ["x", "last"], ["x1"], name="real"),
         helper.make_node("DFT", ["x1"], ["h"], axis=2, name="fft_hidden"),
         helper.make_node("DFT", ["h"], ["s"], axis=1, name="fft_sequence"),
         helper.make_node("Gather", ["s", "zero"], ["re"], axis=3, name="real_part"),
         helper.make_node("Add", ["x", "re"], ["mixed"], name="residual"),
         helper.make_node("LayerNormalization", ["mixed", "gamma", "beta"], ["y"], axis=-1,
                          name="norm")]
inits = [ints("last", [-1]), ints("zero", 0),
         numpy_helper.from_array(np.ones(32, np.float32), "gamma"),
         numpy_helper.from_array(np.zeros(32, np.float32), "beta")]
y = write_case(out, "fnet", nodes, {"x": x}, [("y", F)], inits)[0]
mixed = x + np.fft.fft2(x, axes=(1, 2)).real
want = (mixed - mixed.mean(-1, keepdims=True)) / np.sqrt(mixed.var(-1, keepdims=True) + 1e-5)
check("fnet", y, want, 1e-3)
show("fnet", y)

# The same mixing with a run-time batch and sequence: its DFT over the
# sequence multiplies by dsmp.dft_table; two sets of other shapes.
import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402

model = onnx.load(os.path.join(out, "fnet", "model.onnx"))
for value in (model.graph.input[0], model.graph.output[0]):
    dims = value.type.tensor_type.shape.dim
    if not dims:
        value.type.tensor_type.shape.dim.add()
        value.type.tensor_type.shape.dim.add()
        value.type.tensor_type.shape.dim.add()
        dims[2].dim_value = 32
    dims[0].dim_param, dims[1].dim_param = "batch", "seq"
os.makedirs(os.path.join(out, "fnet_dyn"), exist_ok=True)
onnx.save(model, os.path.join(out, "fnet_dyn", "model.onnx"))
session = ort.InferenceSession(os.path.join(out, "fnet_dyn", "model.onnx"),
                               providers=["CPUExecutionProvider"])
for k, shape in enumerate([(2, 12, 32), (1, 7, 32)]):
    x = rng.standard_normal(shape).astype(np.float32)
    y = session.run(None, {"x": x})[0]
    data = os.path.join(out, "fnet_dyn", f"test_data_set_{k}")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "y").SerializeToString())
    show("fnet_dyn", y)
