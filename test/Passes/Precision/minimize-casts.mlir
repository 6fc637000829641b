// RUN: dsmp-opt %s --pass-pipeline='builtin.module(func.func(dsmp-minimize-casts),cse)' | FileCheck %s

/// f16 -> f32 -> f16 is the f16 value: the round trip between two f16 ops
/// disappears; the f32 -> f16 -> f32 rounding stays (it changes values).
// CHECK-LABEL: func.func @round_trip
// CHECK: %[[R:.*]] = dsmp.relu %{{.*}} : (tensor<8xf16>) -> tensor<8xf16>
// CHECK-NEXT: %[[N:.*]] = dsmp.neg %[[R]] : (tensor<8xf16>) -> tensor<8xf16>
// CHECK-NEXT: %[[W:.*]] = dsmp.cast %[[N]] : (tensor<8xf16>) -> tensor<8xf32>
// CHECK-NEXT: return %[[W]]
func.func @round_trip(%x: tensor<8xf16>) -> tensor<8xf32> {
  %r = dsmp.relu %x : (tensor<8xf16>) -> tensor<8xf16>
  %w = dsmp.cast %r : (tensor<8xf16>) -> tensor<8xf32>
  %n16 = dsmp.cast %w : (tensor<8xf32>) -> tensor<8xf16>
  %n = dsmp.neg %n16 : (tensor<8xf16>) -> tensor<8xf16>
  %out = dsmp.cast %n : (tensor<8xf16>) -> tensor<8xf32>
  return %out : tensor<8xf32>
}

/// Weights are converted at compile time (round to nearest even: 1/3 and
/// 65519 become 0.333252 and 65504 in f16, 65520 overflows to inf).
// CHECK-LABEL: func.func @weights
// CHECK: %[[C:.*]] = dsmp.constant dense<[3.332520e-01, 6.550400e+04, 0x7C00]> : tensor<3xf16>
// CHECK-NOT: dsmp.cast
// CHECK: dsmp.mul %{{.*}}, %[[C]]
func.func @weights(%x: tensor<3xf16>) -> tensor<3xf16> {
  %c = dsmp.constant dense<[0.333333343, 65519.0, 65520.0]> : tensor<3xf32>
  %c16 = dsmp.cast %c : (tensor<3xf32>) -> tensor<3xf16>
  %m = dsmp.mul %x, %c16 : (tensor<3xf16>, tensor<3xf16>) -> tensor<3xf16>
  return %m : tensor<3xf16>
}

/// A widening cast sinks below a reshape, so the data moves in bf16 and the
/// narrowing cast after it cancels.
// CHECK-LABEL: func.func @sink
// CHECK: %[[R:.*]] = dsmp.reshape %{{.*}}, %{{.*}} : (tensor<2x4xbf16>, tensor<1xi64>) -> tensor<8xbf16>
// CHECK-NEXT: %[[S:.*]] = dsmp.sigmoid %[[R]]
// CHECK-NOT: dsmp.cast {{.*}} -> tensor<8xf32>
func.func @sink(%x: tensor<2x4xbf16>) -> tensor<8xbf16> {
  %w = dsmp.cast %x : (tensor<2x4xbf16>) -> tensor<2x4xf32>
  %shape = dsmp.constant dense<8> : tensor<1xi64>
  %r = dsmp.reshape %w, %shape : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<8xf32>
  %n = dsmp.cast %r : (tensor<8xf32>) -> tensor<8xbf16>
  %s = dsmp.sigmoid %n : (tensor<8xbf16>) -> tensor<8xbf16>
  return %s : tensor<8xbf16>
}

/// Two users that each cast the same value share one cast.
// CHECK-LABEL: func.func @shared
// CHECK-COUNT-1: dsmp.cast
// CHECK-NOT: dsmp.cast
func.func @shared(%x: tensor<8xf32>) -> (tensor<8xf16>, tensor<8xf16>) {
  %a = dsmp.cast %x : (tensor<8xf32>) -> tensor<8xf16>
  %r = dsmp.relu %a : (tensor<8xf16>) -> tensor<8xf16>
  %b = dsmp.cast %x : (tensor<8xf32>) -> tensor<8xf16>
  %n = dsmp.neg %b : (tensor<8xf16>) -> tensor<8xf16>
  return %r, %n : tensor<8xf16>, tensor<8xf16>
}
