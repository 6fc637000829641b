#!/usr/bin/env python3
"""Writes f32 Einsum models with onnxruntime's outputs as the reference:
make_einsum.py DIR -> DIR/<case>/model.onnx and DIR/<case>/test_data_set_0/.

  attention    "bhqd,bhkd->bhqk" then "bhqk,bhkd->bhqd" (the two einsums of
               exported attention) between Softmax
  ellipsis     "...ij,...jk->...ik" with a batch dim broadcast from 1
  diagonal     "bii->bi" (a diagonal per batch)
  three        "ij,jk,k->i" (three operands)
  implicit     "ij,kj" (no result given: the letters used once, sorted)
  bilinear     "bn,anm,bm->ba" (torch.nn.Bilinear's export)
"""
import sys

import numpy as np
from onnx import TensorProto, helper

from ort_case import write_case

out = sys.argv[1]
rng = np.random.default_rng(7)


def array(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def write(name, nodes, feeds, output):
    result = write_case(out, name, nodes, feeds, [(output, TensorProto.FLOAT)])[0]
    print(name, "x".join(map(str, result.shape)) or "scalar")


write("attention",
      [helper.make_node("Einsum", ["q", "k"], ["s"], equation="bhqd,bhkd->bhqk", name="scores"),
       helper.make_node("Softmax", ["s"], ["p"], axis=-1, name="softmax"),
       helper.make_node("Einsum", ["p", "v"], ["y"], equation="bhqk,bhkd->bhqd", name="mix")],
      {"q": array(2, 3, 5, 8), "k": array(2, 3, 6, 8), "v": array(2, 3, 6, 8)}, "y")
write("ellipsis",
      [helper.make_node("Einsum", ["a", "b"], ["y"], equation="...ij,...jk->...ik", name="e")],
      {"a": array(4, 2, 3, 5), "b": array(1, 2, 5, 6)}, "y")
write("diagonal",
      [helper.make_node("Einsum", ["a"], ["y"], equation="bii->bi", name="e")],
      {"a": array(3, 4, 4)}, "y")
write("three",
      [helper.make_node("Einsum", ["a", "b", "c"], ["y"], equation="ij,jk,k->i", name="e")],
      {"a": array(3, 4), "b": array(4, 5), "c": array(5)}, "y")
write("implicit",
      [helper.make_node("Einsum", ["a", "b"], ["y"], equation="ij,kj", name="e")],
      {"a": array(3, 4), "b": array(5, 4)}, "y")
write("bilinear",
      [helper.make_node("Einsum", ["x1", "w", "x2"], ["y"], equation="bn,anm,bm->ba", name="e")],
      {"x1": array(4, 6), "w": array(3, 6, 5), "x2": array(4, 5)}, "y")
