// RUN: dsmp-opt %s --split-input-file --dsmp-test-adjoint | FileCheck %s

/// A conv's weight gradient is a conv of the input with the result's
/// gradient as its kernel. A stride-2 3x3 conv over 8 rows with pads 1 never
/// reads the last padded row: the gradient's conv drops it from the end pad
/// (pads 1, 1, 0, 0) and has exactly the kernel's 3x3 taps, no crop.
// CHECK-LABEL: func.func @main_graph(
// CHECK: %[[W:.+]] = dsmp.conv %{{.+}}, %{{.+}}, %{{.+}} {dilations = array<i64: 2, 2>, kernel_shape = array<i64: 4, 4>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x1x8x8xf32>, tensor<3x1x4x4xf32>, none) -> tensor<2x3x3x3xf32>
// CHECK-NOT: dsmp.slice
// CHECK: %[[DW:.+]] = dsmp.transpose %[[W]] {perm = array<i64: 1, 0, 2, 3>} : (tensor<2x3x3x3xf32>) -> tensor<3x2x3x3xf32>
// CHECK: return {{.*}}%[[DW]] :
func.func @main_graph(%x: tensor<1x2x8x8xf32> {dsmp.name = "x0"}) -> (tensor<1x3x4x4xf32> {dsmp.name = "y"}) {
  %w = dsmp.constant dense<1.0> : tensor<3x2x3x3xf32>
  %n = dsmp.none
  %y = dsmp.conv %x, %w, %n {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32>, none) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

/// A stride-2 1x1 conv over 8 rows without pads leaves the last row and
/// column unread and has no end pad to drop them from: the 2x2 product is
/// cropped to the 1x1 kernel.
// CHECK-LABEL: func.func @main_graph(
// CHECK: %[[W:.+]] = dsmp.conv {{.*}} -> tensor<4x3x2x2xf32>
// CHECK: %[[C:.+]] = dsmp.slice %[[W]], {{.*}} -> tensor<4x3x1x1xf32>
// CHECK: %[[DW:.+]] = dsmp.transpose %[[C]] {perm = array<i64: 1, 0, 2, 3>} : (tensor<4x3x1x1xf32>) -> tensor<3x4x1x1xf32>
// CHECK: return {{.*}}%[[DW]] :
func.func @main_graph(%x: tensor<1x4x8x8xf32> {dsmp.name = "x0"}) -> (tensor<1x3x4x4xf32> {dsmp.name = "y"}) {
  %w = dsmp.constant dense<1.0> : tensor<3x4x1x1xf32>
  %n = dsmp.none
  %y = dsmp.conv %x, %w, %n {strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<3x4x1x1xf32>, none) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}
