"""Writes the f32 GEMMs of gemm-library.test: one dsmp IR model per case and
its inputs with the expected output (numpy, float64 then rounded) in
ONNX's test_data_set layout.

  gemm_cases.py OUT   -> OUT/NAME.mlir, OUT/NAME/input_K.pb, output_0.pb
"""
import os
import sys

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


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(7)
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
