// RUN: dsmp-opt %s --pass-pipeline='builtin.module(func.func(dsmp-insert-casts))' | FileCheck %s
// RUN: dsmp-opt %s --pass-pipeline='builtin.module(func.func(dsmp-insert-casts,dsmp-minimize-casts),cse)' | FileCheck %s --check-prefix=MIN

/// An f8 matmul reads both operands through quantize -> dequantize with one
/// scale per tensor, amax / 448 for E4M3FN: the activation's amax (4.48)
/// comes from its producer's calibrated range, seen through the f16 relu's
/// cast back to f32; the weights' (0.875) from their data. The matmul keeps
/// f32 types (it accumulates in f32).
// CHECK-LABEL: func.func @main_graph
// CHECK: %[[R:.*]] = dsmp.relu {{.*}} -> tensor<4x8xf16>
// CHECK: %[[X:.*]] = dsmp.cast %[[R]] : (tensor<4x8xf16>) -> tensor<4x8xf32>
// CHECK: %[[SX:.*]] = dsmp.constant dense<0.00999999977> : tensor<f32>
// CHECK: %[[ZX:.*]] = dsmp.constant dense<0.000000e+00> : tensor<f8E4M3FN>
// CHECK: %[[QX:.*]] = dsmp.quantize_linear %[[X]], %[[SX]], %[[ZX]] {{.*}}: (tensor<4x8xf32>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<4x8xf8E4M3FN>
// CHECK: %[[DX:.*]] = dsmp.dequantize_linear %[[QX]], %[[SX]], %[[ZX]] {{.*}}: (tensor<4x8xf8E4M3FN>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<4x8xf32>
// CHECK: %[[SW:.*]] = dsmp.constant dense<0.001953125> : tensor<f32>
// CHECK: %[[QW:.*]] = dsmp.quantize_linear %[[W:.*]], %[[SW]], %{{.*}} -> tensor<8x8xf8E4M3FN>
// CHECK: %[[DW:.*]] = dsmp.dequantize_linear %[[QW]], %[[SW]]
// CHECK: dsmp.matmul %[[DX]], %[[DW]] {{.*}} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
/// minimize-casts folds the weights' quantization: 0.875 / 2^-9 = 448, the
/// largest E4M3FN value; -0.4375 / 2^-9 = -224. CSE shares the scale and
/// the zero point.
// MIN-LABEL: func.func @main_graph
// MIN: %[[W8:.*]] = dsmp.constant dense<{{\[}}[4.480000e+02, -2.240000e+02,{{.*}}> : tensor<8x8xf8E4M3FN>
// MIN: %[[DW:.*]] = dsmp.dequantize_linear %[[W8]], %{{.*}} -> tensor<8x8xf32>
// MIN: dsmp.matmul %{{.*}}, %[[DW]]
// MIN-NOT: dsmp.quantize_linear %{{.*}} -> tensor<8x8xf8E4M3FN>
func.func @main_graph(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = dsmp.constant dense<[[0.875, -0.4375, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25]]> : tensor<8x8xf32>
  %0 = dsmp.relu %a {dsmp.assigned = #dsmp.format<f16>, dsmp.range = {amax = 4.48 : f64}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = dsmp.matmul %0, %w {dsmp.assigned = #dsmp.format<f8E4M3FN>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
