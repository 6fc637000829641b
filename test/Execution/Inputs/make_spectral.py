#!/usr/bin/env python3
"""Writes models with ONNX's signal ops (DFT, STFT, the windows,
MelWeightMatrix) with onnxruntime's outputs as the reference, each checked
against numpy's FFT first: make_spectral.py DIR -> DIR/<case>/model.onnx and
DIR/<case>/test_data_set_0/.

  dft        real input, axis 1 (opset 17's attribute)
  inverse    complex input, axis 2, inverse
  lengths    onesided transforms cut (dft_length 16) and zero-padded (24)
  dft20      opset 20: the axis as an input
  stft       HannWindow(64) as the window, frame_step 32, onesided
  complex    a complex signal, frame_length 20 and no window, two-sided
  window_in  the window as a graph input (not a constant)
  melspec    BlackmanWindow, STFT, power, MelWeightMatrix, MatMul, Log:
             a log-mel front end, for the precision flow
  fnet       FNet's token mixing as torch's dynamo exporter writes it: two
             DFTs (hidden, then sequence), the real part, a residual Add,
             LayerNormalization
"""
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
