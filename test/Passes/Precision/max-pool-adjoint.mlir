// RUN: dsmp-opt %s --dsmp-test-adjoint | FileCheck %s

/// MaxPool's VJP is one dsmp.max_pool_grad of X, the pool's own Y and the
/// seed, with the window made explicit; the evaluator runs it as one kernel
/// (test/Passes/Precision/vjp.test checks its values, compiled and
/// evaluated, against finite differences).
// CHECK-LABEL: func.func @main_graph(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x2x7x7xf32> {dsmp.name = "x0"}, %[[SEED:[^:]+]]: tensor<1x2x4x4xf32> {dsmp.name = "seed_0"})
// CHECK: %[[Y:[^,]+]], %{{.+}} = dsmp.max_pool %[[X]]
// CHECK: %[[G:.+]] = dsmp.max_pool_grad %[[X]], %[[Y]], %[[SEED]] {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x7x7xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x7x7xf32>
// CHECK-NOT: dsmp.slice
// CHECK: return %[[Y]], %[[G]]
func.func @main_graph(%x: tensor<1x2x7x7xf32> {dsmp.name = "x0"}) -> (tensor<1x2x4x4xf32> {dsmp.name = "y"}) {
  %y, %i = dsmp.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x7x7xf32>) -> (tensor<1x2x4x4xf32>, none)
  return %y : tensor<1x2x4x4xf32>
}
