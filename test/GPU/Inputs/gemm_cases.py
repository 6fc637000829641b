"""Writes the GEMMs of gemm-library.test: one dsmp IR model per case and
its inputs with the expected output (numpy, float64 then rounded) in
ONNX's test_data_set layout.

  gemm_cases.py OUT   -> OUT/NAME.mlir, OUT/NAME/input_K.pb, output_0.pb

The f32 cases read their operands as inputs. The FP8 cases (E4M3 codes
dequantized with scale 1 into a Gemm, as the precision passes write an f8
contraction) hold them as constants, which the runtime uploads at load:
the stand-in driver runs no kernels, so operands quantized on the device
could not be made there.
"""
import os
import sys

import ml_dtypes
import numpy as np
from onnx import numpy_helper

CASES = {
    # C[32, 16] = A[32, 64] B[64, 16]
    "plain": ("dsmp.matmul %a, %b : (tensor<32x64xf32>, tensor<64x16xf32>) "
              "-> tensor<32x16xf32>", [(32, 64), (64, 16)],
              lambda a, b: a @ b),
    # Gemm with transB: B stored [16, 64], read transposed
    "trans_b": ("dsmp.gemm %a, %b, %n {transB = 1 : i64} : (tensor<32x64xf32>, "
                "tensor<16x64xf32>, none) -> tensor<32x16xf32>",
                [(32, 64), (16, 64)], lambda a, b: a @ b.T),
    # three independent products
    "batched": ("dsmp.matmul %a, %b : (tensor<3x32x64xf32>, tensor<3x64x16xf32>) "
                "-> tensor<3x32x16xf32>", [(3, 32, 64), (3, 64, 16)],
                lambda a, b: a @ b),
}


# name: B transposed (the "TN" form cuBLASLt's FP8 GEMMs take) or not
F8_CASES = {"f8_trans_b": True, "f8_plain": False}


def f8_case(out, name, trans_b, rng):
    a = (rng.standard_normal((32, 64)) * 4).astype(ml_dtypes.float8_e4m3fn)
    b_shape = (16, 64) if trans_b else (64, 16)
    b = (rng.standard_normal(b_shape) * 4).astype(ml_dtypes.float8_e4m3fn)
    wide_b = b.astype(np.float64)
    c = (a.astype(np.float64) @ (wide_b.T if trans_b else wide_b)).astype(
        np.float32)

    def constant(name, x):
        dims = "x".join(map(str, x.shape))
        return (f"  %{name} = dsmp.constant dense<\"0x"
                f"{x.view(np.uint8).tobytes().hex().upper()}\"> : "
                f"tensor<{dims}xf8E4M3FN>\n"
                f"  %d{name} = dsmp.dequantize_linear %{name}, %one, %z : "
                f"(tensor<{dims}xf8E4M3FN>, tensor<f32>, tensor<f8E4M3FN>) "
                f"-> tensor<{dims}xf32>\n")
    tb = "x".join(map(str, b_shape))
    attrs = " {transB = 1 : i64}" if trans_b else ""
    with open(os.path.join(out, name + ".mlir"), "w") as f:
        f.write("func.func @main_graph() -> (tensor<32x16xf32> "
                "{dsmp.name = \"c\"}) {\n"
                "  %n = dsmp.none\n"
                "  %one = dsmp.constant dense<1.0> : tensor<f32>\n"
                "  %z = dsmp.constant dense<0.0> : tensor<f8E4M3FN>\n"
                + constant("a", a) + constant("b", b) +
                f"  %c = dsmp.gemm %da, %db, %n{attrs} : (tensor<32x64xf32>, "
                f"tensor<{tb}xf32>, none) -> tensor<32x16xf32>\n"
                "  return %c : tensor<32x16xf32>\n}\n")
    data = os.path.join(out, name)
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(c, "c").SerializeToString())


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(7)
    for name, trans_b in F8_CASES.items():
        f8_case(out, name, trans_b, rng)
    for name, (op, shapes, reference) in CASES.items():
        a = rng.standard_normal(shapes[0]).astype(np.float32)
        b = rng.standard_normal(shapes[1]).astype(np.float32)
        c = reference(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
        ta = "x".join(map(str, a.shape)) + "xf32"
        tb = "x".join(map(str, b.shape)) + "xf32"
        tc = "x".join(map(str, c.shape)) + "xf32"
        with open(os.path.join(out, name + ".mlir"), "w") as f:
            f.write(f"func.func @main_graph(%a: tensor<{ta}> {{dsmp.name = \"a\"}}, "
                    f"%b: tensor<{tb}> {{dsmp.name = \"b\"}}) -> "
                    f"(tensor<{tc}> {{dsmp.name = \"c\"}}) {{\n"
                    f"  %n = dsmp.none\n  %c = {op}\n"
                    f"  return %c : tensor<{tc}>\n}}\n")
        data = os.path.join(out, name)
        os.makedirs(data, exist_ok=True)
        for index, (tensor, tname) in enumerate([(a, "a"), (b, "b")]):
            with open(os.path.join(data, f"input_{index}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(tensor, tname).SerializeToString())
        with open(os.path.join(data, "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(c, "c").SerializeToString())


if __name__ == "__main__":
    main()
