// RUN: dsmp-opt %s --split-input-file --dsmp-order-loops-for-locality | FileCheck %s

/// A matmul (m, n, k) with a long reduction: k moves out, n (the output's
/// innermost dim) goes innermost: (m, k, n).
// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[B:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matmul(
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "reduction", "parallel"]}
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @matmul(%a: tensor<8x64xf32>, %b: tensor<64x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x64xf32>, tensor<64x16xf32>) outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

/// A 3x3 window over one channel (a depthwise convolution in f16, which
/// keeps the reduction generic): ow still goes innermost.
// CHECK-LABEL: func.func @depthwise(
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, c, oh, ow, kh, kw) -> (c, kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @depthwise(%x: tensor<1x4x10x10xf16>, %k: tensor<4x3x3xf16>, %o: tensor<1x4x8x8xf16>) -> tensor<1x4x8x8xf16> {
  %r = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %k : tensor<1x4x10x10xf16>, tensor<4x3x3xf16>) outs(%o : tensor<1x4x8x8xf16>) {
  ^bb0(%a: f16, %b: f16, %acc: f16):
    %p = arith.mulf %a, %b : f16
    %s = arith.addf %acc, %p : f16
    linalg.yield %s : f16
  } -> tensor<1x4x8x8xf16>
  return %r : tensor<1x4x8x8xf16>
}

// -----

/// A grouped window over 8 input channels: ow goes innermost.
// CHECK-LABEL: func.func @grouped(
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]
#gin = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#gw = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#gout = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
func.func @grouped(%x: tensor<1x8x10x10xf32>, %k: tensor<4x8x3x3xf32>, %o: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %r = linalg.generic {indexing_maps = [#gin, #gw, #gout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %k : tensor<1x8x10x10xf32>, tensor<4x8x3x3xf32>) outs(%o : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

/// An unrolled 1x1 convolution (all parallel, output identity): its input
/// reads do not depend on the output channel d1, so d1 goes inside the
/// rows: (n, oh, c, ow), and every channel reads the same input row from L1.
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1, d2, d3) -> (d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-LABEL: func.func @pointwise(
// CHECK: linalg.generic {indexing_maps = [#[[BIAS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
#c = affine_map<(n, c, h, w) -> (c)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @pointwise(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2x1x1xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [#c, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<4xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%bias: f32, %out: f32):
    %n = linalg.index 0 : index
    %m = linalg.index 1 : index
    %h = linalg.index 2 : index
    %v = linalg.index 3 : index
    %x0 = tensor.extract %x[%n, %c0, %h, %v] : tensor<1x2x8x8xf32>
    %w0 = tensor.extract %w[%m, %c0, %c0, %c0] : tensor<4x2x1x1xf32>
    %x1 = tensor.extract %x[%n, %c1, %h, %v] : tensor<1x2x8x8xf32>
    %w1 = tensor.extract %w[%m, %c1, %c0, %c0] : tensor<4x2x1x1xf32>
    %p = arith.mulf %x0, %w0 : f32
    %s = math.fma %x1, %w1, %p : f32
    %y = arith.addf %s, %bias : f32
    linalg.yield %y : f32
  } -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

/// A depthwise window reads channel d1 itself: nothing to share between
/// channels, the order stays (n, c, oh, ow).
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @depthwise_unrolled(
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[ID]]], iterator_types
// CHECK: %[[M:.+]] = linalg.index 1 : index
// CHECK: tensor.extract %arg0[%{{.+}}, %[[M]], %{{.+}}, %{{.+}}]
#c2 = affine_map<(n, c, h, w) -> (c)>
#id2 = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @depthwise_unrolled(%x: tensor<1x4x9x9xf32>, %w: tensor<4x1x2x1xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [#c2, #id2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<4xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%bias: f32, %out: f32):
    %n = linalg.index 0 : index
    %m = linalg.index 1 : index
    %h = linalg.index 2 : index
    %v = linalg.index 3 : index
    %h1 = arith.addi %h, %c1 : index
    %x0 = tensor.extract %x[%n, %m, %h, %v] : tensor<1x4x9x9xf32>
    %w0 = tensor.extract %w[%m, %c0, %c0, %c0] : tensor<4x1x2x1xf32>
    %x1 = tensor.extract %x[%n, %m, %h1, %v] : tensor<1x4x9x9xf32>
    %w1 = tensor.extract %w[%m, %c0, %c1, %c0] : tensor<4x1x2x1xf32>
    %p = arith.mulf %x0, %w0 : f32
    %s = math.fma %x1, %w1, %p : f32
    %y = arith.addf %s, %bias : f32
    linalg.yield %y : f32
  } -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}
