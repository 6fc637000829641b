#!/usr/bin/env python3
"""Lay out an ONNX model someone else made in ONNX's backend-test layout,
with synthetic inputs and onnxruntime's outputs, so that
test/Precision/shared_models.py can calibrate on one set and measure on the
other.

    scripts/make-test-sets.py MODEL.onnx OUT KIND

Writes OUT/model.onnx and OUT/test_data_set_0 and _1 (input_*.pb and
output_*.pb, onnxruntime on the CPU). KIND says what the inputs are:

  audioN          a voice-activity model (silero VAD's inputs by name):
                  `input` N samples of a modulated tone plus noise, `sr`
                  16000, recurrent state inputs zero in set 0 and random in
                  set 1; batch 1 in set 0 and 3 in set 1 where the batch is
                  dynamic
  imageHxWxH2xW2  an image in 0..255 (smooth patterns plus noise): HxW in
                  set 0, H2xW2 in set 1 (dynamic dims only)
"""
import os
import shutil
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

STATE_INPUTS = ("state", "h", "c", "h0", "c0")


def audio(gen, batch, samples):
    t = np.arange(samples) / 16000.0
    x = np.zeros((batch, samples))
    for k in range(batch):
        f = gen.uniform(100, 400)
        x[k] = (0.3 * np.sin(2 * np.pi * f * t) * (1 + 0.5 * np.sin(2 * np.pi * 3 * t))
                + 0.05 * gen.standard_normal(samples))
    return x.astype(np.float32)


def image(gen, shape):
    yy, xx = np.meshgrid(np.linspace(0, 1, shape[2]), np.linspace(0, 1, shape[3]),
                         indexing="ij")
    img = np.stack([np.sin(6 * xx + c) * np.cos(4 * yy - c) for c in range(shape[1])])
    img = 127 + 100 * img + 20 * gen.standard_normal(img.shape)
    return np.clip(img, 0, 255)[None].repeat(shape[0], 0)


def feeds(inputs, kind, which):
    gen = np.random.default_rng(100 + which)
    first = [d.dim_value for d in inputs[0].type.tensor_type.shape.dim]
    batch = 1 if (first and first[0] == 1) or which == 0 else 3
    out = {}
    for i in inputs:
        t = i.type.tensor_type
        dims = [d.dim_value if d.dim_value else None for d in t.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        if kind.startswith("audio"):
            if i.name == "input":
                out[i.name] = audio(gen, batch, int(kind[5:] or 512))
            elif i.name == "sr":
                out[i.name] = np.array(16000, dtype=np.int64)
            elif i.name in STATE_INPUTS:
                shape = [2, batch, dims[2]]
                out[i.name] = (0.1 * gen.standard_normal(shape) if which
                               else np.zeros(shape)).astype(dtype)
            else:
                sys.exit(f"make-test-sets: no rule for input '{i.name}' of an audio model")
        elif kind.startswith("image"):
            sizes = [int(v) for v in kind[5:].split("x")]
            h, w = sizes[2 * which: 2 * which + 2]
            shape = [d if d else (batch if k == 0 else h if k == 2 else w)
                     for k, d in enumerate(dims)]
            out[i.name] = image(gen, shape).astype(dtype)
        else:
            sys.exit(f"make-test-sets: unknown KIND '{kind}'")
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    path, out, kind = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    shutil.copy(path, os.path.join(out, "model.onnx"))
    model = onnx.load(path)
    initializers = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in initializers]
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for which in (0, 1):
        folder = os.path.join(out, f"test_data_set_{which}")
        os.makedirs(folder, exist_ok=True)
        values = feeds(inputs, kind, which)
        for k, i in enumerate(inputs):
            onnx.save_tensor(numpy_helper.from_array(values[i.name], i.name),
                             os.path.join(folder, f"input_{k}.pb"))
        for k, (o, r) in enumerate(zip(session.get_outputs(), session.run(None, values))):
            onnx.save_tensor(numpy_helper.from_array(np.asarray(r), o.name),
                             os.path.join(folder, f"output_{k}.pb"))


if __name__ == "__main__":
    main()
