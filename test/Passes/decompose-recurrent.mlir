// RUN: dsmp-opt %s --pass-pipeline='builtin.module(func.func(dsmp-decompose-recurrent))' --split-input-file | FileCheck %s

/// A two-step forward LSTM: one MatMul of both steps' inputs with W^T, then
/// per step a MatMul of H with R^T, the gates (i, o, f, c slices of the
/// [batch, 4H] pre-activations) and the cell update; Y stacks the steps.
// CHECK-LABEL: func.func @lstm(
// CHECK-NOT: dsmp.lstm
// CHECK: dsmp.matmul {{.*}} : (tensor<2x3xf32>, tensor<3x8xf32>) -> tensor<2x8xf32>
// CHECK: dsmp.matmul {{.*}} : (tensor<1x2xf32>, tensor<2x8xf32>) -> tensor<1x8xf32>
// CHECK: dsmp.sigmoid
// CHECK: dsmp.tanh
// CHECK: dsmp.matmul {{.*}} : (tensor<1x2xf32>, tensor<2x8xf32>) -> tensor<1x8xf32>
// CHECK: %[[Y:.+]] = dsmp.concat {{.*}} {axis = 0 : i64} : (tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>) -> tensor<2x1x1x2xf32>
// CHECK: return %[[Y]]
func.func @lstm(%x: tensor<2x1x3xf32>, %w: tensor<1x8x3xf32>, %r: tensor<1x8x2xf32>) -> tensor<2x1x1x2xf32> {
  %n = dsmp.none
  %y, %h, %c = dsmp.lstm %x, %w, %r, %n, %n, %n, %n, %n {hidden_size = 2 : i64} : (tensor<2x1x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>, none, none, none, none, none) -> (tensor<2x1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>)
  return %y : tensor<2x1x1x2xf32>
}

// -----

/// Dynamic shapes and non-default activations stay an LSTM.
// CHECK-LABEL: func.func @kept(
// CHECK: dsmp.lstm
// CHECK: dsmp.lstm
func.func @kept(%x: tensor<?x1x3xf32>, %x2: tensor<2x1x3xf32>, %w: tensor<1x8x3xf32>, %r: tensor<1x8x2xf32>) -> (tensor<?x1x1x2xf32>, tensor<2x1x1x2xf32>) {
  %n = dsmp.none
  %y, %h, %c = dsmp.lstm %x, %w, %r, %n, %n, %n, %n, %n {hidden_size = 2 : i64} : (tensor<?x1x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>, none, none, none, none, none) -> (tensor<?x1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>)
  %y2, %h2, %c2 = dsmp.lstm %x2, %w, %r, %n, %n, %n, %n, %n {hidden_size = 2 : i64, activations = ["Relu", "Tanh", "Tanh"]} : (tensor<2x1x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>, none, none, none, none, none) -> (tensor<2x1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>)
  return %y, %y2 : tensor<?x1x1x2xf32>, tensor<2x1x1x2xf32>
}
