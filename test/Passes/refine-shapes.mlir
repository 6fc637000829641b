// RUN: dsmp-opt %s --pass-pipeline='builtin.module(func.func(dsmp-refine-shapes))' --split-input-file | FileCheck %s
// RUN: dsmp-opt %s --pass-pipeline='builtin.module(canonicalize,func.func(dsmp-refine-shapes))' --split-input-file | FileCheck %s --check-prefix=FOLDED
// RUN: dsmp-opt %s --pass-pipeline='builtin.module(canonicalize,func.func(dsmp-refine-shapes),canonicalize)' --split-input-file | FileCheck %s --check-prefix=GRID

/// A Reshape whose target shape is known at compile time gets static dims
/// (read through the Shape, Gather and Concat, or folded to a constant
/// first), and they flow on through Transpose and MatMul into the
/// function's signature.
// CHECK-LABEL: func.func @reshape_chain(
// CHECK-SAME: -> tensor<4x6xf32>
// CHECK: dsmp.reshape {{.*}} -> tensor<6x4xf32>
// FOLDED-LABEL: func.func @reshape_chain(
// FOLDED-SAME: -> tensor<4x6xf32>
// FOLDED: dsmp.reshape {{.*}} -> tensor<6x4xf32>
// FOLDED: dsmp.transpose {{.*}} -> tensor<4x6xf32>
func.func @reshape_chain(%x: tensor<2x3x4xf32>) -> tensor<?x?xf32> {
  %s = dsmp.shape %x : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %i = dsmp.constant dense<2> : tensor<1xi64>
  %last = dsmp.gather %s, %i : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %m = dsmp.constant dense<-1> : tensor<1xi64>
  %shape = dsmp.concat %m, %last {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = dsmp.reshape %x, %shape : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %t = dsmp.transpose %r : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

// -----

/// A target shape known in part (a run-time sequence length between
/// constants, the batch copied by 0): static dims where its elements are
/// known, and they flow on through Transpose.
// CHECK-LABEL: func.func @partial_shape(
// CHECK: dsmp.reshape {{.*}} -> tensor<?x?x3x8xf32>
// CHECK: dsmp.transpose {{.*}} -> tensor<3x?x8x?xf32>
func.func @partial_shape(%x: tensor<?x?x24xf32>) -> tensor<?x?x?x?xf32> {
  %s = dsmp.shape %x : (tensor<?x?x24xf32>) -> tensor<3xi64>
  %i = dsmp.constant dense<1> : tensor<1xi64>
  %seq = dsmp.gather %s, %i : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %zero = dsmp.constant dense<0> : tensor<1xi64>
  %rest = dsmp.constant dense<[3, 8]> : tensor<2xi64>
  %shape = dsmp.concat %zero, %seq, %rest {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<4xi64>
  %r = dsmp.reshape %x, %shape : (tensor<?x?x24xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  %t = dsmp.transpose %r {perm = array<i64: 2, 0, 3, 1>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %t : tensor<?x?x?x?xf32>
}

// -----

/// Conv and pool windows, Gemm and broadcasting give static dims from
/// static inputs.
// CHECK-LABEL: func.func @cnn(
// CHECK: dsmp.conv {{.*}} -> tensor<1x4x8x8xf32>
// CHECK: dsmp.max_pool {{.*}} -> (tensor<1x4x4x4xf32>, none)
// CHECK: dsmp.add {{.*}} -> tensor<1x4x4x4xf32>
// CHECK: dsmp.global_average_pool {{.*}} -> tensor<1x4x1x1xf32>
// CHECK: dsmp.flatten {{.*}} -> tensor<1x4xf32>
// CHECK: dsmp.gemm {{.*}} -> tensor<1x10xf32>
// CHECK: return {{.*}} : tensor<1x10xf32>
func.func @cnn(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %fc: tensor<10x4xf32>) -> tensor<?x?xf32> {
  %n = dsmp.none
  %c = dsmp.conv %x, %w, %n {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<?x4x?x?xf32>
  %p, %i = dsmp.max_pool %c {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x4x?x?xf32>) -> (tensor<?x4x?x?xf32>, none)
  %a = dsmp.add %p, %p : (tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  %g = dsmp.global_average_pool %a : (tensor<?x4x?x?xf32>) -> tensor<?x4x1x1xf32>
  %f = dsmp.flatten %g : (tensor<?x4x1x1xf32>) -> tensor<?x?xf32>
  %y = dsmp.gemm %f, %fc, %n {transB = 1 : i64} : (tensor<?x?xf32>, tensor<10x4xf32>, none) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

/// Dims that the inputs leave dynamic stay dynamic.
// CHECK-LABEL: func.func @dynamic_batch(
// CHECK: dsmp.relu {{.*}} -> tensor<?x8xf32>
func.func @dynamic_batch(%x: tensor<?x8xf32>) -> tensor<?x?xf32> {
  %y = dsmp.relu %x : (tensor<?x8xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

/// An If on a constant condition is replaced by its taken branch (the other
/// branch may not even fit these shapes); an If on a value takes the type
/// both branches agree on. Unranked results take the type inferred from
/// their ranked operands, and constant pads give Pad its dims.
// CHECK-LABEL: func.func @branches(
// CHECK-NOT: dsmp.squeeze
// CHECK: dsmp.pad {{.*}} -> tensor<1x640xf32>
// CHECK: dsmp.unsqueeze {{.*}} -> tensor<1x1x640xf32>
// CHECK: dsmp.if %{{.*}} : tensor<i1> -> tensor<1x640xf32> {
// CHECK: return {{.*}} : tensor<1x1x640xf32>, tensor<1x640xf32>
func.func @branches(%x: tensor<1x576xf32>, %c: tensor<i1>) -> (tensor<*xf32>, tensor<*xf32>) {
  %true = dsmp.constant dense<true> : tensor<i1>
  %pads = dsmp.constant dense<[0, 0, 0, 64]> : tensor<4xi64>
  %axis = dsmp.constant dense<0> : tensor<1xi64>
  %n = dsmp.none
  %p = dsmp.pad %x, %pads, %n, %n {mode = "reflect"} : (tensor<1x576xf32>, tensor<4xi64>, none, none) -> tensor<?x?xf32>
  %k = dsmp.if %true : tensor<i1> -> tensor<*xf32> {
    dsmp.yield %p : tensor<?x?xf32>
  } else {
    %s = dsmp.squeeze %p, %axis : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<?xf32>
    dsmp.yield %s : tensor<?xf32>
  }
  %u = dsmp.unsqueeze %k, %axis : (tensor<*xf32>, tensor<1xi64>) -> tensor<*xf32>
  %j = dsmp.if %c : tensor<i1> -> tensor<*xf32> {
    %r = dsmp.relu %p : (tensor<?x?xf32>) -> tensor<?x?xf32>
    dsmp.yield %r : tensor<?x?xf32>
  } else {
    dsmp.yield %p : tensor<?x?xf32>
  }
  return %u, %j : tensor<*xf32>, tensor<*xf32>
}

// -----

/// The data-movement and index ops whose result shapes follow from their
/// operands' (a batch that was dynamic before specialization).
// CHECK-LABEL: func.func @moves(
// CHECK: dsmp.depth_to_space {{.*}} -> tensor<3x2x6x6xf32>
// CHECK: dsmp.space_to_depth {{.*}} -> tensor<3x8x3x3xf32>
// CHECK: dsmp.arg_max {{.*}} -> tensor<3x3x3xi64>
// CHECK: dsmp.arg_min {{.*}} -> tensor<3x1x3x3xi64>
func.func @moves(%x: tensor<3x8x3x3xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?xi64>, tensor<?x?x?x?xi64>) {
  %d = dsmp.depth_to_space %x {blocksize = 2 : i64} : (tensor<3x8x3x3xf32>) -> tensor<?x?x?x?xf32>
  %s = dsmp.space_to_depth %d {blocksize = 2 : i64} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %a = dsmp.arg_max %x {axis = 1 : i64, keepdims = 0 : i64} : (tensor<3x8x3x3xf32>) -> tensor<?x?x?xi64>
  %b = dsmp.arg_min %x {axis = -3 : i64} : (tensor<3x8x3x3xf32>) -> tensor<?x?x?x?xi64>
  return %d, %s, %a, %b : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?xi64>, tensor<?x?x?x?xi64>
}

// -----

/// YOLOv8's anchor grid: Range(0, float(W), 1) + 0.5 over a feature map's
/// width. Once the int -> float Cast of the static width folds, the Range
/// has a known length and folds to its values (ONNX's start + i * delta).
// FOLDED-LABEL: func.func @anchor_grid(
// FOLDED-SAME: -> tensor<5xf32>
// FOLDED: dsmp.range {{.*}} -> tensor<5xf32>
// GRID-LABEL: func.func @anchor_grid(
// GRID-NOT: dsmp.range
// GRID: dsmp.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<5xf32>
// GRID-NOT: dsmp.range
func.func @anchor_grid(%x: tensor<1x8x4x5xf32>) -> tensor<?xf32> {
  %s = dsmp.shape %x : (tensor<1x8x4x5xf32>) -> tensor<4xi64>
  %i = dsmp.constant dense<3> : tensor<i64>
  %w = dsmp.gather %s, %i : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %wf = dsmp.cast %w : (tensor<i64>) -> tensor<f32>
  %zero = dsmp.constant dense<0.0> : tensor<f32>
  %one = dsmp.constant dense<1.0> : tensor<f32>
  %half = dsmp.constant dense<0.5> : tensor<f32>
  %r = dsmp.range %zero, %wf, %one : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  %c = dsmp.add %r, %half : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  return %c : tensor<?xf32>
}

// -----

/// A DFT over a run-time length (FNet's sequence, imported as
/// dsmp.dft_table): once the length is known the table gets its static
/// type, then folds to the constant; the MatMul and the cast to f16 the
/// precision flow put between them follow.
// GRID-LABEL: func.func @dft_table(
// GRID-NOT: dsmp.dft_table
// GRID: %[[T:.+]] = dsmp.constant dense<{{.*}}> : tensor<6x8xf32>
// GRID-NEXT: %[[H:.+]] = dsmp.cast %[[T]] : (tensor<6x8xf32>) -> tensor<6x8xf16>
// GRID-NEXT: dsmp.matmul %{{.*}}, %[[H]] : (tensor<2x6xf16>, tensor<6x8xf16>) -> tensor<2x8xf16>
func.func @dft_table(%x: tensor<2x6xf16>) -> tensor<?x?xf16> {
  %n = dsmp.shape %x {start = 1 : i64, end = 2 : i64} : (tensor<2x6xf16>) -> tensor<1xi64>
  %t = dsmp.dft_table %n {inverse = false, onesided = true, parts = 1 : i64} : (tensor<1xi64>) -> tensor<?x?xf32>
  %h = dsmp.cast %t : (tensor<?x?xf32>) -> tensor<?x?xf16>
  %y = dsmp.matmul %x, %h : (tensor<2x6xf16>, tensor<?x?xf16>) -> tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}
