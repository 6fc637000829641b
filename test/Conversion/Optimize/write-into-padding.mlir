// RUN: dsmp-opt %s --split-input-file --dsmp-write-into-padding | FileCheck %s
// RUN: dsmp-opt %s --split-input-file --dsmp-write-into-padding --one-shot-bufferize="bufferize-function-boundaries" --cse --canonicalize | FileCheck %s --check-prefix=BUF

/// A bias + ReLU padded by one on each side: the padded tensor is filled
/// and the generic computes straight into its interior slice; no tensor.pad
/// and no copy once bufferized.
// CHECK-LABEL: func.func @producer_in_place(
// CHECK-NOT: tensor.pad
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<1x2x6x6xf32>
// CHECK: %[[FILLED:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[EMPTY]] : tensor<1x2x6x6xf32>)
// CHECK: %[[SLICE:.+]] = tensor.extract_slice %[[FILLED]][0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1]
// CHECK: %[[RELU:.+]] = linalg.generic {{.+}} outs(%[[SLICE]] : tensor<1x2x4x4xf32>)
// CHECK: arith.maximumf
// CHECK: tensor.insert_slice %[[RELU]] into %[[FILLED]][0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1]
// BUF-LABEL: func.func @producer_in_place(
// BUF: %[[ALLOC:.+]] = memref.alloc() {{.*}} : memref<1x2x6x6xf32>
// BUF: linalg.fill ins(%{{.+}} : f32) outs(%[[ALLOC]] : memref<1x2x6x6xf32>)
// BUF: %[[VIEW:.+]] = memref.subview %[[ALLOC]][0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1]
// BUF: linalg.generic {{.+}} outs(%[[VIEW]] : memref<1x2x4x4xf32, strided<[72, 36, 6, 1], offset: 7>>)
// BUF-NOT: memref.copy
// BUF-NOT: linalg.copy
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @producer_in_place(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  %p = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x6x6xf32>
  return %p : tensor<1x2x6x6xf32>
}

// -----

/// A function argument (no producer to move) is inserted into the filled
/// tensor; a -inf pad (max pooling) keeps its value.
// CHECK-LABEL: func.func @argument(
// CHECK: %[[NEG:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[FILLED:.+]] = linalg.fill ins(%[[NEG]] : f32)
// CHECK: tensor.insert_slice %{{.+}} into %[[FILLED]][0, 0, 2, 0] [1, 1, 3, 3] [1, 1, 1, 1]
// CHECK-NOT: tensor.pad
// BUF-LABEL: func.func @argument(
// BUF: memref.copy
func.func @argument(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x5x4xf32> {
  %neg = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 2, 0] high[0, 0, 0, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %neg : f32
  } : tensor<1x1x3x3xf32> to tensor<1x1x5x4xf32>
  return %p : tensor<1x1x5x4xf32>
}

// -----

/// A producer with another use cannot write into the padding.
// CHECK-LABEL: func.func @shared_producer(
// CHECK: %[[RELU:.+]] = linalg.generic
// CHECK: tensor.insert_slice %[[RELU]] into
// CHECK: return %{{.+}}, %[[RELU]]
#id1 = affine_map<(i) -> (i)>
func.func @shared_producer(%x: tensor<4xf32>) -> (tensor<6xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %relu = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %p = tensor.pad %relu low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p, %relu : tensor<6xf32>, tensor<4xf32>
}
