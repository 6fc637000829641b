// RUN: rm -rf %t && mkdir -p %t/cal
// RUN: %dsmp_python %S/Inputs/write_tensor.py %t/cal/input_0.pb x 3x4 1,-2,3,-4,0.5,1.5,-2.5,3.5,-1,2,-3,4
// RUN: dsmp-opt %s --pass-pipeline="builtin.module(dsmp-auto-mixed-precision{target=sm_80 tolerance=1e-2 calibration=%t/cal})" > %t/assigned.mlir
// RUN: FileCheck %s --input-file=%t/assigned.mlir
// RUN: dsmp-opt %t/assigned.mlir --dsmp-specialize-shapes="shapes=x=3x4" | FileCheck %s --check-prefix=STATIC

/// A graph with a dynamic batch that squeezes the batch away when it is 1
/// (silero VAD's `if x.dim() == 1`): the If's result has a rank only at a
/// given batch, so it and the MatMul after it are unranked. The MatMul is
/// measured, ranged and assigned like any op (it was left f32 and out of
/// the report, its FLOPs uncounted), its operand cast in unranked types;
/// specialization then gives the casts the shapes of their inputs.
// CHECK: %[[R:.*]] = dsmp.if
// CHECK: %[[H:.*]] = dsmp.cast %[[R]] : (tensor<*xf32>) -> tensor<*xf16>
// CHECK: %[[Y:.*]] = dsmp.matmul %[[H]], %{{.*}} {{{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}}dsmp.flops = 96 : i64, dsmp.range = {{.*}}dsmp.reason = "sensitivity"{{.*}}} : (tensor<*xf16>, tensor<4x4xf16>) -> tensor<*xf16>
// CHECK: %[[W:.*]] = dsmp.cast %[[Y]] : (tensor<*xf16>) -> tensor<*xf32>
// CHECK: return %[[W]]
// STATIC: dsmp.cast %{{.*}} : (tensor<3x4xf32>) -> tensor<3x4xf16>
// STATIC: dsmp.matmul {{.*}} : (tensor<3x4xf16>, tensor<4x4xf16>) -> tensor<3x4xf16>
// STATIC: dsmp.cast %{{.*}} : (tensor<3x4xf16>) -> tensor<3x4xf32>
// STATIC: return {{.*}} : tensor<3x4xf32>
func.func @main_graph(%x: tensor<?x4xf32> {dsmp.name = "x"}) -> (tensor<*xf32> {dsmp.name = "y"}) {
  %zero = dsmp.constant dense<0> : tensor<1xi64>
  %one = dsmp.constant dense<1> : tensor<1xi64>
  %s = dsmp.shape %x : (tensor<?x4xf32>) -> tensor<2xi64>
  %b = dsmp.gather %s, %zero : (tensor<2xi64>, tensor<1xi64>) -> tensor<1xi64>
  %c = dsmp.equal %b, %one : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
  %r = dsmp.if %c : tensor<1xi1> -> tensor<*xf32> {
    %q = dsmp.squeeze %x, %zero : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<4xf32>
    dsmp.yield %q : tensor<4xf32>
  } else {
    dsmp.yield %x : tensor<?x4xf32>
  }
  %w = dsmp.constant dense<[[0.5, -1.0, 0.25, 2.0], [1.0, 0.5, -0.5, 0.125], [-0.25, 1.5, 1.0, 0.5], [2.0, 0.0, -1.0, 1.0]]> : tensor<4x4xf32>
  %y = dsmp.matmul %r, %w : (tensor<*xf32>, tensor<4x4xf32>) -> tensor<*xf32>
  return %y : tensor<*xf32>
}
