#!/usr/bin/env python3
"""Check every VJPOpInterface model against finite differences.

For each single-op graph: dsmp-opt --dsmp-test-adjoint makes it return the
gradient g of <s, f(x)> for a random seed s (and, for a contraction with
constant weights W, its gradient with respect to W, checked by perturbing
the constant); dsmp-run runs that (compiled, and in the reference
evaluator, which must agree to 1e-5) and the forward graph at x +- h d for
a random direction d. The check is
<g, d> == (<s, f(x + h d)> - <s, f(x - h d)>) / 2h within --rtol of
max(|lhs|, |rhs|, scale). Prints one line per op and a summary.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

RNG = np.random.default_rng(7)


def dense(a):
    return "dense<" + np.array2string(np.asarray(a, np.float32), separator=", ", threshold=10**9,
                                      floatmode="unique").replace("\n", "") + ">"


def ty(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + ("x" if shape else "") + "f32>"


def const(name, a):
    return f"%{name} = dsmp.constant {dense(a)} : {ty(np.shape(a))}"


def case(name, inputs, body, out_shape, positive=False):
    """inputs: list of shapes; body uses %x0.. and defines %y."""
    return dict(name=name, inputs=inputs, body=body, out=out_shape, positive=positive)


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
    case("reduce_mean", [[2, 3, 4]], const("a", np.array([1], np.int64)).replace("f32", "i64").replace("1.", "1") +
         "\n%y = dsmp.reduce_mean %x0, %a {keepdims = 0 : i64} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>", [2, 4]),
    case("reduce_sum", [[2, 3]], "%n = dsmp.none\n%y = dsmp.reduce_sum %x0, %n : (tensor<2x3xf32>, none) -> tensor<1x1xf32>", [1, 1]),
    case("reduce_max", [[2, 3, 4]], const("a", np.array([2], np.int64)).replace("f32", "i64").replace("2.", "2") +
         "\n%y = dsmp.reduce_max %x0, %a : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>", [2, 3, 1]),
    case("global_average_pool", [[1, 3, 4, 4]], "%y = dsmp.global_average_pool %x0 : (tensor<1x3x4x4xf32>) -> tensor<1x3x1x1xf32>", [1, 3, 1, 1]),
    case("average_pool", [[1, 2, 6, 6]], "%y = dsmp.average_pool %x0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>", [1, 2, 3, 3]),
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
    # Central differences of the op itself (finiteDifferenceVJP).
    *[case(op, [[2, 5]], f"%y = dsmp.{op} %x0 : (tensor<2x5xf32>) -> tensor<2x5xf32>", [2, 5])
      for op in ["hard_swish", "gelu", "mish", "elu", "selu", "softsign", "sin", "atan"]],
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
    case("dropout", [[2, 3]], "%n = dsmp.none\n"
         "%y, %m = dsmp.dropout %x0, %n, %n : (tensor<2x3xf32>, none, none) -> (tensor<2x3xf32>, none)", [2, 3]),
]


def wcase(name, x_shape, w, body, out_shape):
    """A contraction with constant weights `w` (body uses %x0 and {w})."""
    return dict(name=name, inputs=[x_shape], w=np.asarray(w, np.float32), body=body,
                out=out_shape, positive=False)


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

def write_inputs(folder, arrays):
    os.makedirs(folder, exist_ok=True)
    for i, (name, a) in enumerate(arrays):
        t = numpy_helper.from_array(np.asarray(a, np.float32), name)
        with open(os.path.join(folder, f"input_{i}.pb"), "wb") as f:
            f.write(t.SerializeToString())


def run_model(bin_dir, model, inputs, work, tag, engine="compile"):
    folder = os.path.join(work, tag)
    write_inputs(folder, inputs)
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
        result[t.name] = numpy_helper.to_array(t).astype(np.float64)
    return result


def graph(c, body, work, tag):
    params = ", ".join(f"%x{i}: {ty(s)} {{dsmp.name = \"x{i}\"}}" for i, s in enumerate(c["inputs"]))
    src = (f"func.func @main_graph({params}) -> ({ty(c['out'])} {{dsmp.name = \"y\"}}) {{\n"
           f"{body}\nreturn %y : {ty(c['out'])}\n}}\n")
    path = os.path.join(work, tag + ".mlir")
    with open(path, "w") as f:
        f.write(src)
    return path


def check_weights(c, args, work):
    tag = c["name"].replace(" ", "_")
    fwd = graph(c, c["body"].replace("{w}", dense(c["w"])), work, tag)
    adj = os.path.join(work, tag + ".adjoint.mlir")
    r = subprocess.run([os.path.join(args.bin, "dsmp-opt"), fwd, "--dsmp-test-adjoint", "-o", adj],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode or "warning" in r.stdout:
        return False, f"{c['name']}: dsmp-test-adjoint FAILED\n{r.stdout}"
    x = WRNG.standard_normal(c["inputs"][0])
    seed = WRNG.standard_normal(c["out"])
    d = WRNG.standard_normal(c["w"].shape)
    got = run_model(args.bin, adj, [("x0", x), ("seed_0", seed)], work, tag + ".g")
    evaluated = run_model(args.bin, adj, [("x0", x), ("seed_0", seed)], work, tag + ".e",
                          engine="evaluate")
    a, b = got["wgrad_0"], evaluated["wgrad_0"]
    if np.abs(a - b).max() > 1e-5 * max(1.0, np.abs(a).max()):
        return False, f"{c['name']}: evaluated weight gradient MISMATCH vs compiled: {np.abs(a - b).max():.3g}"
    lhs = float((got["wgrad_0"] * d).sum())
    h = args.step
    ys = [run_model(args.bin, graph(c, c["body"].replace("{w}", dense(c["w"] + sign * h * d)), work,
                                    tag + str(sign)), [("x0", x)], work, tag + str(sign) + ".r")["y"]
          for sign in (1, -1)]
    rhs = float(((ys[0] - ys[1]) * seed).sum()) / (2 * h)
    scale = max(abs(lhs), abs(rhs), 1e-3)
    ok = abs(lhs - rhs) <= args.rtol * scale
    return ok, f"{c['name']}: <dW, d> = {lhs:.6g}, finite difference {rhs:.6g} {'ok' if ok else 'MISMATCH'}"


def check(c, args, work):
    names = [f"x{i}" for i in range(len(c["inputs"]))]
    fwd = graph(c, c["body"], work, c["name"])
    adj = os.path.join(work, c["name"] + ".adjoint.mlir")
    r = subprocess.run([os.path.join(args.bin, "dsmp-opt"), fwd, "--dsmp-test-adjoint", "-o", adj],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode or "warning" in r.stdout:
        return False, f"{c['name']}: dsmp-test-adjoint FAILED\n{r.stdout}"
    xs = []
    for s in c["inputs"]:
        x = RNG.standard_normal(s)
        xs.append(np.abs(x) + 0.5 if c["positive"] else x)
    seed = RNG.standard_normal(c["out"])
    dirs = [RNG.standard_normal(s) for s in c["inputs"]]
    feed = list(zip(names, xs)) + [("seed_0", seed)]
    got = run_model(args.bin, adj, feed, work, c["name"] + ".g")
    # The analyses run adjoints in the reference evaluator: it must give the
    # compiled gradient (ops like dsmp.max_pool_grad differ in form).
    evaluated = run_model(args.bin, adj, feed, work, c["name"] + ".e", engine="evaluate")
    for i in range(len(dirs)):
        a, b = got[f"grad_{i}"], evaluated[f"grad_{i}"]
        if np.abs(a - b).max() > 1e-5 * max(1.0, np.abs(a).max()):
            return False, f"{c['name']}: evaluated gradient MISMATCH vs compiled: {np.abs(a - b).max():.3g}"
    lhs = sum(float((got[f"grad_{i}"] * d).sum()) for i, d in enumerate(dirs))
    h = args.step
    plus = run_model(args.bin, fwd, [(n, x + h * d) for n, x, d in zip(names, xs, dirs)], work, c["name"] + ".p")["y"]
    minus = run_model(args.bin, fwd, [(n, x - h * d) for n, x, d in zip(names, xs, dirs)], work, c["name"] + ".m")["y"]
    rhs = float(((plus - minus) * seed).sum()) / (2 * h)
    scale = max(abs(lhs), abs(rhs), 1e-3)
    ok = abs(lhs - rhs) <= args.rtol * scale
    return ok, f"{c['name']}: <grad, d> = {lhs:.6g}, finite difference {rhs:.6g} {'ok' if ok else 'MISMATCH'}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--rtol", type=float, default=5e-3)
    p.add_argument("--step", type=float, default=1e-3)
    args = p.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as work:
        for c in CASES + WEIGHT_CASES:
            try:
                ok, line = (check_weights if "w" in c else check)(c, args, work)
            except RuntimeError as e:
                ok, line = False, f"{c['name']}: run FAILED\n{e}"
            print(line, flush=True)
            results.append(ok)
    print(f"vjp: {sum(results)} of {len(results)} ops match finite differences")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
