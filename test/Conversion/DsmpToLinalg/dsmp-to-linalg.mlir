// RUN: dsmp-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(dsmp-convert-to-linalg))' | FileCheck %s

/// Broadcasting: a size-1 or missing dim reads index 0 / is left out.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[ONE:.+]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-LABEL: func.func @broadcast_add(
// CHECK-SAME: %[[A:.+]]: tensor<2x3x4xf32>, %[[B:.+]]: tensor<4xf32>, %[[C:.+]]: tensor<2x1x4xf32>
// CHECK: %[[E1:.+]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK: %[[S:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]]
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3x4xf32>, tensor<4xf32>) outs(%[[E1]] : tensor<2x3x4xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ONE]], #[[ID]]]
// CHECK-SAME: ins(%[[S]], %[[C]]
// CHECK: arith.mulf
func.func @broadcast_add(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>, %c: tensor<2x1x4xf32>) -> tensor<2x3x4xf32> {
  %s = dsmp.add %a, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %m = dsmp.mul %s, %c : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  return %m : tensor<2x3x4xf32>
}

// -----

/// f32 Gemm with transB: a zero-filled linalg.matmul that reads B as (n, k)
/// (dsmp-linalg-to-blas turns it into cblas_sgemm with a transpose flag),
/// then the bias added.
// CHECK-DAG: #[[MK:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[NK:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gemm(
// CHECK-SAME: %[[A:.+]]: tensor<3x5xf32>, %[[B:.+]]: tensor<4x5xf32>
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32)
// CHECK: %[[P:.+]] = linalg.matmul indexing_maps = [#[[MK]], #[[NK]], #[[MN]]] ins(%[[A]], %[[B]] : tensor<3x5xf32>, tensor<4x5xf32>) outs(%[[INIT]] : tensor<3x4xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]]
// CHECK: arith.addf
// CHECK-NOT: dsmp.
func.func @gemm(%a: tensor<3x5xf32>, %b: tensor<4x5xf32>, %c: tensor<4xf32>) -> tensor<3x4xf32> {
  %y = dsmp.gemm %a, %b, %c {transB = 1 : i64} : (tensor<3x5xf32>, tensor<4x5xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

/// An f64 MatMul (ONNX's double) sums its products in f64: the default acc
/// (f32) is for the formats dsmp assigns to f32 ops.
// CHECK-LABEL: func.func @matmul_f64(
// CHECK: linalg.fill ins(%{{.+}} : f64)
// CHECK: linalg.generic
// CHECK-NOT: arith.truncf
// CHECK: arith.mulf %{{.+}}, %{{.+}} : f64
// CHECK-NEXT: arith.addf %{{.+}}, %{{.+}} : f64
// CHECK-NOT: f32
// CHECK: return
func.func @matmul_f64(%a: tensor<2x3x4xf64>, %b: tensor<4x5xf64>) -> tensor<2x3x5xf64> {
  %y = dsmp.matmul %a, %b : (tensor<2x3x4xf64>, tensor<4x5xf64>) -> tensor<2x3x5xf64>
  return %y : tensor<2x3x5xf64>
}

// -----

/// f16 Gemm accumulating in f32 (the default acc): a generic contraction
/// over k that extends each operand to f32 and sums in f32, B read as
/// (n, k), then one rounding to f16.
// CHECK-DAG: #[[A_MAP:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B_MAP:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C_MAP:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gemm_f16(
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<3x4xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[A_MAP]], #[[B_MAP]], #[[C_MAP]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%[[INIT]] : tensor<3x4xf32>)
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: arith.mulf %{{.+}} : f32
// CHECK: arith.addf %{{.+}} : f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[SUM]] : tensor<3x4xf32>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @gemm_f16(%a: tensor<3x5xf16>, %b: tensor<4x5xf16>) -> tensor<3x4xf16> {
  %n = dsmp.none
  %y = dsmp.gemm %a, %b, %n {transB = 1 : i64} : (tensor<3x5xf16>, tensor<4x5xf16>, none) -> tensor<3x4xf16>
  return %y : tensor<3x4xf16>
}

// -----

/// Static reshapes become tensor.reshape to the result shape; constants
/// become arith.constant.
// CHECK-LABEL: func.func @flatten(
// CHECK: %[[SHAPE:.+]] = arith.constant dense<[6, 4]> : tensor<2xi64>
// CHECK: tensor.reshape %{{.+}}(%[[SHAPE]]) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
func.func @flatten(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %y = dsmp.flatten %x {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// -----

/// Ops the first slice does not lower yet fail with a clear error.
func.func @reduce(%x: tensor<2x8xf32>, %a: tensor<1xi64>) -> tensor<2x1xf32> {
  // expected-error @+1 {{is not lowered to linalg yet}}
  %y = dsmp.reduce_mean %x, %a : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return %y : tensor<2x1xf32>
}

// -----

/// Conv: one generic over (n, m, oh, ow, c, kh, kw) on the zero-padded
/// input; the grouped input channel is (m floordiv M/group) * C/group + c.
/// (4 channels per group x 3 x 3 = 36 products per output: a reduction.)
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 floordiv 2) * 4 + d4, d2 * 2 + d5, d3 * 2 + d6)>
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-LABEL: func.func @grouped_conv(
// CHECK: %[[PADDED:.+]] = tensor.pad %{{.+}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[W]], {{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[PADDED]], %{{.+}} : tensor<1x8x10x10xf32>, tensor<4x4x3x3xf32>)
func.func @grouped_conv(%x: tensor<1x8x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %n = dsmp.none
  %y = dsmp.conv %x, %w, %n {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>, tensor<4x4x3x3xf32>, none) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

/// Depthwise 3x3 (9 products per output, at most 32): one all-parallel
/// generic whose body reads the window of the padded input at
/// (oh * 2 + kh, ow * 2 + kw) and the weights, sums them in order and adds
/// the bias (an operand broadcast along d1); no zero-filled output.
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @depthwise_conv(
// CHECK: %[[PADDED:.+]] = tensor.pad %{{.+}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK-NOT: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[BIAS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%{{.+}} : tensor<4xf32>)
// Nine products into four partial sums (explicit FMAs, the same on every
// target), added pairwise, then the bias.
// CHECK: %[[P0:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: %[[P1:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: %[[P2:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: %[[P3:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: %[[A0:.+]] = math.fma %{{.+}}, %{{.+}}, %[[P0]] : f32
// CHECK: %[[A1:.+]] = math.fma %{{.+}}, %{{.+}}, %[[P1]] : f32
// CHECK: %[[A2:.+]] = math.fma %{{.+}}, %{{.+}}, %[[P2]] : f32
// CHECK: %[[A3:.+]] = math.fma %{{.+}}, %{{.+}}, %[[P3]] : f32
// CHECK: %[[A0B:.+]] = math.fma %{{.+}}, %{{.+}}, %[[A0]] : f32
// CHECK-NEXT: %[[S01:.+]] = arith.addf %[[A0B]], %[[A1]] : f32
// CHECK-NEXT: %[[S23:.+]] = arith.addf %[[A2]], %[[A3]] : f32
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[S01]], %[[S23]] : f32
// CHECK-NEXT: %[[OUTV:.+]] = arith.addf %[[SUM]], %{{.+}} : f32
// CHECK-NEXT: linalg.yield %[[OUTV]] : f32
func.func @depthwise_conv(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %y = dsmp.conv %x, %w, %b {group = 4 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

/// A 1x1 convolution over 3 channels unrolls too (<= 24 products): the
/// input is read at channel 0, 1, 2 whatever the output channel, which
/// dsmp-order-loops-for-locality relies on. At stride 2 it stays a GEMM.
// CHECK-LABEL: func.func @pointwise_conv(
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK: %[[M:.+]] = linalg.index 1 : index
// CHECK: %[[CH0:.+]] = arith.addi %c0, %c0 : index
// CHECK: tensor.extract %arg0[%{{.+}}, %[[CH0]], %{{.+}}, %{{.+}}] : tensor<1x3x8x8xf32>
// CHECK-NEXT: tensor.extract %arg1[%[[M]], %c0, %c0, %c0] : tensor<5x3x1x1xf32>
// CHECK: %[[CH1:.+]] = arith.addi %c0, %c1 : index
// CHECK: tensor.extract %arg0[%{{.+}}, %[[CH1]], %{{.+}}, %{{.+}}] : tensor<1x3x8x8xf32>
// CHECK: %[[CH2:.+]] = arith.addi %c0, %c2 : index
// CHECK: tensor.extract %arg0[%{{.+}}, %[[CH2]], %{{.+}}, %{{.+}}] : tensor<1x3x8x8xf32>
// CHECK-NOT: linalg.matmul
// CHECK-LABEL: func.func @pointwise_conv_strided(
// CHECK: linalg.matmul
func.func @pointwise_conv(%x: tensor<1x3x8x8xf32>, %w: tensor<5x3x1x1xf32>, %b: tensor<5xf32>) -> tensor<1x5x8x8xf32> {
  %y = dsmp.conv %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<5x3x1x1xf32>, tensor<5xf32>) -> tensor<1x5x8x8xf32>
  return %y : tensor<1x5x8x8xf32>
}
func.func @pointwise_conv_strided(%x: tensor<1x3x8x8xf32>, %w: tensor<5x3x1x1xf32>, %b: tensor<5xf32>) -> tensor<1x5x4x4xf32> {
  %y = dsmp.conv %x, %w, %b {strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<5x3x1x1xf32>, tensor<5xf32>) -> tensor<1x5x4x4xf32>
  return %y : tensor<1x5x4x4xf32>
}

// -----

/// A batch whose samples have few outputs (a 4x4 plane; over 24 products each, so not unrolled) is one GEMM: the
/// whole batch's im2col col[c, kh, kw, n, oh, ow] = x[n, c, oh + kh, ow + kw]
/// as [C*K, N*O], W[F, C*K] x col, and the product [F, N, O] transposed to
/// [N, F, O]. Samples with many outputs (a 40x40 plane) stay one GEMM each
/// in an scf.for.
// CHECK-DAG: #[[IM2COL:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d0, d1 + d4, d2 + d5)>
// CHECK-DAG: #[[TRANSPOSE:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>
// CHECK-LABEL: func.func @conv_small_planes(
// CHECK-NOT: scf.for
// CHECK: linalg.generic {indexing_maps = [#[[IM2COL]], {{.+}}]{{.*}} ins(%{{.+}} : tensor<3x4x6x6xf32>) outs(%{{.+}} : tensor<4x3x3x3x4x4xf32>)
// CHECK: %[[COL:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<4x3x3x3x4x4xf32> into tensor<36x48xf32>
// CHECK: %[[P:.+]] = linalg.matmul ins(%{{.+}}, %[[COL]] : tensor<5x36xf32>, tensor<36x48xf32>)
// CHECK: %[[G:.+]] = tensor.expand_shape %[[P]] {{\[}}[0], [1, 2, 3]] output_shape [5, 3, 4, 4]
// CHECK: linalg.generic {indexing_maps = [#[[TRANSPOSE]], {{.+}}]{{.*}} ins(%[[G]] : tensor<5x3x4x4xf32>) outs(%{{.+}} : tensor<3x5x4x4xf32>)
// CHECK-LABEL: func.func @conv_large_planes(
// CHECK: scf.for
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<5x36xf32>, tensor<36x1600xf32>)
func.func @conv_small_planes(%x: tensor<3x4x6x6xf32>, %w: tensor<5x4x3x3xf32>) -> tensor<3x5x4x4xf32> {
  %n = dsmp.none
  %y = dsmp.conv %x, %w, %n : (tensor<3x4x6x6xf32>, tensor<5x4x3x3xf32>, none) -> tensor<3x5x4x4xf32>
  return %y : tensor<3x5x4x4xf32>
}
func.func @conv_large_planes(%x: tensor<2x4x42x42xf32>, %w: tensor<5x4x3x3xf32>) -> tensor<2x5x40x40xf32> {
  %n = dsmp.none
  %y = dsmp.conv %x, %w, %n : (tensor<2x4x42x42xf32>, tensor<5x4x3x3xf32>, none) -> tensor<2x5x40x40xf32>
  return %y : tensor<2x5x40x40xf32>
}

// -----

/// ConvTranspose whose 2x2 kernel tiles the output (stride 2, no pads):
/// weights permuted to [F, kh, kw, C], one [F*4, C] x [C, H*W] matmul, and a
/// generic reading the product at (f, o mod 2, o div 2) that adds the bias.
// CHECK-DAG: #[[BLOCK:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d2 mod 2, d3 mod 2, d2 floordiv 2, d3 floordiv 2)>
// CHECK-LABEL: func.func @tiled_conv_transpose(
// CHECK: %[[W:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0, 1, 2], [3]] : tensor<4x2x2x3xf32> into tensor<16x3xf32>
// CHECK: %[[X:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2, 3]] : tensor<1x3x5x6xf32> into tensor<3x30xf32>
// CHECK: %[[P:.+]] = linalg.matmul ins(%[[W]], %[[X]] : tensor<16x3xf32>, tensor<3x30xf32>)
// CHECK: %[[B:.+]] = tensor.expand_shape %[[P]] {{\[}}[0, 1, 2], [3, 4]] output_shape [4, 2, 2, 5, 6]
// CHECK: linalg.generic {indexing_maps = [#[[BLOCK]], {{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[B]], %{{.+}} : tensor<4x2x2x5x6xf32>, tensor<4xf32>)
// CHECK: arith.addf
// CHECK-NOT: tensor.insert_slice
func.func @tiled_conv_transpose(%x: tensor<1x3x5x6xf32>, %w: tensor<3x4x2x2xf32>, %b: tensor<4xf32>) -> tensor<1x4x10x12xf32> {
  %y = dsmp.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>, kernel_shape = array<i64: 2, 2>} : (tensor<1x3x5x6xf32>, tensor<3x4x2x2xf32>, tensor<4xf32>) -> tensor<1x4x10x12xf32>
  return %y : tensor<1x4x10x12xf32>
}

// -----

/// Concat skips an empty piece (Phi-3's 0-wide rotary pass-through), whose
/// slice would start past the end.
// CHECK-LABEL: func.func @concat_empty_piece(
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK: tensor.insert_slice %{{.+}} into %[[E]][0, 0] [2, 3] [1, 1]
// CHECK-NOT: tensor.insert_slice
func.func @concat_empty_piece(%x: tensor<2x3xf32>, %e: tensor<2x0xf32>) -> tensor<2x3xf32> {
  %y = dsmp.concat %x, %e {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x0xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

/// A concat of more than 16 inputs (an unrolled recurrence's output) is a
/// concat of concats of at most 16: one-shot bufferization's analysis time
/// grows with the cube of an insert_slice chain's length.
// CHECK-LABEL: func.func @concat_many(
// CHECK: %[[FIRST:.+]] = tensor.empty() : tensor<16x4xf32>
// CHECK-COUNT-16: tensor.insert_slice %{{.+}} into %{{.+}} [1, 4] [1, 1] : tensor<1x4xf32> into tensor<16x4xf32>
// CHECK: %[[SECOND:.+]] = tensor.empty() : tensor<2x4xf32>
// CHECK-COUNT-2: tensor.insert_slice %{{.+}} into %{{.+}} [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x4xf32>
// CHECK: %[[ALL:.+]] = tensor.empty() : tensor<18x4xf32>
// CHECK: %[[LO:.+]] = tensor.insert_slice %{{.+}} into %[[ALL]][0, 0] [16, 4] [1, 1]
// CHECK: tensor.insert_slice %{{.+}} into %[[LO]][16, 0] [2, 4] [1, 1]
// CHECK-NOT: tensor.insert_slice
func.func @concat_many(%x0: tensor<1x4xf32>, %x1: tensor<1x4xf32>, %x2: tensor<1x4xf32>, %x3: tensor<1x4xf32>, %x4: tensor<1x4xf32>, %x5: tensor<1x4xf32>, %x6: tensor<1x4xf32>, %x7: tensor<1x4xf32>, %x8: tensor<1x4xf32>, %x9: tensor<1x4xf32>, %x10: tensor<1x4xf32>, %x11: tensor<1x4xf32>, %x12: tensor<1x4xf32>, %x13: tensor<1x4xf32>, %x14: tensor<1x4xf32>, %x15: tensor<1x4xf32>, %x16: tensor<1x4xf32>, %x17: tensor<1x4xf32>) -> tensor<18x4xf32> {
  %y = dsmp.concat %x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7, %x8, %x9, %x10, %x11, %x12, %x13, %x14, %x15, %x16, %x17 {axis = 0 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<18x4xf32>
  return %y : tensor<18x4xf32>
}

// -----

/// An op whose lowering needs static shapes (a Resize): the error says how
/// to give them.
func.func @dynamic(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x16x16xf32> {
  %n = dsmp.none
  %s = arith.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  // expected-error @+1 {{(Resize) has dynamic dims, which its lowering does not take yet: give the inputs' shapes (dsmp-specialize-shapes, dsmp-compile --shape)}}
  %y = dsmp.resize %x, %n, %s, %n {mode = "linear"} : (tensor<?x4x8x8xf32>, none, tensor<4xf32>, none) -> tensor<?x4x16x16xf32>
  return %y : tensor<?x4x16x16xf32>
}

// -----

/// A weight still in the weight file: the error names the pass that loads it.
func.func @external() -> tensor<2xf32> {
  // expected-error @+1 {{holds a weight still in the weight file (#dsmp.external): run --dsmp-load-weights first}}
  %w = dsmp.constant #dsmp.external<offset = 0, size = 8> : tensor<2xf32>
  return %w : tensor<2xf32>
}

// -----

/// ScatterND: an scf.for over the index tuples carries the result; each
/// row of the slice size goes in with tensor.insert_slice at the wrapped,
/// clamped index read at run time.
// CHECK-LABEL: func.func @scatter_nd(
// CHECK: %[[R:.+]] = scf.for %[[T:.+]] = {{.*}} iter_args(%[[ACC:.+]] = {{.*}}) -> (tensor<4x3xf32>)
// CHECK:   %[[I:.+]] = tensor.extract {{.*}}[%[[T]], {{.*}}] : tensor<2x1xi64>
// CHECK:   arith.maxsi
// CHECK:   arith.minsi
// CHECK:   %[[U:.+]] = tensor.extract_slice {{.*}}[%[[T]], 0] [1, 3] [1, 1] : tensor<2x3xf32> to tensor<1x3xf32>
// CHECK:   %[[N:.+]] = tensor.insert_slice %[[U]] into %[[ACC]][{{.*}}, 0] [1, 3] [1, 1]
// CHECK:   scf.yield %[[N]]
// CHECK: return %[[R]]
func.func @scatter_nd(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %y = dsmp.scatter_nd %x, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

/// ScatterElements with reduction add: one element per update, added to
/// the element already there.
// CHECK-LABEL: func.func @scatter_elements_add(
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.+]] = {{.*}}) -> (tensor<2x4xf32>)
// CHECK:   %[[OLD:.+]] = tensor.extract %[[ACC]][{{.*}}] : tensor<2x4xf32>
// CHECK:   %[[SUM:.+]] = arith.addf %[[OLD]], {{.*}} : f32
// CHECK:   tensor.insert %[[SUM]]
func.func @scatter_elements_add(%x: tensor<2x4xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) -> tensor<2x4xf32> {
  %y = dsmp.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"} : (tensor<2x4xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

/// OneHot: a generic over the result reading the index at every dim but the
/// axis (here 1); negative indices wrap by depth (5); on/off from values.
// CHECK-LABEL: func.func @one_hot(
// CHECK: %[[OFF:.+]] = tensor.extract %{{.*}}[%c0
// CHECK: %[[ON:.+]] = tensor.extract %{{.*}}[%c1
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x3xi64>) outs(%{{.*}} : tensor<2x5x3xf32>)
// CHECK: arith.cmpi slt
// CHECK: arith.addi %{{.*}}, %c5_i64
// CHECK: %[[AT:.+]] = linalg.index 1
// CHECK: arith.cmpi eq
// CHECK: arith.select %{{.*}}, %[[ON]], %[[OFF]]
func.func @one_hot(%i: tensor<2x3xi64>, %d: tensor<i64>, %v: tensor<2xf32>) -> tensor<2x5x3xf32> {
  %y = dsmp.one_hot %i, %d, %v {axis = 1 : i64} : (tensor<2x3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<2x5x3xf32>
  return %y : tensor<2x5x3xf32>
}

// -----

/// f16 -> bf16 (an f16 op's result read by a bf16 op) goes through f32,
/// which holds every f16 exactly: one rounding, and no truncf between two
/// types of one width (which arith rejects).
// CHECK-LABEL: func.func @f16_to_bf16
// CHECK: linalg.generic
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[W]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[N]] : bf16
func.func @f16_to_bf16(%x: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = dsmp.cast %x : (tensor<4xf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

/// A tf32 cast rounds its input (bit arithmetic in a linalg.generic); one
/// whose input dsmp-minimize-casts already rounded (dsmp.input_rounded)
/// only retypes: the matmul reads the weight itself.
// CHECK-LABEL: func.func @tf32_casts(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x4xf32>, %[[W:[a-z0-9]+]]: tensor<4x3xf32>
// CHECK: %[[R:.+]] = linalg.generic
// CHECK: arith.andi
// CHECK-NOT: linalg.generic
// CHECK: linalg.matmul ins(%[[R]], %[[W]] : tensor<2x4xf32>, tensor<4x3xf32>)
func.func @tf32_casts(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %xt = dsmp.cast %x : (tensor<2x4xf32>) -> tensor<2x4xtf32>
  %wt = dsmp.cast %w {dsmp.input_rounded} : (tensor<4x3xf32>) -> tensor<4x3xtf32>
  %yt = dsmp.matmul %xt, %wt {acc = #dsmp.format<f32>} : (tensor<2x4xtf32>, tensor<4x3xtf32>) -> tensor<2x3xtf32>
  %y = dsmp.cast %yt : (tensor<2x3xtf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

/// MaxPool with its Indices: one reduction over the window carries the
/// maximum and its position in X flattened whole (here 1 * 2 * 6 * 6 with
/// row-major planes of 36 and rows of 6); the first of tied maxima stays
/// (a strict ogt), the first tap always taken (index -1 at the start).
// CHECK-LABEL: func.func @max_pool_indices
// CHECK-DAG: %[[ROW:.+]] = arith.constant 6 : i64
// CHECK-DAG: %[[PLANE:.+]] = arith.constant 36 : i64
// CHECK-DAG: %[[SAMPLE:.+]] = arith.constant 72 : i64
// CHECK: %[[P:.+]] = tensor.pad
// CHECK: %[[V:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x3x3xf32>)
// CHECK: %[[I:.+]] = linalg.fill ins(%c-1_i64 : i64) outs(%{{.+}} : tensor<1x2x3x3xi64>)
// CHECK: %{{.+}}:2 = linalg.generic {{.+}} ins(%[[P]], %{{.+}} : tensor<1x2x7x7xf32>, tensor<3x3xf32>) outs(%[[V]], %[[I]] : tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
// CHECK: arith.muli %{{.+}}, %[[SAMPLE]]
// CHECK: arith.muli %{{.+}}, %[[PLANE]]
// CHECK: arith.muli %{{.+}}, %[[ROW]]
// CHECK: arith.cmpf ogt
// CHECK: linalg.yield %{{.+}}, %{{.+}} : f32, i64
func.func @max_pool_indices(%x: tensor<1x2x6x6xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>) {
  %y, %i = dsmp.max_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
  return %y, %i : tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>
}
