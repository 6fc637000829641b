// RUN: dsmp-opt %s --pass-pipeline='builtin.module(func.func(dsmp-insert-casts))' | FileCheck %s

/// An f16 op reads its operands through casts to f16, computes in f16 and
/// hands f32 to its f32 users through one cast back; a tf32 matmul reads
/// tf32-rounded operands (MatMul's types must match, so its result is tf32,
/// which is f32 in storage, and is cast back); f32 ops are untouched.
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[A16:.*]] = dsmp.cast %[[A]] : (tensor<4x8xf32>) -> tensor<4x8xf16>
// CHECK: %[[B16:.*]] = dsmp.cast %[[B]] : (tensor<8x8xf32>) -> tensor<8x8xf16>
// CHECK: %[[M:.*]] = dsmp.matmul %[[A16]], %[[B16]] {{.*}} : (tensor<4x8xf16>, tensor<8x8xf16>) -> tensor<4x8xf16>
// CHECK: %[[W:.*]] = dsmp.cast %[[M]] : (tensor<4x8xf16>) -> tensor<4x8xf32>
// CHECK: %[[T0:.*]] = dsmp.cast %[[W]] : (tensor<4x8xf32>) -> tensor<4x8xtf32>
// CHECK: %[[T1:.*]] = dsmp.cast %[[B]] : (tensor<8x8xf32>) -> tensor<8x8xtf32>
// CHECK: %[[T:.*]] = dsmp.matmul %[[T0]], %[[T1]] {{.*}} : (tensor<4x8xtf32>, tensor<8x8xtf32>) -> tensor<4x8xtf32>
// CHECK: %[[TW:.*]] = dsmp.cast %[[T]] : (tensor<4x8xtf32>) -> tensor<4x8xf32>
// CHECK: %[[E:.*]] = dsmp.exp %[[TW]] {{.*}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: return %[[E]]
func.func @main_graph(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = dsmp.matmul %a, %b {dsmp.assigned = #dsmp.format<f16>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = dsmp.matmul %0, %b {dsmp.assigned = #dsmp.format<tf32>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %2 = dsmp.exp %1 {dsmp.assigned = #dsmp.format<f32>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

/// Resize keeps its scales in f32; only the data takes the format.
// CHECK-LABEL: func.func @resize
// CHECK: %[[X16:.*]] = dsmp.cast %{{.*}} : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xbf16>
// CHECK: dsmp.resize %[[X16]], %{{.*}}, %[[S:.*]], %{{.*}} {{.*}} : (tensor<1x1x2x2xbf16>, none, tensor<4xf32>, none) -> tensor<1x1x4x4xbf16>
func.func @resize(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %n = dsmp.none
  %s = dsmp.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %r = dsmp.resize %x, %n, %s, %n {dsmp.assigned = #dsmp.format<bf16>, mode = "nearest"} : (tensor<1x1x2x2xf32>, none, tensor<4xf32>, none) -> tensor<1x1x4x4xf32>
  return %r : tensor<1x1x4x4xf32>
}

/// A tf32 Gemm rounds A and B only; its bias and result stay f32.
// CHECK-LABEL: func.func @gemm_tf32
// CHECK: %[[GA:.*]] = dsmp.cast %{{.*}} : (tensor<4x8xf32>) -> tensor<4x8xtf32>
// CHECK: %[[GB:.*]] = dsmp.cast %{{.*}} : (tensor<8x8xf32>) -> tensor<8x8xtf32>
// CHECK: dsmp.gemm %[[GA]], %[[GB]], %{{.*}} {{.*}} : (tensor<4x8xtf32>, tensor<8x8xtf32>, tensor<8xf32>) -> tensor<4x8xf32>
func.func @gemm_tf32(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = dsmp.gemm %a, %b, %c {dsmp.assigned = #dsmp.format<tf32>} : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

/// An f16 BatchNormalization (inference: a per-channel affine map) reads only
/// X in f16; its scale, bias, mean and variance stay f32 (ONNX types them
/// apart), so no statistic is rounded.
// CHECK-LABEL: func.func @batch_norm_f16
// CHECK: %[[BX:.*]] = dsmp.cast %{{.*}} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf16>
// CHECK-NOT: dsmp.cast {{.*}}tensor<2xf32>
// CHECK: dsmp.batch_normalization %[[BX]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : (tensor<1x2x3x3xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf16>
func.func @batch_norm_f16(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %s = dsmp.constant dense<[1.5, 0.5]> : tensor<2xf32>
  %b = dsmp.constant dense<[0.25, -1.0]> : tensor<2xf32>
  %m = dsmp.constant dense<[0.1, -0.2]> : tensor<2xf32>
  %v = dsmp.constant dense<[1.0e-6, 4.0]> : tensor<2xf32>
  %y = dsmp.batch_normalization %x, %s, %b, %m, %v {dsmp.assigned = #dsmp.format<f16>} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

/// A cast of a constant operand is marked to keep its non-zero values
/// non-zero when dsmp-minimize-casts folds it (F.normalize's 1e-12 clamp);
/// a cast of a computed value is not.
// CHECK-LABEL: func.func @constant_operand
// CHECK: %[[X16:.*]] = dsmp.cast %{{.*}} : (tensor<4xf32>) -> tensor<4xf16>
// CHECK-NOT: dsmp.keep_nonzero
// CHECK: %[[E16:.*]] = dsmp.cast %{{.*}} {dsmp.keep_nonzero} : (tensor<1xf32>) -> tensor<1xf16>
// CHECK: dsmp.clip %[[X16]], %[[E16]], %{{.*}}
func.func @constant_operand(%x: tensor<4xf32>) -> tensor<4xf32> {
  %eps = dsmp.constant dense<1.0e-12> : tensor<1xf32>
  %n = dsmp.none
  %c = dsmp.clip %x, %eps, %n {dsmp.assigned = #dsmp.format<f16>} : (tensor<4xf32>, tensor<1xf32>, none) -> tensor<4xf32>
  return %c : tensor<4xf32>
}
