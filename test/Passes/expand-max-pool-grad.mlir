// RUN: dsmp-opt %s --pass-pipeline='builtin.module(func.func(dsmp-expand-max-pool-grad))' --split-input-file --verify-diagnostics | FileCheck %s

/// A 3x3 window, stride 2, padding 1: X padded with the lowest float, then
/// per offset (9) a strided slice compared with Y; the matches' count
/// divides dY, and one-hot depthwise ConvTransposes (group = channels) put
/// each offset's share back at X's size.
// CHECK-LABEL: func.func @padded(
// CHECK-NOT: dsmp.max_pool_grad
// CHECK: %[[LOW:.+]] = dsmp.constant dense<-3.40282347E+38> : tensor<f32>
// CHECK: %[[PADDED:.+]] = dsmp.pad %arg0, %{{.+}}, %[[LOW]], %{{.+}} : {{.*}} -> tensor<1x2x9x9xf32>
// CHECK-COUNT-9: dsmp.equal
// CHECK: %[[SHARE:.+]] = dsmp.div %arg2, %{{.+}} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK: dsmp.conv_transpose {{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, output_padding = array<i64: 0, 0>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>, none) -> tensor<1x2x7x7xf32>
// CHECK-COUNT-8: dsmp.conv_transpose
// CHECK: return %{{.+}} : tensor<1x2x7x7xf32>
func.func @padded(%x: tensor<1x2x7x7xf32>, %y: tensor<1x2x4x4xf32>, %dy: tensor<1x2x4x4xf32>) -> tensor<1x2x7x7xf32> {
  %dx = dsmp.max_pool_grad %x, %y, %dy {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x7x7xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x7x7xf32>
  return %dx : tensor<1x2x7x7xf32>
}

// -----

/// No padding: slices of X itself; a 1-D window of two offsets.
// CHECK-LABEL: func.func @one_d(
// CHECK-NOT: dsmp.pad
// CHECK-COUNT-2: dsmp.slice %arg0
// CHECK-NOT: dsmp.max_pool_grad
func.func @one_d(%x: tensor<2x3x8xf32>, %y: tensor<2x3x4xf32>, %dy: tensor<2x3x4xf32>) -> tensor<2x3x8xf32> {
  %dx = dsmp.max_pool_grad %x, %y, %dy {kernel_shape = array<i64: 2>, strides = array<i64: 2>} : (tensor<2x3x8xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  return %dx : tensor<2x3x8xf32>
}

// -----

/// Dynamic shapes cannot be expanded: an error naming the op.
func.func @dynamic(%x: tensor<?x3x8xf32>, %y: tensor<?x3x4xf32>, %dy: tensor<?x3x4xf32>) -> tensor<?x3x8xf32> {
  // expected-error @+1 {{'dsmp.max_pool_grad' op cannot be expanded: it needs static shapes}}
  %dx = dsmp.max_pool_grad %x, %y, %dy {kernel_shape = array<i64: 2>, strides = array<i64: 2>} : (tensor<?x3x8xf32>, tensor<?x3x4xf32>, tensor<?x3x4xf32>) -> tensor<?x3x8xf32>
  return %dx : tensor<?x3x8xf32>
}
