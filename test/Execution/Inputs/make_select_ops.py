#!/usr/bin/env python3
"""Writes models of TopK, GatherND and LRN with onnxruntime's outputs as the
reference: make_select_ops.py DIR -> DIR/<case>/model.onnx and
DIR/<case>/test_data_set_0/.

  topk_scores    a detection head's top 5 of 40 scores per row (ties among
                 them: values rounded to 0.1), largest, sorted
  topk_smallest  the 3 smallest along axis 0 of an int64 tensor
  gathernd       rows picked by index pairs, one negative
  gathernd_batch batch_dims=1: per batch item, its own index tuples
  lrn_alexnet    AlexNet's LRN (size 5, alpha 1e-4, beta 0.75, bias 1) on
                 ReLU activations of a large scale
  lrn_strong     size 3, alpha 0.1,
                 bias 2: the normalization far from 1
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from ort_case import write_case

out = sys.argv[1]
F, I = TensorProto.FLOAT, TensorProto.INT64
rng = np.random.default_rng(11)


def write(name, nodes, feeds, outputs, inits=()):
    results = write_case(out, name, nodes, feeds, outputs, inits)
    print(name, " ".join("x".join(map(str, r.shape)) for r in results))


def const(name, array):
    return numpy_helper.from_array(np.array(array), name)


scores = np.round(rng.uniform(0, 1, (6, 40)), 1).astype(np.float32)
write("topk_scores", [helper.make_node("TopK", ["s", "k"], ["v", "i"], axis=1, name="top")],
      {"s": scores}, [("v", F), ("i", I)], [const("k", np.array([5], np.int64))])
write("topk_smallest",
      [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=0, largest=0, name="top")],
      {"x": rng.integers(-50, 50, (9, 4)).astype(np.int64)}, [("v", I), ("i", I)],
      [const("k", np.array([3], np.int64))])
write("gathernd", [helper.make_node("GatherND", ["d", "idx"], ["y"], name="g")],
      {"d": rng.standard_normal((3, 4, 5)).astype(np.float32)}, [("y", F)],
      [const("idx", np.array([[0, 1], [2, -1], [1, 3]], np.int64))])
write("gathernd_batch",
      [helper.make_node("GatherND", ["d", "idx"], ["y"], batch_dims=1, name="g")],
      {"d": rng.standard_normal((2, 5, 3)).astype(np.float32)}, [("y", F)],
      [const("idx", np.array([[[4], [0]], [[1], [-2]]], np.int64))])
act = np.maximum(rng.standard_normal((2, 16, 6, 6)) * 40, 0).astype(np.float32)
write("lrn_alexnet",
      [helper.make_node("LRN", ["x"], ["y"], size=5, alpha=1e-4, beta=0.75, bias=1.0, name="norm")],
      {"x": act}, [("y", F)])
write("lrn_strong",
      [helper.make_node("LRN", ["x"], ["y"], size=3, alpha=0.1, beta=0.75, bias=2.0, name="norm")],
      {"x": rng.standard_normal((1, 7, 3, 5)).astype(np.float32) * 3}, [("y", F)])
