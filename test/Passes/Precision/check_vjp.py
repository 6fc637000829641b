#!/usr/bin/env python3
"""Check every VJPOpInterface model against finite differences in f64.

For each single-op graph: dsmp-opt --dsmp-test-adjoint makes it return the
gradient g of <s, f(x)> for a random seed s (and, for a contraction with
constant weights W, its gradient with respect to W, checked by perturbing
the constant). The graph is written in f64 and compiled by dsmp-run; the
forward graph runs at x +- h d for a random direction d (both points in one
graph, one compile). The check is
<g, d> == (<s, f(x + h d)> - <s, f(x - h d)>) / 2h within --rtol of
max(|lhs|, |rhs|, scale). The same gradient graph in f32, compiled and in
the reference evaluator (which the analyses run adjoints in), must agree
to 1e-5. Every op that dialects/Dsmp/IR/DsmpVJP.cpp gives a model must
have a case here. Prints one line per op and a summary.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

RNG = np.random.default_rng(7)


def dense(a):
    """Exact in f64 (and in f32 for float32 values)."""
    return "dense<" + np.array2string(np.asarray(a, np.float64), separator=", ", threshold=10**9,
                                      floatmode="unique").replace("\n", "") + ">"


def ty(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + ("x" if shape else "") + "f32>"


def const(name, a):
    return f"%{name} = dsmp.constant {dense(a)} : {ty(np.shape(a))}"


def case(name, inputs, body, out_shape, positive=False, domain=None, step=None):
    """inputs: list of shapes; body uses %x0.. and defines %y, its types
    written in f32 (graph() retypes them; xF32 stays f32). domain:
    "positive" (|x| + 1/2), "unit" (|x| < 0.9), "above_one" (|x| + 1.5).
    step: a finite-difference step of its own."""
    return dict(name=name, inputs=inputs, body=body, out=out_shape,
                domain=domain or ("positive" if positive else None), step=step)


W = RNG.standard_normal((6, 2, 3, 3)).astype(np.float32)
WT = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
GB = RNG.standard_normal((5, 4)).astype(np.float32)
S = RNG.uniform(0.5, 1.5, 4).astype(np.float32)
CASES = [
    case("add", [[2, 3], [3]], "%y = dsmp.add %x0, %x1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>", [2, 3]),
    case("sub", [[2, 3], [2, 1]], "%y = dsmp.sub %x0, %x1 : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>", [2, 3]),
    case("mul", [[2, 3], [1, 3]], "%y = dsmp.mul %x0, %x1 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>", [2, 3]),
    case("div", [[2, 3], [3]], "%y = dsmp.div %x0, %x1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>", [2, 3], positive=True),
    *[case(op, [[2, 5]], f"%y = dsmp.{op} %x0 : (tensor<2x5xf32>) -> tensor<2x5xf32>", [2, 5],
           positive=op in ("log", "sqrt", "reciprocal"))
      for op in ["relu", "leaky_relu", "sigmoid", "tanh", "hard_sigmoid", "exp", "log", "sqrt",
                 "reciprocal", "neg", "abs", "erf"]],
    case("pow2", [[2, 5]], const("e", 2.0) + "\n%y = dsmp.pow %x0, %e : (tensor<2x5xf32>, tensor<f32>) -> tensor<2x5xf32>", [2, 5]),
    case("pow3", [[2, 5]], const("e", 3.0) + "\n%y = dsmp.pow %x0, %e : (tensor<2x5xf32>, tensor<f32>) -> tensor<2x5xf32>", [2, 5], positive=True),
    case("clip", [[2, 5]], const("lo", -0.5) + "\n" + const("hi", 0.5) +
         "\n%y = dsmp.clip %x0, %lo, %hi : (tensor<2x5xf32>, tensor<f32>, tensor<f32>) -> tensor<2x5xf32>", [2, 5]),
    case("max", [[2, 5], [5]], "%y = dsmp.max %x0, %x1 : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>", [2, 5]),
    case("softmax", [[3, 5]], "%y = dsmp.softmax %x0 : (tensor<3x5xf32>) -> tensor<3x5xf32>", [3, 5]),
    case("log_softmax", [[3, 5]], "%y = dsmp.log_softmax %x0 {axis = 0 : i64} : (tensor<3x5xf32>) -> tensor<3x5xf32>", [3, 5]),
    case("trilu", [[4, 5]], "%k = dsmp.constant dense<1> : tensor<i64>\n"
         "%y = dsmp.trilu %x0, %k {upper = 0 : i64} : (tensor<4x5xf32>, tensor<i64>) -> tensor<4x5xf32>", [4, 5]),
    case("split", [[2, 6]], "%n = dsmp.none\n"
         "%a, %b = dsmp.split %x0, %n {axis = 1 : i64} : (tensor<2x6xf32>, none) -> (tensor<2x3xf32>, tensor<2x3xf32>)\n"
         "%y = dsmp.mul %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>", [2, 3]),
    case("matmul", [[2, 3, 4], [4, 5]], "%y = dsmp.matmul %x0, %x1 : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>", [2, 3, 5]),
    case("einsum_attention", [[2, 3, 4], [2, 5, 4]],
         '%y = dsmp.einsum %x0, %x1 {equation = "bqd,bkd->bqk"} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>', [2, 3, 5]),
    case("einsum_bilinear", [[4, 6], [3, 6, 5], [4, 5]],
         '%y = dsmp.einsum %x0, %x1, %x2 {equation = "bn,anm,bm->ba"} : (tensor<4x6xf32>, tensor<3x6x5xf32>, tensor<4x5xf32>) -> tensor<4x3xf32>', [4, 3]),
    case("gemm", [[4, 3], [5]], const("b", GB) +
         "\n%y = dsmp.gemm %x0, %b, %x1 {alpha = 0.5 : f32, beta = 2.0 : f32, transA = 1 : i64, transB = 1 : i64} : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>",
         [3, 5]),
    case("conv", [[1, 4, 7, 7]], const("w", W) + "\n%n = dsmp.none\n"
         "%y = dsmp.conv %x0, %w, %n {group = 2 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 1>} : (tensor<1x4x7x7xf32>, tensor<6x2x3x3xf32>, none) -> tensor<1x6x4x3xf32>",
         [1, 6, 4, 3]),
    case("conv_transpose", [[1, 4, 3, 3]], const("w", WT) + "\n%n = dsmp.none\n"
         "%y = dsmp.conv_transpose %x0, %w, %n {group = 2 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x3x3xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x6x5x5xf32>",
         [1, 6, 5, 5]),
    # Trainable parameters (the training step's weights are graph inputs).
    case("conv parameters", [[2, 4, 7, 7], [6, 2, 3, 3], [6]],
         "%y = dsmp.conv %x0, %x1, %x2 {group = 2 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 1>} : (tensor<2x4x7x7xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x4x3xf32>",
         [2, 6, 4, 3]),
    case("conv_transpose parameters", [[2, 4, 3, 3], [4, 3, 3, 3], [6]],
         "%y = dsmp.conv_transpose %x0, %x1, %x2 {group = 2 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x4x3x3xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<2x6x5x5xf32>",
         [2, 6, 5, 5]),
    case("gemm parameters", [[4, 3], [5, 4], [5]],
         "%y = dsmp.gemm %x0, %x1, %x2 {transA = 1 : i64, transB = 1 : i64} : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>",
         [3, 5]),
    case("layer_normalization parameters", [[3, 4], [4], [4]],
         "%y, %mean, %inv = dsmp.layer_normalization %x0, %x1, %x2 : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<3x4xf32>, none, none)",
         [3, 4]),
    case("batch_normalization parameters", [[2, 4, 3, 3], [4], [4]], const("m", S / 3) + "\n" + const("v", S) +
         "\n%y = dsmp.batch_normalization %x0, %x1, %x2, %m, %v : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>",
         [2, 4, 3, 3]),
    case("batch_normalization", [[2, 4, 3, 3]], const("s", S) + "\n" + const("b", S - 1) + "\n" + const("m", S / 3) + "\n" + const("v", S) +
         "\n%y = dsmp.batch_normalization %x0, %s, %b, %m, %v : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>",
         [2, 4, 3, 3]),
    case("layer_normalization", [[3, 4]], const("s", S) + "\n" + const("b", S - 1) +
         "\n%y, %mean, %inv = dsmp.layer_normalization %x0, %s, %b : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<3x4xf32>, none, none)",
         [3, 4]),
    case("instance_normalization parameters", [[2, 4, 3, 3], [4], [4]],
         "%y = dsmp.instance_normalization %x0, %x1, %x2 : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>",
         [2, 4, 3, 3]),
    case("instance_normalization", [[2, 4, 3, 3]], const("s", S) + "\n" + const("b", S - 1) +
         "\n%y = dsmp.instance_normalization %x0, %s, %b : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>",
         [2, 4, 3, 3]),
    case("reduce_mean", [[2, 3, 4]], const("a", np.array([1], np.int64)).replace("f32", "i64").replace("1.", "1") +
         "\n%y = dsmp.reduce_mean %x0, %a {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>", [2, 4]),
    case("reduce_sum", [[2, 3]], "%n = dsmp.none\n%y = dsmp.reduce_sum %x0, %n : (tensor<2x3xf32>, none) -> tensor<1x1xf32>", [1, 1]),
    case("reduce_max", [[2, 3, 4]], const("a", np.array([2], np.int64)).replace("f32", "i64").replace("2.", "2") +
         "\n%y = dsmp.reduce_max %x0, %a : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>", [2, 3, 1]),
    case("global_average_pool", [[1, 3, 4, 4]], "%y = dsmp.global_average_pool %x0 : (tensor<1x3x4x4xf32>) -> tensor<1x3x1x1xf32>", [1, 3, 1, 1]),
    case("average_pool", [[1, 2, 6, 6]], "%y = dsmp.average_pool %x0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>", [1, 2, 3, 3]),
    # PoolFormer's token mixer: stride 1, padded, the pads not counted.
    case("average_pool_excluding_pads", [[1, 2, 5, 5]], "%y = dsmp.average_pool %x0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = 0 : i64} : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>", [1, 2, 5, 5]),
    case("average_pool_including_pads", [[1, 2, 5, 5]], "%y = dsmp.average_pool %x0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = 1 : i64} : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>", [1, 2, 5, 5]),
    # timm's GroupNorm1: one group over C*H*W, as InstanceNormalization of [N, 1, L].
    case("instance_normalization_one_group", [[2, 1, 12]], const("s1", np.ones(1, np.float32)) + "\n" + const("b1", np.zeros(1, np.float32)) +
         "\n%y = dsmp.instance_normalization %x0, %s1, %b1 {epsilon = 1.0e-06 : f32} : (tensor<2x1x12xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x1x12xf32>",
         [2, 1, 12]),
    case("max_pool", [[1, 2, 7, 7]], "%y, %i = dsmp.max_pool %x0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x7x7xf32>) -> (tensor<1x2x4x4xf32>, none)", [1, 2, 4, 4]),
    case("max_pool_1d", [[2, 3, 8]], "%y, %i = dsmp.max_pool %x0 {kernel_shape = array<i64: 2>, strides = array<i64: 2>} : (tensor<2x3x8xf32>) -> (tensor<2x3x4xf32>, none)", [2, 3, 4]),
    case("flatten", [[2, 3, 4]], "%y = dsmp.flatten %x0 : (tensor<2x3x4xf32>) -> tensor<2x12xf32>", [2, 12]),
    case("transpose", [[2, 3, 4]], "%y = dsmp.transpose %x0 {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>", [4, 2, 3]),
    case("concat", [[2, 3], [2, 2]], "%y = dsmp.concat %x0, %x1 {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>", [2, 5]),
    case("slice", [[4, 6]], "%s = dsmp.constant dense<[1, 2]> : tensor<2xi64>\n%e = dsmp.constant dense<[3, 5]> : tensor<2xi64>\n%n = dsmp.none\n"
         "%y = dsmp.slice %x0, %s, %e, %n, %n : (tensor<4x6xf32>, tensor<2xi64>, tensor<2xi64>, none, none) -> tensor<2x3xf32>", [2, 3]),
    case("expand", [[3, 1]], "%s = dsmp.constant dense<[2, 3, 4]> : tensor<3xi64>\n"
         "%y = dsmp.expand %x0, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>", [2, 3, 4]),
    case("where", [[2, 3], [3]], "%c = dsmp.constant dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>\n"
         "%y = dsmp.where %c, %x0, %x1 : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>", [2, 3]),
    case("resize", [[1, 2, 2, 3]], "%n = dsmp.none\n" + const("sc", [1.0, 1.0, 2.0, 2.0]) +
         "\n%y = dsmp.resize %x0, %n, %sc, %n {mode = \"nearest\", coordinate_transformation_mode = \"asymmetric\", nearest_mode = \"floor\"} : (tensor<1x2x2x3xf32>, none, tensor<4xf32>, none) -> tensor<1x2x4x6xf32>",
         [1, 2, 4, 6]),
    # The derivatives of derivativeVJP (inputs spread past HardSwish's +-3,
    # Shrink's +-lambd and ThresholdedRelu's alpha by the normal draw).
    *[case(op, [[2, 5]], f"%y = dsmp.{op} %x0 : (tensor<2x5xf32>) -> tensor<2x5xf32>", [2, 5],
           domain={"asin": "unit", "acos": "unit", "atanh": "unit", "acosh": "above_one"}.get(op))
      for op in ["hard_swish", "gelu", "mish", "elu", "celu", "selu", "softsign", "softplus", "sin", "cos", "tan",
                 "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "identity"]],
    case("gelu_tanh", [[2, 5]], '%y = dsmp.gelu %x0 {approximate = "tanh"} : (tensor<2x5xf32>) -> tensor<2x5xf32>', [2, 5]),
    case("celu_alpha", [[2, 5]], "%y = dsmp.celu %x0 {alpha = 2.0 : f32} : (tensor<2x5xf32>) -> tensor<2x5xf32>", [2, 5]),
    case("shrink", [[3, 5]], "%y = dsmp.shrink %x0 {bias = 0.25 : f32, lambd = 0.75 : f32} : (tensor<3x5xf32>) -> tensor<3x5xf32>", [3, 5]),
    case("thresholded_relu", [[3, 5]], "%y = dsmp.thresholded_relu %x0 {alpha = 0.5 : f32} : (tensor<3x5xf32>) -> tensor<3x5xf32>", [3, 5]),
    case("prelu", [[2, 3, 4], [3, 1]], "%y = dsmp.prelu %x0, %x1 : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>", [2, 3, 4]),
    case("mean", [[2, 3], [3]], "%y = dsmp.mean %x0, %x1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>", [2, 3]),
    # The class token (a scalar index) and repeated, negative indices.
    case("gather_scalar", [[2, 5, 4]], "%i = dsmp.constant dense<0> : tensor<i64>\n"
         "%y = dsmp.gather %x0, %i {axis = 1 : i64} : (tensor<2x5x4xf32>, tensor<i64>) -> tensor<2x4xf32>", [2, 4]),
    case("gather", [[5, 3]], "%i = dsmp.constant dense<[[4, 1], [-1, 0]]> : tensor<2x2xi64>\n"
         "%y = dsmp.gather %x0, %i : (tensor<5x3xf32>, tensor<2x2xi64>) -> tensor<2x2x3xf32>", [2, 2, 3]),
    case("global_max_pool", [[1, 3, 4, 4]], "%y = dsmp.global_max_pool %x0 : (tensor<1x3x4x4xf32>) -> tensor<1x3x1x1xf32>", [1, 3, 1, 1]),
    # ceil_mode: the last window reaches past the end.
    case("max_pool_ceil", [[1, 2, 6, 6]], "%y, %i = dsmp.max_pool %x0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64} : (tensor<1x2x6x6xf32>) -> (tensor<1x2x3x3xf32>, none)", [1, 2, 3, 3]),
    # PatchMerging's x[:, 1::2] (a step, the last element unread).
    case("slice_step", [[3, 7]], "%s = dsmp.constant dense<[1]> : tensor<1xi64>\n%e = dsmp.constant dense<[7]> : tensor<1xi64>\n"
         "%a = dsmp.constant dense<[1]> : tensor<1xi64>\n%st = dsmp.constant dense<[2]> : tensor<1xi64>\n"
         "%y = dsmp.slice %x0, %s, %e, %a, %st : (tensor<3x7xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x3xf32>", [3, 3]),
    case("pad", [[2, 3]], "%p = dsmp.constant dense<[0, 1, 1, 2]> : tensor<4xi64>\n%n = dsmp.none\n"
         "%y = dsmp.pad %x0, %p, %n, %n : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<3x6xf32>", [3, 6]),
    case("min", [[2, 5], [5]], "%y = dsmp.min %x0, %x1 : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>", [2, 5]),
    case("sum", [[2, 3], [3], [2, 1]], "%y = dsmp.sum %x0, %x1, %x2 : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>", [2, 3]),
    case("reduce_min", [[2, 3, 4]], "%a = dsmp.constant dense<[1]> : tensor<1xi64>\n"
         "%y = dsmp.reduce_min %x0, %a : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>", [2, 1, 4]),
    case("reshape", [[2, 3, 2]], "%s = dsmp.constant dense<[3, 4]> : tensor<2xi64>\n"
         "%y = dsmp.reshape %x0, %s : (tensor<2x3x2xf32>, tensor<2xi64>) -> tensor<3x4xf32>", [3, 4]),
    case("squeeze", [[1, 4, 1]], "%a = dsmp.constant dense<[0, 2]> : tensor<2xi64>\n"
         "%y = dsmp.squeeze %x0, %a : (tensor<1x4x1xf32>, tensor<2xi64>) -> tensor<4xf32>", [4]),
    case("unsqueeze", [[3, 4]], "%a = dsmp.constant dense<[1]> : tensor<1xi64>\n"
         "%y = dsmp.unsqueeze %x0, %a : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1x4xf32>", [3, 1, 4]),
    # Through f32 and back: f64's difference quotient sees f32's rounding,
    # 2^-24 |x| / h, so the step is wide (the cast is linear: no
    # truncation error).
    case("cast", [[2, 3]], "%h = dsmp.cast %x0 : (tensor<2x3xf32>) -> tensor<2x3xF32>\n"
         "%y = dsmp.cast %h : (tensor<2x3xF32>) -> tensor<2x3xf32>\n", [2, 3], step=0.1),
    # Branches that yield outer values (ifVJP's form), on a condition
    # computed from the input (the step does not flip it).
    case("if", [[2, 3]], "%z = dsmp.constant dense<0.0> : tensor<f32>\n%n = dsmp.none\n"
         "%s = dsmp.reduce_sum %x0, %n {keepdims = 0 : i64} : (tensor<2x3xf32>, none) -> tensor<f32>\n"
         "%c = dsmp.greater %s, %z : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
         "%t = dsmp.tanh %x0 : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
         "%e = dsmp.sin %x0 : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
         "%y = dsmp.if %c : tensor<i1> -> tensor<2x3xf32> {\n  dsmp.yield %t : tensor<2x3xf32>\n"
         "} else {\n  dsmp.yield %e : tensor<2x3xf32>\n}", [2, 3]),
    case("dropout", [[2, 3]], "%n = dsmp.none\n"
         "%y, %m = dsmp.dropout %x0, %n, %n : (tensor<2x3xf32>, none, none) -> (tensor<2x3xf32>, none)", [2, 3]),
]


def wcase(name, x_shape, w, body, out_shape):
    """A contraction with constant weights `w` (body uses %x0 and {w})."""
    return dict(name=name, inputs=[x_shape], w=np.asarray(w, np.float32), body=body,
                out=out_shape, domain=None)


# The gradient with respect to constant weights (weightGradient), checked
# by perturbing the constant (own generator: the cases above keep their
# draws).
WRNG = np.random.default_rng(11)
CW = WRNG.standard_normal((6, 2, 3, 3)).astype(np.float32)
DW = WRNG.standard_normal((4, 1, 3, 3)).astype(np.float32)
MW = WRNG.standard_normal((4, 5)).astype(np.float32)
CW2 = WRNG.standard_normal((8, 3, 3, 3)).astype(np.float32)
PW = WRNG.standard_normal((3, 4, 1, 1)).astype(np.float32)
WEIGHT_CASES = [
    wcase("conv weights", [2, 4, 7, 7], CW, "%w = dsmp.constant {w} : tensor<6x2x3x3xf32>\n%n = dsmp.none\n"
          "%y = dsmp.conv %x0, %w, %n {group = 2 : i64, strides = array<i64: 2, 1>, dilations = array<i64: 1, 2>, pads = array<i64: 1, 0, 2, 1>} : (tensor<2x4x7x7xf32>, tensor<6x2x3x3xf32>, none) -> tensor<2x6x4x4xf32>",
          [2, 6, 4, 4]),
    # Its weight gradient is a conv whose 9x9 kernel outgrows its 3x3
    # output (the evaluator's gather by output position, zeros at the pads).
    wcase("conv weights, large plane", [2, 3, 9, 9], CW2, "%w = dsmp.constant {w} : tensor<8x3x3x3xf32>\n%n = dsmp.none\n"
          "%y = dsmp.conv %x0, %w, %n {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x3x9x9xf32>, tensor<8x3x3x3xf32>, none) -> tensor<2x8x9x9xf32>",
          [2, 8, 9, 9]),
    # Stride 2 leaves the last row and column unread with no end pad to
    # trim: the weight gradient's product is 2x2 and cropped to 1x1. (The
    # first case trims its end pad instead.)
    wcase("conv weights, strided 1x1", [1, 4, 8, 8], PW, "%w = dsmp.constant {w} : tensor<3x4x1x1xf32>\n%n = dsmp.none\n"
          "%y = dsmp.conv %x0, %w, %n {strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<3x4x1x1xf32>, none) -> tensor<1x3x4x4xf32>",
          [1, 3, 4, 4]),
    wcase("depthwise conv weights", [1, 4, 6, 6], DW, "%w = dsmp.constant {w} : tensor<4x1x3x3xf32>\n%n = dsmp.none\n"
          "%y = dsmp.conv %x0, %w, %n {group = 4 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>, none) -> tensor<1x4x6x6xf32>",
          [1, 4, 6, 6]),
    wcase("matmul weights", [2, 3, 4], MW, "%w = dsmp.constant {w} : tensor<4x5xf32>\n"
          "%y = dsmp.matmul %x0, %w : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>", [2, 3, 5]),
    wcase("gemm weights", [3, 5], MW, "%w = dsmp.constant {w} : tensor<4x5xf32>\n%n = dsmp.none\n"
          "%y = dsmp.gemm %x0, %w, %n {transB = 1 : i64, alpha = 0.5 : f32} : (tensor<3x5xf32>, tensor<4x5xf32>, none) -> tensor<3x4xf32>", [3, 4]),
]

def write_inputs(folder, arrays, dtype):
    os.makedirs(folder, exist_ok=True)
    for i, (name, a) in enumerate(arrays):
        t = numpy_helper.from_array(np.asarray(a, dtype), name)
        with open(os.path.join(folder, f"input_{i}.pb"), "wb") as f:
            f.write(t.SerializeToString())


def run_model(bin_dir, model, inputs, work, tag, dtype, engine="compile"):
    folder = os.path.join(work, tag)
    write_inputs(folder, inputs, dtype)
    out = os.path.join(work, tag + ".out")
    os.makedirs(out, exist_ok=True)
    r = subprocess.run([os.path.join(bin_dir, "dsmp-run"), model, "--inputs", folder,
                        "--save-outputs", out, f"--engine={engine}"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        raise RuntimeError(r.stdout)
    result = {}
    for f in sorted(os.listdir(out)):
        t = onnx.TensorProto()
        with open(os.path.join(out, f), "rb") as fh:
            t.ParseFromString(fh.read())
        a = numpy_helper.to_array(t)
        if a.dtype != dtype:
            raise RuntimeError(f"{tag}: output {t.name} is {a.dtype}, expected {np.dtype(dtype)}")
        result[t.name] = a.astype(np.float64)
    return result


def retype(text, element):
    """The f32 tensor types of a case's text in `element` (attributes keep f32)."""
    return text.replace("xf32>", f"x{element}>").replace("<f32>", f"<{element}>").replace("xF32>", "xf32>")


def graph(c, body, work, tag, element):
    params = ", ".join(f"%x{i}: {ty(s)} {{dsmp.name = \"x{i}\"}}" for i, s in enumerate(c["inputs"]))
    src = (f"func.func @main_graph({params}) -> ({ty(c['out'])} {{dsmp.name = \"y\"}}) {{\n"
           f"{body}\nreturn %y : {ty(c['out'])}\n}}\n")
    path = os.path.join(work, f"{tag}.{element}.mlir")
    with open(path, "w") as f:
        f.write(retype(src, element))
    return path


def graph_twice(c, bodies, work, tag):
    """One f64 graph that computes the forward once per body (the +h and
    -h points of a finite difference): copy k reads %x0_k.. and returns
    y_k, so one compile serves both."""
    params, results, text = [], [], []
    for k, body in enumerate(bodies):
        params += [f"%x{i}_{k}: {ty(s)} {{dsmp.name = \"x{i}_{k}\"}}" for i, s in enumerate(c["inputs"])]
        results.append(f"{ty(c['out'])} {{dsmp.name = \"y_{k}\"}}")
        text.append(re.sub(r"%(\w+)", rf"%\1_{k}", body))
    src = (f"func.func @main_graph({', '.join(params)}) -> ({', '.join(results)}) {{\n"
           + "\n".join(text) + "\nreturn " + ", ".join(f"%y_{k}" for k in range(len(bodies)))
           + " : " + ", ".join(ty(c["out"]) for _ in bodies) + "\n}\n")
    path = os.path.join(work, f"{tag}.twice.f64.mlir")
    with open(path, "w") as f:
        f.write(retype(src, "f64"))
    return path


def finite_difference(args, c, bodies, points, seed, h, work, tag):
    """(<s, f(x + h d)> - <s, f(x - h d)>) / 2h from one run of both points."""
    feed = [(f"{n}_{k}", x) for k, point in enumerate(points) for n, x in point]
    ys = run_model(args.bin, graph_twice(c, bodies, work, tag), feed, work, tag + ".fd", np.float64)
    return float(((ys["y_0"] - ys["y_1"]) * seed).sum()) / (2 * h)


def adjoint(args, fwd):
    out = fwd.replace(".mlir", ".adjoint.mlir")
    r = subprocess.run([os.path.join(args.bin, "dsmp-opt"), fwd, "--dsmp-test-adjoint", "-o", out],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode or "warning" in r.stdout:
        raise RuntimeError(f"dsmp-test-adjoint FAILED\n{r.stdout}")
    return out


def evaluator_agrees(args, body, c, feed, names, work, tag):
    """The f32 gradient graph compiled and in the reference evaluator."""
    adj = adjoint(args, graph(c, body, work, tag, "f32"))
    got = run_model(args.bin, adj, feed, work, tag + ".g32", np.float32)
    evaluated = run_model(args.bin, adj, feed, work, tag + ".e32", np.float32, engine="evaluate")
    for n in names:
        a, b = got[n], evaluated[n]
        if np.abs(a - b).max() > 1e-5 * max(1.0, np.abs(a).max()):
            return f"evaluated gradient {n} MISMATCH vs compiled: {np.abs(a - b).max():.3g}"
    return None


def verdict(args, name, what, lhs, rhs, rtol=None):
    scale = max(abs(lhs), abs(rhs), 1e-3)
    ok = abs(lhs - rhs) <= (rtol or args.rtol) * scale
    return ok, f"{name}: {what} = {lhs:.12g}, finite difference {rhs:.12g} {'ok' if ok else 'MISMATCH'}"


def check_weights(c, args, work):
    tag = c["name"].replace(" ", "_")
    body = c["body"].replace("{w}", dense(c["w"]))
    x = WRNG.standard_normal(c["inputs"][0])
    seed = WRNG.standard_normal(c["out"])
    d = WRNG.standard_normal(c["w"].shape)
    feed = [("x0", x), ("seed_0", seed)]
    problem = evaluator_agrees(args, body, c, feed, ["wgrad_0"], work, tag)
    if problem:
        return False, f"{c['name']}: {problem}"
    got = run_model(args.bin, adjoint(args, graph(c, body, work, tag, "f64")), feed, work, tag + ".g",
                    np.float64)
    lhs = float((got["wgrad_0"] * d).sum())
    h = args.step
    bodies = [c["body"].replace("{w}", dense(c["w"] + sign * h * d)) for sign in (1, -1)]
    rhs = finite_difference(args, c, bodies, [[("x0", x)]] * 2, seed, h, work, tag)
    return verdict(args, c["name"], "<dW, d>", lhs, rhs)


def draw(shape, domain):
    x = RNG.standard_normal(shape)
    if domain == "positive":
        return np.abs(x) + 0.5
    if domain == "above_one":
        return np.abs(x) + 1.5
    if domain == "unit":
        return np.tanh(x) * 0.9
    return x


def check(c, args, work):
    tag = c["name"]
    names = [f"x{i}" for i in range(len(c["inputs"]))]
    xs = [draw(s, c["domain"]) for s in c["inputs"]]
    seed = RNG.standard_normal(c["out"])
    dirs = [RNG.standard_normal(s) for s in c["inputs"]]
    feed = list(zip(names, xs)) + [("seed_0", seed)]
    grads = [f"grad_{i}" for i in range(len(dirs))]
    problem = evaluator_agrees(args, c["body"], c, feed, grads, work, tag)
    if problem:
        return False, f"{c['name']}: {problem}"
    fwd = graph(c, c["body"], work, tag, "f64")
    got = run_model(args.bin, adjoint(args, fwd), feed, work, tag + ".g", np.float64)
    lhs = sum(float((got[g] * d).sum()) for g, d in zip(grads, dirs))
    h = c["step"] or args.step
    points = [[(n, x + sign * h * d) for n, x, d in zip(names, xs, dirs)] for sign in (1, -1)]
    rhs = finite_difference(args, c, [c["body"]] * 2, points, seed, h, work, tag)
    return verdict(args, c["name"], "<grad, d>", lhs, rhs, 1e-5 if c["step"] else args.rtol)


def uncovered(cases):
    """Ops with a VJP model (DsmpVJP.cpp's attach lists) that no case runs."""
    ir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "dialects", "Dsmp", "IR")
    with open(os.path.join(ir, "DsmpOps.td")) as f:
        mnemonic = dict(re.findall(r'def Dsmp_(\w+Op)\s*:\s*\w+<"(\w+)"', f.read()))
    with open(os.path.join(ir, "DsmpVJP.cpp")) as f:
        src = f.read()
    attached = set()
    for group in re.findall(r"attach<\w+,([^>]*)>\(ctx\)", src):
        attached.update(op.strip() for op in group.split(",") if op.strip())
    run = set()
    for c in cases:
        run.update(re.findall(r"dsmp\.(\w+)", c["body"]))
    missing = sorted(op for op in attached if mnemonic.get(op) not in run)
    return attached, missing


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--rtol", type=float, default=1e-6)
    p.add_argument("--step", type=float, default=1e-6)
    args = p.parse_args()
    attached, missing = uncovered(CASES + WEIGHT_CASES)
    results = []
    with tempfile.TemporaryDirectory() as work:
        for c in CASES + WEIGHT_CASES:
            try:
                ok, line = (check_weights if "w" in c else check)(c, args, work)
            except RuntimeError as e:
                ok, line = False, f"{c['name']}: run FAILED\n{e}"
            print(line, flush=True)
            results.append(ok)
    print(f"vjp: {sum(results)} of {len(results)} cases match finite differences in f64")
    print(f"vjp: {len(attached) - len(missing)} of {len(attached)} ops with a VJP model have a case"
          + (f"; none for {', '.join(missing)}" if missing else ""))
    return 0 if all(results) and not missing else 1


if __name__ == "__main__":
    sys.exit(main())
