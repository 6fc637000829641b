// A bf16 Conv has no ONNX form before opset 22: the export (opset 21) runs it
// in f32 between Casts, which rounds as dsmp does (bf16 operands, an f32
// computation, the result rounded once to bf16). A bf16 Transpose and an f16
// Conv have ONNX forms and stay as they are.
// onnx.checker accepts the model, and onnxruntime's run of it agrees with a
// float64 numpy convolution of the bf16-rounded operands, rounded to bf16.
// RUN: dsmp-translate --export-onnx %s -o %t.onnx 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: %dsmp_python %S/Inputs/check_widened.py %t.onnx | FileCheck %s
// NOTE: note: node 'conv_bf16' (Conv) runs in f32 between Casts: ONNX opset 21 Conv has no tensor(bfloat16)
// NOTE-NOT: note:
// CHECK: checker: ok
// CHECK: Cast x -> [[XB:x_bf16[_0-9]*]] to=BFLOAT16
// CHECK-DAG: Cast b_bf16 -> b_bf16_f32 to=FLOAT
// CHECK-DAG: Cast [[XB]] -> [[XB]]_f32 to=FLOAT
// CHECK-DAG: Cast w_bf16 -> w_bf16_f32 to=FLOAT
// CHECK: Conv conv_bf16 inputs=FLOAT,FLOAT,FLOAT outputs=FLOAT
// CHECK-NEXT: Cast [[C:conv_bf16[_0-9]*]]_f32 -> [[C]] to=BFLOAT16
// CHECK-NEXT: Transpose transposed_bf16 inputs=BFLOAT16 outputs=BFLOAT16
// CHECK: Conv conv_f16 inputs=FLOAT16,FLOAT16 outputs=FLOAT16
// CHECK: bf16 conv: 0 of 27 elements more than one bf16 ulp off
// CHECK: f16 conv: max error relative to the largest output {{.*}} within 2e-3

module {
  func.func @main_graph(%x: tensor<1x2x5x5xf32> {dsmp.name = "x"})
      -> (tensor<1x3x3x3xf32> {dsmp.name = "y"},
          tensor<1x3x3x3xf32> {dsmp.name = "h"}) {
    %n = dsmp.none
    %xb = dsmp.cast %x : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xbf16> loc("x_bf16")
    %w = dsmp.constant dense<[[[[0.5, -1.0, 0.25], [1.5, 0.75, -0.5], [2.0, -0.125, 1.0]],
                               [[-0.5, 0.5, 1.25], [0.0, -2.0, 0.375], [1.0, 1.0, -1.0]]],
                              [[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                               [[0.3, 0.3, 0.3], [0.3, 0.3, 0.3], [0.3, 0.3, 0.3]]],
                              [[[-1.0, 2.0, -1.0], [2.0, -4.0, 2.0], [-1.0, 2.0, -1.0]],
                               [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]]]]> : tensor<3x2x3x3xbf16> loc("w_bf16")
    %b = dsmp.constant dense<[0.5, -0.25, 1.0]> : tensor<3xbf16> loc("b_bf16")
    %c = dsmp.conv %xb, %w, %b : (tensor<1x2x5x5xbf16>, tensor<3x2x3x3xbf16>, tensor<3xbf16>) -> tensor<1x3x3x3xbf16> loc("conv_bf16")
    %r = dsmp.transpose %c {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x3x3x3xbf16>) -> tensor<1x3x3x3xbf16> loc("transposed_bf16")
    %y = dsmp.cast %r : (tensor<1x3x3x3xbf16>) -> tensor<1x3x3x3xf32> loc("y_f32")
    %xh = dsmp.cast %x : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf16> loc("x_f16")
    %wh = dsmp.cast %w : (tensor<3x2x3x3xbf16>) -> tensor<3x2x3x3xf16> loc("w_f16")
    %ch = dsmp.conv %xh, %wh, %n : (tensor<1x2x5x5xf16>, tensor<3x2x3x3xf16>, none) -> tensor<1x3x3x3xf16> loc("conv_f16")
    %h = dsmp.cast %ch : (tensor<1x3x3x3xf16>) -> tensor<1x3x3x3xf32> loc("h_f32")
    return %y, %h : tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>
  }
}
