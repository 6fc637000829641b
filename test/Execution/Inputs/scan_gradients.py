"""dsmp.scan_gradients against numpy.

`make DIR FORMAT [--finite]`: writes DIR/scan.mlir (one scan over gradients of several
shapes: sizes below, at and above the lanes of both layouts, ragged tails,
a scalar, an empty one and an f16 gradient) and DIR/data/input_K.pb
holding random values with zeros, infs, NaNs and values below FORMAT's
smallest normal planted in them (with --finite, no infs or NaNs), with
numpy's results as DIR/data/output_K.pb; and DIR/run.mlir, the same scan called
from a @main that holds the inputs as constants and prints the results
(printMemrefF32), for mlir-runner (the empty gradient left out: a dense
constant cannot be empty).
`check DIR OUT FORMAT`: compares OUT/output_K.pb (the artifact's results)
with numpy's: unscaled values exactly (one f32 product each), amax, the
counts exactly, the sum of squares within 1e-5 relative (the order of the
additions differs). `check-printed DIR LOG FORMAT`: the same for the
results mlir-runner printed to LOG, within 1e-5 relative (six digits).
"""
import os
import re
import sys

import numpy as np
import onnx
from onnx import numpy_helper

SHAPES = [(37, 5), (3,), (2, 3, 4, 20), (), (0, 4), (16384,), (130, 257),
          (40000,)]
F16_GRADIENT = 2  # this one arrives as f16 (a backward pass in f16)
INVERSE_SCALE = np.float32(2.0 ** -12)


def smallest_normal(fmt):
    return {"f16": 2.0 ** -14, "bf16": 2.0 ** -126, "f32": 2.0 ** -126,
            "f8E4M3FN": 2.0 ** -6, "f8E5M2": 2.0 ** -14}[fmt]


def element_name(array):
    return {"float32": "f32", "float16": "f16"}[str(array.dtype)]


def tensor_type(shape, element="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def gradients(fmt, finite=False):
    """finite: zeros and tiny values planted, no infs or NaNs (for
    `dsmprt-run --compare`, which cannot weigh errors beside an inf)."""
    rng = np.random.default_rng(7)
    tiny = smallest_normal(fmt)
    out = []
    for i, shape in enumerate(SHAPES):
        g = (rng.standard_normal(shape) * 3000.0).astype(np.float32)
        flat = g.reshape(-1)
        n = flat.size
        if n >= 8:
            picks = rng.choice(n, size=min(n // 4, 4000), replace=False)
            kinds = rng.integers(0, 5, size=picks.size)
            if finite:
                kinds = kinds % 2 * 3  # 0 or 3: zero or tiny
            for k, kind in zip(picks, kinds):
                flat[k] = [0.0, np.inf, -np.nan, tiny * rng.uniform(0.01, 0.99),
                           -np.inf][kind]
        if i == F16_GRADIENT:
            g = g.astype(np.float16)
        out.append(g)
    return out


def scan_function(grads, fmt, name="main_graph"):
    """The scan over `grads` as a function of an inverse scale and them."""
    args = ['%inv: tensor<f32> {dsmp.name = "inverse_scale"}']
    args += [f'%g{i}: {tensor_type(g.shape, element_name(g))} '
             f'{{dsmp.name = "g{i}"}}' for i, g in enumerate(grads)]
    outs = [f'{tensor_type(g.shape)} {{dsmp.name = "u{i}"}}'
            for i, g in enumerate(grads)]
    outs.append(f'tensor<{len(grads)}x5xf32> {{dsmp.name = "stats"}}')
    names = ", ".join(f"%u{i}" for i in range(len(grads))) + ", %s"
    in_types = ["tensor<f32>"] + [tensor_type(g.shape, element_name(g))
                                  for g in grads]
    out_types = [tensor_type(g.shape) for g in grads]
    out_types.append(f"tensor<{len(grads)}x5xf32>")
    lines = [
        f"func.func @{name}({', '.join(args)}) -> ({', '.join(outs)}) {{",
        f"  {names} = dsmp.scan_gradients %inv, "
        + ", ".join(f"%g{i}" for i in range(len(grads)))
        + f" {{format = {fmt}}} : ({', '.join(in_types)}) -> "
        f"({', '.join(out_types)})",
        f"  return {names} : {', '.join(out_types)}",
        "}"]
    return lines, in_types, out_types


def hex_constant(v, element):
    return (f'arith.constant dense<"0x{v.tobytes().hex().upper()}"> : '
            f"{tensor_type(v.shape, element)}")


def runner_module(grads, fmt):
    """@main: the inputs as constants, the scan, each result printed."""
    lines, in_types, out_types = scan_function(grads, fmt, "scan")
    lines.append("func.func private @printMemrefF32(memref<*xf32>) "
                 "attributes {llvm.emit_c_interface}")
    lines.append("func.func @main() {")
    lines.append(f"  %inv = {hex_constant(np.array(INVERSE_SCALE), 'f32')}")
    for i, g in enumerate(grads):
        lines.append(f"  %g{i} = {hex_constant(g, element_name(g))}")
    results = ", ".join(f"%r{i}" for i in range(len(out_types)))
    lines.append(f"  {results} = func.call @scan(%inv, "
                 + ", ".join(f"%g{i}" for i in range(len(grads)))
                 + f") : ({', '.join(in_types)}) -> ({', '.join(out_types)})")
    for i, t in enumerate(out_types):
        m = t.replace("tensor<", "memref<")
        lines.append(f"  %m{i} = bufferization.to_buffer %r{i} : {t} to {m}")
        lines.append(f"  %p{i} = memref.cast %m{i} : {m} to memref<*xf32>")
        lines.append(f"  func.call @printMemrefF32(%p{i}) : "
                     "(memref<*xf32>) -> ()")
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def statistics(g, fmt):
    """numpy's row of stats for gradient g (the sum of squares in f64)."""
    x = g.astype(np.float32).reshape(-1)
    finite = x[~np.isnan(x)]
    magnitude = np.abs(x)
    with np.errstate(over="ignore", invalid="ignore"):
        squares = np.sum((x * INVERSE_SCALE).astype(np.float64) ** 2)
    return [np.max(np.abs(finite)) if finite.size else 0.0,
            np.sum((magnitude > 0) & (magnitude < smallest_normal(fmt))),
            np.sum(np.isinf(x)), np.sum(np.isnan(x)), squares]


def expected(grads, fmt):
    """numpy's results: each gradient unscaled, then the stats rows."""
    rows = np.array([statistics(g, fmt) for g in grads], np.float32)
    return [g.astype(np.float32) * INVERSE_SCALE for g in grads] + \
        [rows.reshape(len(grads), 5)]


def make(folder, fmt, finite=False):
    os.makedirs(os.path.join(folder, "data"), exist_ok=True)
    grads = gradients(fmt, finite)
    with open(os.path.join(folder, "run.mlir"), "w") as f:
        f.write(runner_module([g for g in grads if g.size], fmt))
    lines, _, _ = scan_function(grads, fmt)
    with open(os.path.join(folder, "scan.mlir"), "w") as f:
        f.write("\n".join(lines) + "\n")
    values = [np.array(INVERSE_SCALE, np.float32)] + grads
    names = ["inverse_scale"] + [f"g{i}" for i in range(len(grads))]
    for k, (name, v) in enumerate(zip(names, values)):
        with open(os.path.join(folder, "data", f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v, name).SerializeToString())
    names = [f"u{i}" for i in range(len(grads))] + ["stats"]
    for k, (name, v) in enumerate(zip(names, expected(grads, fmt))):
        with open(os.path.join(folder, "data", f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v, name).SerializeToString())


def saved_results(out, count):
    results = []
    for k in range(count):
        t = onnx.TensorProto()
        with open(os.path.join(out, f"output_{k}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        results.append(numpy_helper.to_array(t))
    return results


def printed_results(log):
    """The memrefs printMemrefF32 wrote, in order, flattened."""
    text = open(log).read()
    results = []
    for block in text.split("Unranked Memref")[1:]:
        data = block.split("data =", 1)[1]
        words = re.findall(r"-?nan|-?inf|[-+0-9.e]+", data)
        results.append(np.array([float(w) for w in words], np.float32))
    return results


def same(got, want, rtol):
    """Equal (NaN to NaN), or within rtol relative where printed with six
    digits."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if rtol == 0:
        return np.array_equal(got, want, equal_nan=True)
    nan = np.isnan(want)
    if not np.array_equal(np.isnan(got), nan):
        return False
    with np.errstate(invalid="ignore"):
        close = (got == want) | (np.abs(got - want) <= rtol * np.abs(want))
    return bool(np.all(close[~nan]))


def check(grads, results, fmt, rtol):
    """rtol 0: exact; printed results hold six significant digits."""
    failures = 0
    stats = results[-1].reshape(-1, 5)
    for i, g in enumerate(grads):
        u = g.astype(np.float32).reshape(-1) * INVERSE_SCALE
        if not same(results[i].reshape(-1), u, rtol):
            print(f"g{i} {g.shape}: unscaled values differ")
            failures += 1
        want = statistics(g, fmt)
        row = stats[i]
        for c, name in enumerate(["amax", "underflows", "infs", "nans"]):
            if not same(row[c], np.float32(want[c]), rtol):
                print(f"g{i} {g.shape}: {name} {row[c]} != {want[c]}")
                failures += 1
        if np.isfinite(want[4]):
            if abs(row[4] - want[4]) > 1e-5 * abs(want[4]):
                print(f"g{i} {g.shape}: sum of squares {row[4]} != {want[4]}")
                failures += 1
        elif not (np.isinf(row[4]) or np.isnan(row[4])):
            print(f"g{i} {g.shape}: sum of squares {row[4]} is finite")
            failures += 1
        print(f"g{i} {str(g.shape):14} amax {row[0]:.6g} underflows "
              f"{int(row[1])} infs {int(row[2])} nans {int(row[3])}")
    if failures:
        sys.exit(f"{failures} mismatches")
    print("scan_gradients matches numpy")


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "make":  # make DIR FORMAT [--finite]
        make(sys.argv[2], sys.argv[3], "--finite" in sys.argv[4:])
    elif command == "check":
        grads = gradients(sys.argv[4])
        check(grads, saved_results(sys.argv[3], len(grads) + 1), sys.argv[4],
              0)
    else:  # check-printed
        grads = [g for g in gradients(sys.argv[4]) if g.size]
        check(grads, printed_results(sys.argv[3]), sys.argv[4], 1e-5)
