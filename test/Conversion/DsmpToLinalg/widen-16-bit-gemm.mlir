// With a GEMM library (widen-16-bit-gemm, set by dsmp-lower-to-llvm when it
// calls one), an f16 or bf16 Gemm, MatMul or convolution that accumulates
// in f32 becomes the f32 linalg.matmul that dsmp-linalg-to-blas hands to
// the library: the operands widened to f32 (exact), the sum rounded once to
// the result type. Without it, the sum of products stays a generic loop.
// RUN: dsmp-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dsmp-convert-to-linalg{widen-16-bit-gemm}))' | FileCheck %s
// RUN: dsmp-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dsmp-convert-to-linalg))' | FileCheck %s --check-prefix=LOOPS

// CHECK-LABEL: func.func @gemm_f16(
// CHECK: %[[A:.+]] = linalg.generic {{.*}} ins(%{{.+}} : tensor<3x5xf16>) outs(%{{.+}} : tensor<3x5xf32>)
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: %[[B:.+]] = linalg.generic {{.*}} ins(%{{.+}} : tensor<4x5xf16>) outs(%{{.+}} : tensor<4x5xf32>)
// CHECK: %[[P:.+]] = linalg.matmul {{.*}}ins(%[[A]], %[[B]] : tensor<3x5xf32>, tensor<4x5xf32>) outs(%{{.+}} : tensor<3x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<3x4xf32>) outs(%{{.+}} : tensor<3x4xf16>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
// LOOPS-LABEL: func.func @gemm_f16(
// LOOPS-NOT: linalg.matmul
// LOOPS: return
func.func @gemm_f16(%a: tensor<3x5xf16>, %b: tensor<4x5xf16>) -> tensor<3x4xf16> {
  %n = dsmp.none
  %y = dsmp.gemm %a, %b, %n {transB = 1 : i64} : (tensor<3x5xf16>, tensor<4x5xf16>, none) -> tensor<3x4xf16>
  return %y : tensor<3x4xf16>
}

// -----

// CHECK-LABEL: func.func @matmul_bf16(
// CHECK: linalg.matmul {{.*}}: tensor<6x8xf32>, tensor<8x4xf32>) outs(%{{.+}} : tensor<6x4xf32>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// LOOPS-LABEL: func.func @matmul_bf16(
// LOOPS-NOT: linalg.matmul
// LOOPS: return
func.func @matmul_bf16(%a: tensor<2x3x8xbf16>, %b: tensor<8x4xbf16>) -> tensor<2x3x4xbf16> {
  %y = dsmp.matmul %a, %b : (tensor<2x3x8xbf16>, tensor<8x4xbf16>) -> tensor<2x3x4xbf16>
  return %y : tensor<2x3x4xbf16>
}

// -----

// The batch's im2col, then W[4, 2*3*3] x col[18, 2*16] in f32.
// CHECK-LABEL: func.func @conv_f16(
// CHECK-NOT: scf.for
// CHECK: linalg.matmul {{.*}}: tensor<4x18xf32>, tensor<18x32xf32>) outs(%{{.+}} : tensor<4x32xf32>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
// LOOPS-LABEL: func.func @conv_f16(
// LOOPS-NOT: linalg.matmul
// LOOPS: return
func.func @conv_f16(%x: tensor<2x2x6x6xf16>, %w: tensor<4x2x3x3xf16>) -> tensor<2x4x4x4xf16> {
  %n = dsmp.none
  %y = dsmp.conv %x, %w, %n : (tensor<2x2x6x6xf16>, tensor<4x2x3x3xf16>, none) -> tensor<2x4x4x4xf16>
  return %y : tensor<2x4x4x4xf16>
}

// -----

/// An f16 MatMul that stores its product in f32 (dsmp-minimize-casts folds
/// the widening cast of logits into it): the f32 sum is the result, with no
/// rounding to f16 on either path.
// CHECK-LABEL: func.func @matmul_f16_stored_wide(
// CHECK: linalg.matmul {{.*}}: tensor<6x8xf32>, tensor<8x4xf32>) outs(%{{.+}} : tensor<6x4xf32>)
// CHECK-NOT: arith.truncf
// CHECK: return
// LOOPS-LABEL: func.func @matmul_f16_stored_wide(
// LOOPS: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<2x3x8xf16>, tensor<8x4xf16>) outs(%{{.+}} : tensor<2x3x4xf32>)
// LOOPS: arith.extf
// LOOPS-NOT: arith.truncf
// LOOPS: return
func.func @matmul_f16_stored_wide(%a: tensor<2x3x8xf16>, %b: tensor<8x4xf16>) -> tensor<2x3x4xf32> {
  %y = dsmp.matmul %a, %b : (tensor<2x3x8xf16>, tensor<8x4xf16>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

/// An f16 Gemm that stores its product in f32: the f32 sum plus the bias
/// widened from f16, with no rounding to f16.
// CHECK-LABEL: func.func @gemm_f16_stored_wide(
// CHECK: linalg.matmul {{.*}}outs(%{{.+}} : tensor<3x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<3x4xf32>, tensor<4xf16>) outs(%{{.+}} : tensor<3x4xf32>)
// CHECK: arith.extf
// CHECK-NEXT: arith.addf
// CHECK-NOT: arith.truncf
// CHECK: return
// LOOPS-LABEL: func.func @gemm_f16_stored_wide(
// LOOPS: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<3x8xf16>, tensor<4x8xf16>) outs(%{{.+}} : tensor<3x4xf32>)
// LOOPS-NOT: arith.truncf
// LOOPS: arith.addf
// LOOPS-NOT: arith.truncf
// LOOPS: return
func.func @gemm_f16_stored_wide(%a: tensor<3x8xf16>, %b: tensor<4x8xf16>, %c: tensor<4xf16>) -> tensor<3x4xf32> {
  %y = dsmp.gemm %a, %b, %c {transB = 1 : i64} : (tensor<3x8xf16>, tensor<4x8xf16>, tensor<4xf16>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

/// A biased f16 convolution adds its bias (widened) to the f32 sum and
/// rounds once, on both paths, as a library's bias epilogue does.
// CHECK-LABEL: func.func @conv_f16_bias(
// CHECK: linalg.matmul {{.*}}outs(%{{.+}} : tensor<4x32xf32>)
// CHECK-NOT: arith.truncf
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<2x4x4x4xf32>, tensor<4xf16>) outs(%{{.+}} : tensor<2x4x4x4xf16>)
// CHECK: %[[B:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK: %[[S:.+]] = arith.addf %{{.+}}, %[[B]] : f32
// CHECK: arith.truncf %[[S]] : f32 to f16
// LOOPS-LABEL: func.func @conv_f16_bias(
// LOOPS-NOT: arith.truncf
// LOOPS: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<2x4x4x4xf32>, tensor<4xf16>) outs(%{{.+}} : tensor<2x4x4x4xf16>)
// LOOPS: %[[B:.+]] = arith.extf %{{.+}} : f16 to f32
// LOOPS: %[[S:.+]] = arith.addf %{{.+}}, %[[B]] : f32
// LOOPS: arith.truncf %[[S]] : f32 to f16
func.func @conv_f16_bias(%x: tensor<2x2x6x6xf16>, %w: tensor<4x2x3x3xf16>, %b: tensor<4xf16>) -> tensor<2x4x4x4xf16> {
  %y = dsmp.conv %x, %w, %b : (tensor<2x2x6x6xf16>, tensor<4x2x3x3xf16>, tensor<4xf16>) -> tensor<2x4x4x4xf16>
  return %y : tensor<2x4x4x4xf16>
}

// -----

/// A bf16 Gemm with alpha and C: both applied to the f32 sum, one rounding.
// CHECK-LABEL: func.func @gemm_bf16_alpha_c(
// CHECK: linalg.matmul {{.*}}outs(%{{.+}} : tensor<3x4xf32>)
// CHECK-NOT: arith.truncf
// CHECK: arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: arith.addf %{{.+}}, %{{.+}} : f32
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK-NOT: arith.truncf
// CHECK: return
// LOOPS-LABEL: func.func @gemm_bf16_alpha_c(
// LOOPS: linalg.generic {{.*}} outs(%{{.+}} : tensor<3x4xf32>)
// LOOPS-NOT: arith.truncf
// LOOPS: arith.mulf %{{.+}}, %{{.+}} : f32
// LOOPS: arith.addf %{{.+}}, %{{.+}} : f32
// LOOPS: arith.truncf %{{.+}} : f32 to bf16
// LOOPS-NOT: arith.truncf
// LOOPS: return
func.func @gemm_bf16_alpha_c(%a: tensor<3x5xbf16>, %b: tensor<5x4xbf16>, %c: tensor<4xbf16>) -> tensor<3x4xbf16> {
  %y = dsmp.gemm %a, %b, %c {alpha = 0.5 : f32} : (tensor<3x5xbf16>, tensor<5x4xbf16>, tensor<4xbf16>) -> tensor<3x4xbf16>
  return %y : tensor<3x4xbf16>
}
