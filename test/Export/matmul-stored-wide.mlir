// An f16 MatMul that stores its product in f32 (dsmp-minimize-casts folds
// the widening cast of a language model's logits into it) has no ONNX node:
// the export reads f32 copies of its operands into an f32 MatMul, which
// gives the same values, and says nothing about a missing type (ONNX has
// f16 MatMul; the node is widened for its f32 result). A Gemm with an f16
// bias exports the same way, its bias widened too.
// onnx.checker (full check) accepts the model, and onnxruntime's run agrees
// with a float64 numpy product of the f16-rounded operands (2e-6 relative).
// RUN: dsmp-translate --export-onnx %s -o %t.onnx 2>&1 | FileCheck %s --check-prefix=NOTE --allow-empty
// RUN: %dsmp_python %S/Inputs/check_stored_wide.py %t.onnx | FileCheck %s
// NOTE-NOT: note:
// CHECK: checker: ok
// CHECK: Cast x -> [[XH:x_f16[_0-9]*]] to=FLOAT16
// CHECK-DAG: Cast [[XH]] -> [[XH]]_f32 to=FLOAT
// CHECK-DAG: Cast e_f16 -> e_f16_f32 to=FLOAT
// CHECK: MatMul logits{{[_0-9]*}} inputs=FLOAT,FLOAT outputs=FLOAT
// CHECK-DAG: Cast b_f16 -> b_f16_f32 to=FLOAT
// CHECK: Gemm head{{[_0-9]*}} inputs=FLOAT,FLOAT,FLOAT outputs=FLOAT
// CHECK-NOT: Cast
// CHECK: logits: relative error {{.*}} within 2e-6
// CHECK: head: relative error {{.*}} within 2e-6

module {
  func.func @main_graph(%x: tensor<3x8xf32> {dsmp.name = "x"})
      -> (tensor<3x5xf32> {dsmp.name = "logits"}, tensor<3x5xf32> {dsmp.name = "head"}) {
    %xh = dsmp.cast %x : (tensor<3x8xf32>) -> tensor<3x8xf16> loc("x_f16")
    %e = dsmp.constant dense<[[0.5, -1.0, 0.25, 1.5, 0.75], [-0.5, 2.0, -0.125, 1.0, 0.3],
                              [1.0, 0.0, 0.0, 0.1, 1.0], [0.3, 0.3, -0.3, 0.3, 0.3],
                              [-1.0, 2.0, -1.0, 2.0, -4.0], [0.1, 0.2, 0.3, 0.4, 0.5],
                              [0.6, 0.7, 0.8, 0.9, -0.9], [1.25, -0.375, 0.0625, 3.0, -2.5]]> : tensor<8x5xf16> loc("e_f16")
    %y = dsmp.matmul %xh, %e : (tensor<3x8xf16>, tensor<8x5xf16>) -> tensor<3x5xf32> loc("logits")
    %b = dsmp.constant dense<[0.5, -0.25, 1.0, 0.0, 2.0]> : tensor<5xf16> loc("b_f16")
    %g = dsmp.gemm %xh, %e, %b : (tensor<3x8xf16>, tensor<8x5xf16>, tensor<5xf16>) -> tensor<3x5xf32> loc("head")
    return %y, %g : tensor<3x5xf32>, tensor<3x5xf32>
  }
}
