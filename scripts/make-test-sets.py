#!/usr/bin/env python3
"""Lay out an ONNX model someone else made in ONNX's backend-test layout,
with synthetic inputs and onnxruntime's outputs, so that
test/Precision/shared_models.py can calibrate on one set and measure on the
other.

    scripts/make-test-sets.py MODEL.onnx OUT KIND [--norm NORM]

Writes OUT/model.onnx and OUT/test_data_set_0 and _1 (input_*.pb and
output_*.pb, onnxruntime on the CPU). KIND says what the inputs are:

  audioN          a voice-activity model (silero VAD's inputs by name):
                  `input` N samples of a modulated tone plus noise, `sr`
                  16000, recurrent state inputs zero in set 0 and random in
                  set 1; batch 1 in set 0 and 3 in set 1 where the batch is
                  dynamic
  imageHxWxH2xW2  an image (smooth patterns plus noise): HxW in set 0,
                  H2xW2 in set 1 (dynamic dims only)
  textHxWxH2xW2   the same sizes, dark lines of rendered text on a light
                  page (for OCR models: detection, recognition, direction)

Pixels are 0..255 and an image input with one channel gets grey levels.
An input whose last dim is 1 or 3 and second is not is taken as NHWC
(TensorFlow Lite's layout) and gets the same pixels transposed.
NORM is the model's own preprocessing, applied to the pixels:

  raw       0..255 as they are (YOLOX-style detectors; the default)
  unit      x / 255 (YOLOv5/v8-style)
  half      (x / 255 - 0.5) / 0.5 (PaddleOCR recognition and direction)
  imagenet  (x / 255 - mean) / std with ImageNet's mean and std
"""
import argparse
import os
import shutil
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

STATE_INPUTS = ("state", "h", "c", "h0", "c0")
IMAGENET_MEAN = np.array([0.485, 0.456, 0.406])
IMAGENET_STD = np.array([0.229, 0.224, 0.225])
WORDS = ("mixed precision compiler 2024 ONNX model Hello World 3.14 tensor "
         "rounding budget float16 bfloat16 scale 42 graph Zebra quick brown").split()
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


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


def text(gen, shape):
    """Lines of words, one line per 48 rows or fewer, in a font sized to
    the line height; the same page for every batch item, every channel."""
    from PIL import Image, ImageDraw, ImageFont
    h, w = shape[2], shape[3]
    lines = max(1, h // 48)
    size = max(8, int(0.6 * h / lines))
    font = ImageFont.truetype(FONT, size) if os.path.exists(FONT) else ImageFont.load_default()
    page = Image.new("L", (w, h), 235)
    draw = ImageDraw.Draw(page)
    for k in range(lines):
        words = " ".join(gen.choice(WORDS, size=8))
        draw.text((int(0.05 * w), int((k + 0.2) * h / lines)), words, fill=25, font=font)
    img = np.asarray(page, dtype=np.float64) + 8 * gen.standard_normal((h, w))
    img = np.clip(img, 0, 255)[None].repeat(shape[1], 0)
    return img[None].repeat(shape[0], 0)


def normalise(pixels, norm):
    if norm == "raw":
        return pixels
    x = pixels / 255.0
    if norm == "unit":
        return x
    if norm == "half":
        return (x - 0.5) / 0.5
    channels = x.shape[1]
    if channels != 3:
        sys.exit(f"make-test-sets: --norm imagenet needs 3 channels, the input has {channels}")
    return (x - IMAGENET_MEAN[None, :, None, None]) / IMAGENET_STD[None, :, None, None]


def feeds(inputs, kind, norm, which):
    gen = np.random.default_rng(100 + which)
    first = [d.dim_value for d in inputs[0].type.tensor_type.shape.dim]
    batch = 1 if (first and first[0] == 1) or which == 0 else 3
    out = {}
    for i in inputs:
        t = i.type.tensor_type
        dims = [d.dim_value if d.dim_value > 0 else None for d in t.shape.dim]
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
        elif kind.startswith(("image", "text")):
            name = "image" if kind.startswith("image") else "text"
            try:
                sizes = [int(v) for v in kind[len(name):].split("x")]
            except ValueError:
                sizes = []
            if len(sizes) != 4:
                sys.exit(f"make-test-sets: KIND '{kind}' needs four sizes, {name}HxWxH2xW2")
            if len(dims) != 4:
                sys.exit(f"make-test-sets: input '{i.name}' has rank {len(dims)}; "
                         f"KIND {name} needs an NCHW input")
            h, w = sizes[2 * which: 2 * which + 2]
            nhwc = dims[3] in (1, 3) and dims[1] not in (1, 3)
            nchw = [dims[0], dims[3], dims[1], dims[2]] if nhwc else dims
            shape = [d if d else (batch if k == 0 else 3 if k == 1 else h if k == 2 else w)
                     for k, d in enumerate(nchw)]
            pixels = normalise((image if name == "image" else text)(gen, shape), norm)
            out[i.name] = (pixels.transpose(0, 2, 3, 1) if nhwc else pixels).astype(dtype)
        else:
            sys.exit(f"make-test-sets: unknown KIND '{kind}'")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("out")
    parser.add_argument("kind")
    parser.add_argument("--norm", choices=("raw", "unit", "half", "imagenet"), default="raw")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    shutil.copy(args.model, os.path.join(args.out, "model.onnx"))
    model = onnx.load(args.model)
    initializers = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in initializers]
    session = ort.InferenceSession(args.model, providers=["CPUExecutionProvider"])
    for which in (0, 1):
        folder = os.path.join(args.out, f"test_data_set_{which}")
        os.makedirs(folder, exist_ok=True)
        values = feeds(inputs, args.kind, args.norm, which)
        for k, i in enumerate(inputs):
            onnx.save_tensor(numpy_helper.from_array(values[i.name], i.name),
                             os.path.join(folder, f"input_{k}.pb"))
        for k, (o, r) in enumerate(zip(session.get_outputs(), session.run(None, values))):
            onnx.save_tensor(numpy_helper.from_array(np.asarray(r), o.name),
                             os.path.join(folder, f"output_{k}.pb"))


if __name__ == "__main__":
    main()
