// RUN: dsmp-opt %s --split-input-file --dsmp-collapse-contiguous-loops | FileCheck %s

/// Bias + clip over [1, 8, 4, 4]: the bias indexes only d1, so (h, w) merge
/// into one loop of 16 and (n, c) cannot merge with them.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @bias_clip(
// CHECK: %[[X:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0], [1], [2, 3]] : tensor<1x8x4x4xf32> into tensor<1x8x16xf32>
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[BIAS]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %{{.+}} : tensor<1x8x16xf32>, tensor<8xf32>)
// CHECK: tensor.expand_shape %[[Y]] {{\[}}[0], [1], [2, 3]] output_shape [1, 8, 4, 4] : tensor<1x8x16xf32> into tensor<1x8x4x4xf32>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#c = affine_map<(n, c, h, w) -> (c)>
func.func @bias_clip(%x: tensor<1x8x4x4xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #c, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<1x8x4x4xf32>, tensor<8xf32>) outs(%e : tensor<1x8x4x4xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

/// A transpose reads (w, h): nothing is contiguous in both; a reduction and a
/// generic whose result is padded next stay as they are.
// CHECK-LABEL: func.func @untouched(
// CHECK-NOT: tensor.collapse_shape
// CHECK: iterator_types = ["parallel", "parallel"]
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: iterator_types = ["parallel", "parallel"]
// CHECK: tensor.pad
#id2 = affine_map<(i, j) -> (i, j)>
#t2 = affine_map<(i, j) -> (j, i)>
#r2 = affine_map<(i, j) -> (i)>
func.func @untouched(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %t = linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id2, #r2], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x4xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  %p = tensor.pad %r low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  return %t, %s, %p : tensor<4x4xf32>, tensor<4xf32>, tensor<6x6xf32>
}
