// RUN: dsmp-opt %s --split-input-file --dsmp-lift-16-bit | FileCheck %s

/// A model that computes in f16 itself (onnxconverter-common's
/// convert_float_to_float16 with keep_io_types: casts at the graph's edges,
/// f16 weights and ops) is lifted to f32 for the precision passes: the
/// weights become f32 constants of the same values, the ops f32, and the
/// casts between f32 values go. An f16 input is cast up on entry and an
/// f16 output cast back down, so the interface stays.
// CHECK: module attributes {dsmp.lifted_from_16_bit}
// CHECK-NEXT: func.func @main_graph
// CHECK-SAME: (%[[X:.*]]: tensor<2x2xf32>, %[[H:.*]]: tensor<2x2xf16>) -> (tensor<2x2xf32>, tensor<2x2xf16>)
// CHECK-DAG: %[[UP:.*]] = dsmp.cast %[[H]] : (tensor<2x2xf16>) -> tensor<2x2xf32>
// CHECK-DAG: %[[W:.*]] = dsmp.constant dense<{{\[\[}}1.000000e+00, 5.000000e-01], [2.500000e-01, 3.000000e+00]]> : tensor<2x2xf32>
// CHECK: %[[P:.*]] = dsmp.matmul %[[X]], %[[W]] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK: %[[R:.*]] = dsmp.relu %[[P]] : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK: %[[S:.*]] = dsmp.add %[[R]], %[[UP]] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK: %[[DOWN:.*]] = dsmp.cast %[[S]] : (tensor<2x2xf32>) -> tensor<2x2xf16>
// CHECK: return %[[R]], %[[DOWN]] : tensor<2x2xf32>, tensor<2x2xf16>
module {
  func.func @main_graph(%x: tensor<2x2xf32>, %h: tensor<2x2xf16>) -> (tensor<2x2xf32>, tensor<2x2xf16>) {
    %w = dsmp.constant dense<[[1.0, 0.5], [0.25, 3.0]]> : tensor<2x2xf16>
    %x16 = dsmp.cast %x : (tensor<2x2xf32>) -> tensor<2x2xf16>
    %p = dsmp.matmul %x16, %w : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>
    %r = dsmp.relu %p : (tensor<2x2xf16>) -> tensor<2x2xf16>
    %s = dsmp.add %r, %h : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>
    %y = dsmp.cast %r : (tensor<2x2xf16>) -> tensor<2x2xf32>
    return %y, %s : tensor<2x2xf32>, tensor<2x2xf16>
  }
}

// -----

/// f32 compute that reads 16-bit weights through casts is left as it is.
// CHECK: module {
// CHECK-NEXT: func.func @main_graph
// CHECK: dsmp.constant {{.*}} : tensor<2x2xf16>
// CHECK: dsmp.cast {{.*}} : (tensor<2x2xf16>) -> tensor<2x2xf32>
module {
  func.func @main_graph(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %w = dsmp.constant dense<[[1.0, 0.5], [0.25, 3.0]]> : tensor<2x2xf16>
    %w32 = dsmp.cast %w : (tensor<2x2xf16>) -> tensor<2x2xf32>
    %p = dsmp.matmul %x, %w32 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    return %p : tensor<2x2xf32>
  }
}
