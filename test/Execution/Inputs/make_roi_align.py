#!/usr/bin/env python3
"""Writes RoiAlign models with onnxruntime's outputs (or torchvision's) as
the reference: make_roi_align.py DIR -> DIR/<case>/model.onnx and
DIR/<case>/test_data_set_0/.

  avg         half_pixel (opset 16), 2 x 2 samples per bin, two images, a
              region inside, one over the edge, one wholly outside, one
              thinner than a pixel
  max_legacy  opset 10 (output_half_pixel: regions at least 1 x 1), max
  adaptive    sampling_ratio 0 (ceil(bin size) samples, decided per region),
              spatial_scale 1/4
  torchvision torchvision.ops.roi_align(aligned=True, sampling_ratio=2) as
              torch.onnx exports it, against torch
  crop_head   Conv -> RoiAlign(rois input) -> Conv -> GlobalAveragePool ->
              Gemm: a second stage, two sets with different regions
"""
import os
import sys
import warnings

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from ort_case import write_case

out = sys.argv[1]
rng = np.random.default_rng(7)
F = TensorProto.FLOAT


def shape_of(a):
    return "x".join(map(str, a.shape))


def boxes(n, size):
    """n regions (x1, y1, x2, y2) inside a size x size image."""
    lo = rng.uniform(0, size * 0.6, (n, 2))
    return np.concatenate([lo, lo + rng.uniform(1, size * 0.4, (n, 2))], 1).astype(np.float32)


x = rng.standard_normal((2, 3, 10, 12)).astype(np.float32)
rois = np.array([[1.0, 2.0, 7.5, 8.0], [8.0, 6.0, 14.0, 12.0], [20.0, 20.0, 30.0, 25.0],
                 [3.0, 3.0, 3.2, 9.0]], np.float32)
idx = np.array([0, 1, 1, 0], np.int64)
y = write_case(out, "avg", [helper.make_node(
    "RoiAlign", ["x", "rois", "idx"], ["y"], output_height=3, output_width=3, sampling_ratio=2,
    coordinate_transformation_mode="half_pixel")],
    {"x": x, "rois": rois, "idx": idx}, [("y", F)], opset=16)[0]
print("avg", shape_of(y))

y = write_case(out, "max_legacy", [helper.make_node(
    "RoiAlign", ["x", "rois", "idx"], ["y"], output_height=2, output_width=4, sampling_ratio=2,
    mode="max")], {"x": x, "rois": rois, "idx": idx}, [("y", F)], opset=10)[0]
print("max_legacy", shape_of(y))

big = rng.standard_normal((1, 4, 16, 16)).astype(np.float32)
r = boxes(6, 64)
y = write_case(out, "adaptive", [helper.make_node(
    "RoiAlign", ["x", "rois", "idx"], ["y"], output_height=2, output_width=2, sampling_ratio=0,
    spatial_scale=0.25)],
    {"x": big, "rois": r, "idx": np.zeros(6, np.int64)}, [("y", F)], opset=16)[0]
print("adaptive", shape_of(y))

import torch  # noqa: E402
import torchvision  # noqa: E402


class Crop(torch.nn.Module):
    def forward(self, x, rois):
        return torchvision.ops.roi_align(x, rois, (4, 4), spatial_scale=0.5, sampling_ratio=2,
                                         aligned=True)


warnings.simplefilter("ignore")
case = os.path.join(out, "torchvision")
os.makedirs(os.path.join(case, "test_data_set_0"), exist_ok=True)
feat = rng.standard_normal((2, 5, 12, 12)).astype(np.float32)
tv_rois = np.concatenate([np.array([[0], [1], [1]], np.float32), boxes(3, 24)], 1)
torch.onnx.export(Crop(), (torch.from_numpy(feat), torch.from_numpy(tv_rois)),
                  os.path.join(case, "model.onnx"), input_names=["x", "rois"],
                  output_names=["y"], opset_version=16, dynamo=False)
want = Crop()(torch.from_numpy(feat), torch.from_numpy(tv_rois)).numpy()
for k, (n, a) in enumerate([("x", feat), ("rois", tv_rois)]):
    onnx.save_tensor(numpy_helper.from_array(a, n),
                     os.path.join(case, "test_data_set_0", f"input_{k}.pb"))
onnx.save_tensor(numpy_helper.from_array(want, "y"),
                 os.path.join(case, "test_data_set_0", "output_0.pb"))
print("torchvision", " ".join(sorted({n.op_type for n in onnx.load(
    os.path.join(case, "model.onnx")).graph.node})), shape_of(want))

# A second stage: features, regions of them, a small head.
def weight(name, shape, scale):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


nodes = [helper.make_node("Conv", ["image", "w1", "b1"], ["f"], pads=[1, 1, 1, 1], strides=[2, 2],
                          name="backbone"),
         helper.make_node("Relu", ["f"], ["fr"], name="backbone_relu"),
         helper.make_node("RoiAlign", ["fr", "rois", "idx"], ["crops"], output_height=4,
                          output_width=4, sampling_ratio=2, spatial_scale=0.5, name="roi_align"),
         helper.make_node("Conv", ["crops", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], name="head"),
         helper.make_node("Relu", ["c2"], ["r2"], name="head_relu"),
         helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="pool"),
         helper.make_node("Flatten", ["g"], ["flat"], name="flatten"),
         helper.make_node("Gemm", ["flat", "w3", "b3"], ["scores"], transB=1, name="classify")]
inits = [weight("w1", (8, 3, 3, 3), 0.3), weight("b1", (8,), 0.1),
         weight("w2", (8, 8, 3, 3), 0.2), weight("b2", (8,), 0.1),
         weight("w3", (5, 8), 0.5), weight("b3", (5,), 0.1)]
image = rng.standard_normal((1, 3, 32, 32)).astype(np.float32)
feeds = {"image": image, "rois": boxes(6, 32), "idx": np.zeros(6, np.int64)}
y = write_case(out, "crop_head", nodes, feeds, [("scores", F)], inits, opset=16)[0]
head = os.path.join(out, "crop_head")
feeds1 = {"image": rng.standard_normal((1, 3, 32, 32)).astype(np.float32),
          "rois": boxes(6, 32), "idx": np.zeros(6, np.int64)}
y1 = ort.InferenceSession(os.path.join(head, "model.onnx"),
                          providers=["CPUExecutionProvider"]).run(None, feeds1)[0]
os.makedirs(os.path.join(head, "test_data_set_1"))
for k, (n, a) in enumerate(feeds1.items()):
    onnx.save_tensor(numpy_helper.from_array(a, n),
                     os.path.join(head, "test_data_set_1", f"input_{k}.pb"))
onnx.save_tensor(numpy_helper.from_array(y1, "scores"),
                 os.path.join(head, "test_data_set_1", "output_0.pb"))
print("crop_head", shape_of(y))
