"""dsmp-expand-f8-extensions against ml_dtypes, for every code of the four f8
formats.

  f8_codes.py module            -> MLIR on stdout: @main widens the 256
                                   codes of each format with arith.extf and
                                   prints them (printMemrefF32), for
                                   mlir-runner once the pass has run
  f8_codes.py check LOG         -> compares what mlir-runner printed with
                                   ml_dtypes' values (NaN for NaN, else
                                   within 1e-5 relative: six digits printed)
"""
import re
import sys

import ml_dtypes
import numpy as np

FORMATS = [("f8E4M3FN", ml_dtypes.float8_e4m3fn),
           ("f8E5M2", ml_dtypes.float8_e5m2),
           ("f8E4M3FNUZ", ml_dtypes.float8_e4m3fnuz),
           ("f8E5M2FNUZ", ml_dtypes.float8_e5m2fnuz)]


def module():
    codes = ", ".join(str(c - 256 if c > 127 else c) for c in range(256))
    lines = ["#id = affine_map<(d0) -> (d0)>",
             "func.func private @printMemrefF32(memref<*xf32>) "
             "attributes {llvm.emit_c_interface}",
             "func.func @main() {",
             f"  %codes = arith.constant dense<[{codes}]> : tensor<256xi8>",
             "  %empty = tensor.empty() : tensor<256xf32>"]
    for name, _ in FORMATS:
        lines += [
            f"  %{name} = linalg.generic {{indexing_maps = [#id, #id], "
            "iterator_types = [\"parallel\"]} ins(%codes : tensor<256xi8>) "
            "outs(%empty : tensor<256xf32>) {",
            "  ^bb0(%c: i8, %o: f32):",
            f"    %x = arith.bitcast %c : i8 to {name}",
            f"    %y = arith.extf %x : {name} to f32",
            "    linalg.yield %y : f32",
            "  } -> tensor<256xf32>",
            f"  %m{name} = bufferization.to_buffer %{name} : tensor<256xf32> "
            "to memref<256xf32>",
            f"  %u{name} = memref.cast %m{name} : memref<256xf32> to "
            "memref<*xf32>",
            f"  func.call @printMemrefF32(%u{name}) : (memref<*xf32>) -> ()"]
    lines += ["  return", "}"]
    print("\n".join(lines))


def check(log):
    blocks = open(log).read().split("Unranked Memref")[1:]
    if len(blocks) != len(FORMATS):
        sys.exit(f"{len(blocks)} results printed, {len(FORMATS)} expected")
    failures = 0
    for (name, dtype), block in zip(FORMATS, blocks):
        words = re.findall(r"-?nan|-?inf|[-+0-9.e]+", block.split("data =")[1])
        got = np.array([float(w) for w in words], np.float64)
        want = np.arange(256, dtype=np.uint8).view(dtype).astype(np.float64)
        nan = np.isnan(want)
        ok = np.array_equal(np.isnan(got), nan)
        with np.errstate(invalid="ignore"):
            close = (got == want) | (np.abs(got - want) <= 1e-5 * np.abs(want))
        bad = [c for c in range(256) if not nan[c] and not close[c]]
        if not ok or bad:
            failures += 1
            print(f"{name}: codes {bad[:8]} differ (NaNs {'match' if ok else 'differ'})")
        else:
            print(f"{name}: 256 codes match ml_dtypes "
                  f"({int(nan.sum())} NaN, {int(np.isinf(want).sum())} inf)")
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    if sys.argv[1] == "module":
        module()
    else:
        check(sys.argv[2])
