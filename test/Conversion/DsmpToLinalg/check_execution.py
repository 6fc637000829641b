#!/usr/bin/env python3
"""Runs dsmp ops through `dsmp-opt --dsmp-lower-to-llvm` and mlir-runner on
seeded random inputs and compares each result with numpy.

Each case is one dsmp op (or a short chain) in a function that prints its
result with printMemrefF32. printMemrefF32 prints 6 significant digits, so
the tolerance is max |got - want| <= 2e-5 * max(1, max |want|). Prints one
line per case and "N passed, M failed"; exit status 1 on any failure.

usage: check_execution.py BIN WORKDIR
"""
import math
import os
import re
import subprocess
import sys

import numpy as np

bin_dir, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(7)
LLVM = "/usr/lib/llvm-22"


def ty(a):
    dtype = {np.float32: "f32", np.bool_: "i1", np.int64: "i64"}[a.dtype.type]
    return "tensor<" + "".join(f"{d}x" for d in a.shape) + dtype + ">"


def dense(a):
    if a.dtype == np.bool_:
        body = np.array2string(a.astype(int), separator=", ", threshold=10**9)
        body = body.replace("1", "true").replace("0", "false")
    else:
        body = np.array2string(a, separator=", ", threshold=10**9,
                               floatmode="unique", max_line_width=10**9)
    return f"dense<{body}> : {ty(a)}"


def run_case(name, inputs, body, result_type):
    lines = ["func.func private @printMemrefF32(tensor<*xf32>)",
             "func.func @main() {"]
    for i, a in enumerate(inputs):
        lines.append(f"  %in{i} = dsmp.constant {dense(a)}")
    lines += ["  " + l for l in body.strip().splitlines()]
    lines.append(f"  %u = tensor.cast %out : {result_type} to tensor<*xf32>")
    lines.append("  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()")
    lines += ["  return", "}"]
    src = os.path.join(work, name + ".mlir")
    lowered = os.path.join(work, name + ".llvm.mlir")
    with open(src, "w") as f:
        f.write("\n".join(lines) + "\n")
    r = subprocess.run([f"{bin_dir}/dsmp-opt", src, "--dsmp-lower-to-llvm",
                        "-o", lowered], capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr.strip().splitlines()[0]
    r = subprocess.run([f"{LLVM}/bin/mlir-runner", lowered, "-e", "main",
                        "-entry-point-result=void",
                        f"-shared-libs={LLVM}/lib/libmlir_c_runner_utils.so,"
                        f"{LLVM}/lib/libmlir_runner_utils.so"],
                       capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr.strip()[:300]
    data = r.stdout.split("data =", 1)[1]
    values = [float(v) for v in re.findall(r"-?(?:inf|nan|[0-9.]+(?:e[-+]?[0-9]+)?)", data)]
    return np.array(values, np.float64), None


def f32(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, shape).astype(np.float32)


def unary(op, ref, x=None):
    x = f32(2, 3, 4) if x is None else x
    return (op, [x], f"%out = dsmp.{op} %in0 : ({ty(x)}) -> {ty(x)}", ty(x),
            ref(x.astype(np.float64)))


def binary(op, ref, a, b):
    out = np.broadcast_shapes(a.shape, b.shape)
    t = ty(np.zeros(out, np.float32))
    return (op + "_" + "x".join(map(str, b.shape)), [a, b],
            f"%out = dsmp.{op} %in0, %in1 : ({ty(a)}, {ty(b)}) -> {t}", t,
            ref(a.astype(np.float64), b.astype(np.float64)))


erf = np.vectorize(math.erf)
sigmoid = lambda x: 1 / (1 + np.exp(-x))
cases = [
    unary("relu", lambda x: np.maximum(x, 0)),
    unary("neg", lambda x: -x),
    unary("abs", np.abs),
    unary("exp", np.exp),
    unary("log", np.log, f32(3, 4, low=0.1, high=4)),
    unary("sqrt", np.sqrt, f32(3, 4, low=0.0, high=4)),
    unary("tanh", np.tanh),
    unary("erf", erf),
    unary("sigmoid", sigmoid),
    unary("reciprocal", lambda x: 1 / x, f32(5, low=0.5, high=3)),
    unary("floor", np.floor),
    unary("ceil", np.ceil),
    unary("sin", np.sin),
    binary("add", np.add, f32(2, 3, 4), f32(4)),
    binary("add", np.add, f32(2, 3, 4), f32(2, 1, 4)),
    binary("sub", np.subtract, f32(2, 3), f32(1, 3)),
    binary("mul", np.multiply, f32(3, 1), f32(1, 5)),
    binary("div", np.divide, f32(2, 3), f32(3, low=0.5, high=2)),
    binary("pow", np.power, f32(2, 3, low=0.1, high=2), f32(3, low=-2, high=2)),
    binary("max", np.maximum, f32(2, 3), f32(3)),
    binary("min", np.minimum, f32(2, 3), f32(2, 1)),
]

x = f32(2, 5)
cases.append(("leaky_relu", [x],
              f"%out = dsmp.leaky_relu %in0 {{alpha = 0.2 : f32}} : ({ty(x)}) -> {ty(x)}",
              ty(x), np.where(x < 0, np.float32(0.2) * x, x)))
cases.append(("hard_sigmoid", [x],
              f"%out = dsmp.hard_sigmoid %in0 : ({ty(x)}) -> {ty(x)}", ty(x),
              np.clip(np.float32(0.2) * x + np.float32(0.5), 0, 1)))
lo, hi = np.array(-0.5, np.float32), np.array(0.75, np.float32)
cases.append(("clip", [x, lo, hi],
              f"%out = dsmp.clip %in0, %in1, %in2 : ({ty(x)}, {ty(lo)}, {ty(hi)}) -> {ty(x)}",
              ty(x), np.clip(x, lo, hi)))
a, b, c = f32(3), f32(2, 3), f32(2, 1)
cases.append(("sum3", [a, b, c],
              f"%out = dsmp.sum %in0, %in1, %in2 : ({ty(a)}, {ty(b)}, {ty(c)}) -> {ty(b)}",
              ty(b), a.astype(np.float64) + b + c))
cond = rng.random((2, 3)) < 0.5
cases.append(("where", [cond, b, a],
              f"%out = dsmp.where %in0, %in1, %in2 : ({ty(cond)}, {ty(b)}, {ty(a)}) -> {ty(b)}",
              ty(b), np.where(cond, b, a)))
cases.append(("greater_cast", [b, a],
              f"%g = dsmp.greater %in0, %in1 : ({ty(b)}, {ty(a)}) -> tensor<2x3xi1>\n"
              f"%out = dsmp.cast %g : (tensor<2x3xi1>) -> {ty(b)}",
              ty(b), (b > a).astype(np.float32)))
# To bool, nonzero is true: 0.5 and -0.25 too (not a float-to-int
# conversion), and 2 through an integer too (not its low bit).
z = np.array([[0, 0.5, -2, 1], [2, 0, -0.25, 3]], np.float32)
cases.append(("cast_bool", [z],
              f"%b = dsmp.cast %in0 : ({ty(z)}) -> tensor<2x4xi1>\n"
              f"%out = dsmp.cast %b : (tensor<2x4xi1>) -> {ty(z)}",
              ty(z), (z != 0).astype(np.float32)))
cases.append(("cast_int_bool", [z],
              f"%i = dsmp.cast %in0 : ({ty(z)}) -> tensor<2x4xi32>\n"
              f"%b = dsmp.cast %i : (tensor<2x4xi32>) -> tensor<2x4xi1>\n"
              f"%out = dsmp.cast %b : (tensor<2x4xi1>) -> {ty(z)}",
              ty(z), (z.astype(np.int32) != 0).astype(np.float32)))
# Integer reductions (BEiT's relative position index sums int64 coordinates).
ints = rng.integers(-50, 50, (3, 4)).astype(np.int64)
for op, ref in (("reduce_sum", np.sum), ("reduce_max", np.max), ("reduce_min", np.min),
                ("reduce_prod", np.prod)):
    cases.append((op + "_i64", [ints],
                  "%a = dsmp.constant dense<[1]> : tensor<1xi64>\n"
                  f"%r = dsmp.{op} %in0, %a : ({ty(ints)}, tensor<1xi64>) -> tensor<3x1xi64>\n"
                  "%out = dsmp.cast %r : (tensor<3x1xi64>) -> tensor<3x1xf32>",
                  "tensor<3x1xf32>", ref(ints, axis=1, keepdims=True).astype(np.float64)))
h = f32(4, 4, low=-70000, high=70000)
cases.append(("cast_f16", [h],
              f"%t = dsmp.cast %in0 : ({ty(h)}) -> tensor<4x4xf16>\n"
              f"%out = dsmp.cast %t : (tensor<4x4xf16>) -> {ty(h)}",
              ty(h), h.astype(np.float16).astype(np.float32)))
A, B, C = f32(3, 5), f32(4, 5), f32(4)
cases.append(("gemm_transB_bias", [A, B, C],
              f"%out = dsmp.gemm %in0, %in1, %in2 {{transB = 1 : i64}} : ({ty(A)}, {ty(B)}, {ty(C)}) -> tensor<3x4xf32>",
              "tensor<3x4xf32>", A.astype(np.float64) @ B.T + C))
A2, B2, C2 = f32(5, 3), f32(5, 4), f32(3, 1)
cases.append(("gemm_transA_alpha_beta", [A2, B2, C2],
              f"%out = dsmp.gemm %in0, %in1, %in2 {{alpha = 0.5 : f32, beta = 2.0 : f32, transA = 1 : i64}} : ({ty(A2)}, {ty(B2)}, {ty(C2)}) -> tensor<3x4xf32>",
              "tensor<3x4xf32>", 0.5 * (A2.astype(np.float64).T @ B2) + 2.0 * C2))
M1, M2 = f32(2, 1, 3, 4), f32(5, 4, 6)
cases.append(("matmul_batched", [M1, M2],
              f"%out = dsmp.matmul %in0, %in1 : ({ty(M1)}, {ty(M2)}) -> tensor<2x5x3x6xf32>",
              "tensor<2x5x3x6xf32>", np.matmul(M1.astype(np.float64), M2)))
T = f32(2, 3, 4)
cases.append(("transpose", [T],
              f"%out = dsmp.transpose %in0 {{perm = array<i64: 2, 0, 1>}} : ({ty(T)}) -> tensor<4x2x3xf32>",
              "tensor<4x2x3xf32>", T.transpose(2, 0, 1)))
cases.append(("flatten_relu", [T],
              f"%f = dsmp.flatten %in0 {{axis = 2 : i64}} : ({ty(T)}) -> tensor<6x4xf32>\n"
              f"%out = dsmp.relu %f : (tensor<6x4xf32>) -> tensor<6x4xf32>",
              "tensor<6x4xf32>", np.maximum(T.reshape(6, 4), 0)))

# Formats in matmuls. tf32: inputs rounded to a 10-bit mantissa (ties away
# from zero), f32 accumulation. f16 inputs accumulating in f16 round every
# product and partial sum (k in order); accumulating in f32 rounds once.
def round_tf32(x):
    bits = x.astype(np.float32).view(np.uint32)
    special = (bits & 0x7F800000) == 0x7F800000
    rounded = (bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)
    return np.where(special, bits, rounded).astype(np.uint32).view(np.float32)


def sequential_matmul(a, b, acc):
    s = np.zeros((a.shape[0], b.shape[1]), acc)
    for k in range(a.shape[1]):
        product = (a[:, k:k + 1].astype(acc) * b[k:k + 1, :].astype(acc)).astype(acc)
        s = (s + product).astype(acc)
    return s


TA, TB = f32(8, 64), f32(64, 8)
cases.append(("matmul_tf32", [TA, TB],
              "%a = dsmp.cast %in0 : (tensor<8x64xf32>) -> tensor<8x64xtf32>\n"
              "%b = dsmp.cast %in1 : (tensor<64x8xf32>) -> tensor<64x8xtf32>\n"
              "%t = dsmp.matmul %a, %b : (tensor<8x64xtf32>, tensor<64x8xtf32>) -> tensor<8x8xtf32>\n"
              "%out = dsmp.cast %t : (tensor<8x8xtf32>) -> tensor<8x8xf32>",
              "tensor<8x8xf32>",
              round_tf32(TA).astype(np.float64) @ round_tf32(TB).astype(np.float64)))
HA, HB = f32(4, 256, low=0, high=4), f32(256, 4, low=0, high=4)
ha, hb = HA.astype(np.float16), HB.astype(np.float16)
for acc, dt in [("f16", np.float16), ("f32", np.float32)]:
    cases.append((f"matmul_f16_acc_{acc}", [HA, HB],
                  "%a = dsmp.cast %in0 : (tensor<4x256xf32>) -> tensor<4x256xf16>\n"
                  "%b = dsmp.cast %in1 : (tensor<256x4xf32>) -> tensor<256x4xf16>\n"
                  f"%h = dsmp.matmul %a, %b {{acc = #dsmp.format<{acc}>}} : (tensor<4x256xf16>, tensor<256x4xf16>) -> tensor<4x4xf16>\n"
                  "%out = dsmp.cast %h : (tensor<4x4xf16>) -> tensor<4x4xf32>",
                  "tensor<4x4xf32>",
                  sequential_matmul(ha, hb, dt).astype(np.float16).astype(np.float32)))

# ConvTranspose (scatter-add reference) and nearest Resize.
def conv_transpose_ref(x, w, s, pads):
    n, c, h, wd = x.shape
    _, f, kh, kw = w.shape
    out = np.zeros((n, f, (h - 1) * s + kh, (wd - 1) * s + kw))
    for i in range(h):
        for j in range(wd):
            out[:, :, i * s:i * s + kh, j * s:j * s + kw] += np.einsum(
                "nc,cfab->nfab", x[:, :, i, j].astype(np.float64), w)
    return out[:, :, pads:out.shape[2] - pads, pads:out.shape[3] - pads]


X, W = f32(1, 2, 3, 3), f32(2, 3, 3, 3)
for stride, pad in [(2, 0), (2, 1), (1, 1)]:
    ref = conv_transpose_ref(X, W, stride, pad)
    t = ty(ref.astype(np.float32))
    cases.append((f"conv_transpose_s{stride}_p{pad}", [X, W],
                  "%n = dsmp.none\n"
                  f"%out = dsmp.conv_transpose %in0, %in1, %n {{strides = array<i64: {stride}, {stride}>, pads = array<i64: {pad}, {pad}, {pad}, {pad}>}} : ({ty(X)}, {ty(W)}, none) -> {t}",
                  t, ref))
# Kernels that tile the output (stride == kernel, no pads): one product and
# a depthwise-to-space, not a convolution over a zero-spread input.
for k in (2, 3):
    XT, WT = f32(1, 3, 4, 5), f32(3, 2, k, k)
    ref = conv_transpose_ref(XT, WT, k, 0)
    t = ty(ref.astype(np.float32))
    cases.append((f"conv_transpose_tiled_k{k}", [XT, WT],
                  "%n = dsmp.none\n"
                  f"%out = dsmp.conv_transpose %in0, %in1, %n {{strides = array<i64: {k}, {k}>, kernel_shape = array<i64: {k}, {k}>}} : ({ty(XT)}, {ty(WT)}, none) -> {t}",
                  t, ref))
# Grouped (depthwise-like) ConvTranspose: each group transposes on its own.
XG, WG = f32(1, 4, 3, 3), f32(4, 2, 3, 3)
refg = np.concatenate([conv_transpose_ref(XG[:, 2 * g:2 * g + 2], WG[2 * g:2 * g + 2], 2, 1)
                       for g in range(2)], axis=1)
tg = ty(refg.astype(np.float32))
cases.append(("conv_transpose_group2", [XG, WG],
              "%n = dsmp.none\n"
              f"%out = dsmp.conv_transpose %in0, %in1, %n {{group = 2 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}} : ({ty(XG)}, {ty(WG)}, none) -> {tg}",
              tg, refg))
R = f32(1, 2, 3, 4)
def nearest_ref(x, scale, index):
    out = np.empty(x.shape[:2] + tuple(int(np.floor(d * scale)) for d in x.shape[2:]), x.dtype)
    ih = [min(max(index(o, scale), 0), x.shape[2] - 1) for o in range(out.shape[2])]
    iw = [min(max(index(o, scale), 0), x.shape[3] - 1) for o in range(out.shape[3])]
    return x[:, :, ih][:, :, :, iw]
for mode, nearest, scale, index in [
        ("asymmetric", "floor", 2.0, lambda o, s: int(np.floor(o / s))),
        ("half_pixel", "round_prefer_floor", 1.5,
         lambda o, s: int(np.floor(x)) if (x := (o + 0.5) / s - 0.5) == np.floor(x) + 0.5 else int(np.round(x)))]:
    ref = nearest_ref(R, scale, index)
    sc = np.array([1, 1, scale, scale], np.float32)
    cases.append((f"resize_{mode}", [R, sc],
                  "%n = dsmp.none\n"
                  f"%out = dsmp.resize %in0, %n, %in1, %n {{coordinate_transformation_mode = \"{mode}\", nearest_mode = \"{nearest}\"}} : ({ty(R)}, none, {ty(sc)}, none) -> {ty(ref)}",
                  ty(ref), ref))

# If: scf.if on a computed one-element condition, both branches lowered.
V = f32(2, 3)
for name, a, b in [("if_then", 1.0, 0.0), ("if_else", 0.0, 1.0)]:
    A, B = np.array([a], np.float32), np.array([b], np.float32)
    cases.append((name, [A, B, V],
                  "%c = dsmp.greater %in0, %in1 : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xi1>\n"
                  "%out = dsmp.if %c : tensor<1xi1> -> tensor<2x3xf32> {\n"
                  "  %r = dsmp.relu %in2 : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
                  "  dsmp.yield %r : tensor<2x3xf32>\n"
                  "} else {\n"
                  "  %n = dsmp.neg %in2 : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
                  "  dsmp.yield %n : tensor<2x3xf32>\n"
                  "}",
                  "tensor<2x3xf32>", np.maximum(V, 0) if a > b else -V))

passed = failed = 0
for name, inputs, body, result_type, want in cases:
    got, error = run_case(name, inputs, body, result_type)
    want = np.asarray(want, np.float64).ravel()
    if error is None and got.shape != want.shape:
        error = f"{got.size} values printed, expected {want.size}"
    if error is None:
        err = float(np.max(np.abs(got - want))) if want.size else 0.0
        tol = 2e-5 * max(1.0, float(np.max(np.abs(want))))
        if name.startswith("matmul_f16"):
            tol = 0.0  # the same f16 values, bit for bit
        if err > tol:
            error = f"max abs error {err:.3e} > {tol:.3e}"
    if error:
        failed += 1
        print(f"FAIL {name}: {error}")
    else:
        passed += 1
        print(f"ok   {name}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
