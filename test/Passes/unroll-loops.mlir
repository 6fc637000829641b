// RUN: dsmp-opt %s --pass-pipeline='builtin.module(func.func(dsmp-unroll-loops))' --split-input-file | FileCheck %s
// RUN: dsmp-opt %s --pass-pipeline='builtin.module(func.func(dsmp-unroll-loops{max-iterations=2}))' --split-input-file | FileCheck %s --check-prefix=BOUND

/// tf2onnx's counted loop: M = 3, the body yields float(i) < 3 and a
/// carried counter. Each of the three copies folds its condition (the
/// iteration number a constant); the carried state threads through them,
/// the scan output stacks the three states, and the signature takes the
/// types the copies give (dsmp-refine-shapes makes them static later).
// CHECK-LABEL: func.func @counted(
// CHECK-SAME: -> (tensor<?x4xf32>, tensor<3x?x4xf32>)
// CHECK-NOT: dsmp.loop
// CHECK: %[[P1:.+]] = dsmp.matmul %arg0, %arg1
// CHECK: %[[H1:.+]] = dsmp.tanh %[[P1]]
// CHECK: %[[P2:.+]] = dsmp.matmul %[[H1]], %arg1
// CHECK: %[[H2:.+]] = dsmp.tanh %[[P2]]
// CHECK: %[[P3:.+]] = dsmp.matmul %[[H2]], %arg1
// CHECK: %[[H3:.+]] = dsmp.tanh %[[P3]]
// CHECK-NOT: dsmp.tanh
// CHECK: %[[U1:.+]] = dsmp.unsqueeze %[[H1]]
// CHECK: %[[U2:.+]] = dsmp.unsqueeze %[[H2]]
// CHECK: %[[U3:.+]] = dsmp.unsqueeze %[[H3]]
// CHECK: %[[Y:.+]] = dsmp.concat %[[U1]], %[[U2]], %[[U3]] {axis = 0 : i64} {{.*}} -> tensor<3x?x4xf32>
// CHECK: return %[[H3]], %[[Y]]
// BOUND-LABEL: func.func @counted(
// BOUND: dsmp.loop
func.func @counted(%h0: tensor<2x4xf32>, %r: tensor<4x4xf32>) -> (tensor<?x?xf32>, tensor<?x2x4xf32>) {
  %m = dsmp.constant dense<3> : tensor<i64>
  %true = dsmp.constant dense<true> : tensor<i1>
  %zero = dsmp.constant dense<0> : tensor<i32>
  %count, %h, %y = dsmp.loop %m, %true, %zero, %h0 : (tensor<i64>, tensor<i1>, tensor<i32>, tensor<2x4xf32>) -> (tensor<i32>, tensor<?x?xf32>, tensor<?x2x4xf32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %k: tensor<i32>, %s: tensor<?x4xf32>):
    %one = dsmp.constant dense<1> : tensor<i32>
    %three = dsmp.constant dense<3.0> : tensor<f32>
    %next = dsmp.add %k, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %fi = dsmp.cast %i : (tensor<i64>) -> tensor<f32>
    %more = dsmp.less %fi, %three : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %p = dsmp.matmul %s, %r : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    %t = dsmp.tanh %p : (tensor<?x4xf32>) -> tensor<?x4xf32>
    dsmp.yield %more, %next, %t, %t : tensor<i1>, tensor<i32>, tensor<?x4xf32>, tensor<?x4xf32>
  }
  return %h, %y : tensor<?x?xf32>, tensor<?x2x4xf32>
}

// -----

/// A condition the data decides (sum(h) < 100) does not fold: the Loop
/// stays, and nothing built for it is left behind.
// CHECK-LABEL: func.func @data_dependent(
// CHECK-NOT: dsmp.tanh
// CHECK: dsmp.loop
// CHECK: dsmp.tanh
// CHECK: dsmp.yield
// CHECK-NOT: dsmp.tanh
// CHECK: return
func.func @data_dependent(%h0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %m = dsmp.constant dense<3> : tensor<i64>
  %true = dsmp.constant dense<true> : tensor<i1>
  %h = dsmp.loop %m, %true, %h0 : (tensor<i64>, tensor<i1>, tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %s: tensor<2x4xf32>):
    %n = dsmp.none
    %bound = dsmp.constant dense<100.0> : tensor<f32>
    %t = dsmp.tanh %s : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %sum = dsmp.reduce_sum %t, %n {keepdims = 0 : i64} : (tensor<2x4xf32>, none) -> tensor<f32>
    %more = dsmp.less %sum, %bound : (tensor<f32>, tensor<f32>) -> tensor<i1>
    dsmp.yield %more, %t : tensor<i1>, tensor<2x4xf32>
  }
  return %h : tensor<2x4xf32>
}
