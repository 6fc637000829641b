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

/// A tf32 weight is rounded at compile time (ties away from zero, as
/// cvt.rna: 1 + 2^-11 -> 1 + 2^-10, 3 + 2^-10 -> 3 + 2^-9; inf stays) and
/// kept in f32 storage; its cast is marked so it only retypes.
// CHECK-LABEL: func.func @tf32_weights
// CHECK: %[[C:.*]] = dsmp.constant dense<[1.00097656, 3.00195313, 0x7F800000]> : tensor<3xf32>
// CHECK: %[[T:.*]] = dsmp.cast %[[C]] {dsmp.input_rounded} : (tensor<3xf32>) -> tensor<3xtf32>
// CHECK: dsmp.mul %{{.*}}, %[[T]]
func.func @tf32_weights(%x: tensor<3xtf32>) -> tensor<3xtf32> {
  %c = dsmp.constant dense<[1.00048828125, 3.0009765625, 0x7F800000]> : tensor<3xf32>
  %t = dsmp.cast %c : (tensor<3xf32>) -> tensor<3xtf32>
  %m = dsmp.mul %x, %t : (tensor<3xtf32>, tensor<3xtf32>) -> tensor<3xtf32>
  return %m : tensor<3xtf32>
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

/// A cast dsmp-insert-casts put on a constant operand (dsmp.keep_nonzero)
/// keeps non-zero finite values non-zero and finite: 1e-12 becomes f16's
/// smallest subnormal (2^-24), -1e9 its largest finite value, with signs;
/// 0 stays 0 and 1/3 rounds as before. The same constant in a model's own
/// cast rounds to nearest: 0 and -inf.
// CHECK-LABEL: func.func @keep_nonzero
// CHECK-DAG: dsmp.constant dense<[5.960460e-08, -5.960460e-08, -6.550400e+04, 0.000000e+00, 3.332520e-01]> : tensor<5xf16>
// CHECK-DAG: dsmp.constant dense<[0.000000e+00, -0.000000e+00, 0xFC00, 0.000000e+00, 3.332520e-01]> : tensor<5xf16>
func.func @keep_nonzero(%x: tensor<5xf16>) -> (tensor<5xf16>, tensor<5xf16>) {
  %c = dsmp.constant dense<[1.0e-12, -1.0e-12, -1.0e9, 0.0, 0.333333343]> : tensor<5xf32>
  %kept = dsmp.cast %c {dsmp.keep_nonzero} : (tensor<5xf32>) -> tensor<5xf16>
  %rounded = dsmp.cast %c : (tensor<5xf32>) -> tensor<5xf16>
  %a = dsmp.add %x, %kept : (tensor<5xf16>, tensor<5xf16>) -> tensor<5xf16>
  %b = dsmp.add %x, %rounded : (tensor<5xf16>, tensor<5xf16>) -> tensor<5xf16>
  return %a, %b : tensor<5xf16>, tensor<5xf16>
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

/// A widening cast that is an f16 MatMul's only use folds into it: the
/// MatMul stores its f32 sum unrounded (a language model's logits, no f16
/// copy beside the f32 one). A product with another use keeps its cast.
// CHECK-LABEL: func.func @product_stored_wide
// CHECK: %[[L:.*]] = dsmp.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf32>
// CHECK: %[[S:.*]] = dsmp.matmul %{{.*}}, %{{.*}} : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
// CHECK: %[[W:.*]] = dsmp.cast %[[S]] : (tensor<4x16xbf16>) -> tensor<4x16xf32>
// CHECK: %[[R:.*]] = dsmp.relu %[[S]]
// CHECK: return %[[L]], %[[W]], %[[R]]
func.func @product_stored_wide(%h: tensor<4x8xf16>, %e: tensor<8x16xf16>,
                               %hb: tensor<4x8xbf16>, %eb: tensor<8x16xbf16>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xbf16>) {
  %p = dsmp.matmul %h, %e : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  %logits = dsmp.cast %p : (tensor<4x16xf16>) -> tensor<4x16xf32>
  %q = dsmp.matmul %hb, %eb : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  %wide = dsmp.cast %q : (tensor<4x16xbf16>) -> tensor<4x16xf32>
  %r = dsmp.relu %q : (tensor<4x16xbf16>) -> tensor<4x16xbf16>
  return %logits, %wide, %r : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xbf16>
}

/// Two f32 readers that take the product through casts of their own: both
/// fold into the MatMul.
// CHECK-LABEL: func.func @two_casts_stored_wide
// CHECK: %[[G:.*]] = dsmp.matmul {{.*}} : (tensor<2x8xf16>, tensor<8x4xf16>) -> tensor<2x4xf32>
// CHECK-NOT: dsmp.cast
// CHECK: %[[E:.*]] = dsmp.exp %[[G]]
// CHECK: return %[[G]], %[[E]]
func.func @two_casts_stored_wide(%x: tensor<2x8xf16>, %w: tensor<8x4xf16>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %g = dsmp.matmul %x, %w : (tensor<2x8xf16>, tensor<8x4xf16>) -> tensor<2x4xf16>
  %c1 = dsmp.cast %g : (tensor<2x4xf16>) -> tensor<2x4xf32>
  %c2 = dsmp.cast %g : (tensor<2x4xf16>) -> tensor<2x4xf32>
  %e = dsmp.exp %c2 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %c1, %e : tensor<2x4xf32>, tensor<2x4xf32>
}

/// A classifier's head: an f16 Gemm whose only use widens it stores its
/// f32 sum plus the f16 bias unrounded.
// CHECK-LABEL: func.func @gemm_stored_wide
// CHECK: %[[G:.*]] = dsmp.gemm {{.*}} {transB = 1 : i64} : (tensor<2x8xf16>, tensor<4x8xf16>, tensor<4xf16>) -> tensor<2x4xf32>
// CHECK-NOT: dsmp.cast
// CHECK: return %[[G]]
func.func @gemm_stored_wide(%x: tensor<2x8xf16>, %w: tensor<4x8xf16>,
                            %b: tensor<4xf16>) -> tensor<2x4xf32> {
  %g = dsmp.gemm %x, %w, %b {transB = 1 : i64} : (tensor<2x8xf16>, tensor<4x8xf16>, tensor<4xf16>) -> tensor<2x4xf16>
  %c = dsmp.cast %g : (tensor<2x4xf16>) -> tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}

/// A narrowing cast of data moved from a graph input is hoisted onto the
/// input, so the f32 copy (a wake-word head's flattened features, its
/// largest tensor) is not kept beside the f16 one; data moved from a
/// computed value keeps its cast where it is.
// CHECK-LABEL: func.func @hoist_input_cast
// CHECK: %[[H:.*]] = dsmp.cast %arg0 : (tensor<1x16x96xf32>) -> tensor<1x16x96xf16>
// CHECK-NEXT: %[[F:.*]] = dsmp.flatten %[[H]] : (tensor<1x16x96xf16>) -> tensor<1x1536xf16>
// CHECK: %[[R:.*]] = dsmp.reshape %{{.*}}, %{{.*}} : (tensor<1x16x96xf32>, tensor<2xi64>) -> tensor<2x768xf32>
// CHECK-NEXT: dsmp.cast %[[R]] : (tensor<2x768xf32>) -> tensor<2x768xf16>
func.func @hoist_input_cast(%x: tensor<1x16x96xf32>) -> (tensor<1x1536xf16>, tensor<2x768xf16>) {
  %f = dsmp.flatten %x : (tensor<1x16x96xf32>) -> tensor<1x1536xf32>
  %h = dsmp.cast %f : (tensor<1x1536xf32>) -> tensor<1x1536xf16>
  %n = dsmp.neg %x : (tensor<1x16x96xf32>) -> tensor<1x16x96xf32>
  %s = dsmp.constant dense<[2, 768]> : tensor<2xi64>
  %r = dsmp.reshape %n, %s : (tensor<1x16x96xf32>, tensor<2xi64>) -> tensor<2x768xf32>
  %c = dsmp.cast %r : (tensor<2x768xf32>) -> tensor<2x768xf16>
  return %h, %c : tensor<1x1536xf16>, tensor<2x768xf16>
}

/// Integers made f32 and then f16 are made f16 at once (the same values:
/// an integer f32 does not hold exactly overflows f16 either way), with no
/// f32 copy beside (Magika's one-hot bytes); the cast keeps its name and
/// takes f16 as its format. bf16 only from integers f32 holds exactly
/// (i16 here; an i32 through f32 can round twice), and an f32 value with
/// another user stays.
// CHECK-LABEL: func.func @integer_source
// CHECK: %[[H:.*]] = dsmp.cast %arg0 {dsmp.assigned = #dsmp.format<f16>, dsmp.name = "one_hot"} : (tensor<8xi1>) -> tensor<8xf16>
// CHECK: dsmp.mul %[[H]], %arg3
// CHECK: dsmp.cast %arg1 : (tensor<8xi16>) -> tensor<8xbf16>
// CHECK: %[[W:.*]] = dsmp.cast %arg2 : (tensor<8xi32>) -> tensor<8xf32>
// CHECK: dsmp.cast %[[W]] : (tensor<8xf32>) -> tensor<8xbf16>
// CHECK: %[[S:.*]] = dsmp.cast %arg1 : (tensor<8xi16>) -> tensor<8xf32>
// CHECK: dsmp.cast %[[S]] : (tensor<8xf32>) -> tensor<8xf16>
// CHECK: return {{.*}}, %[[S]]
func.func @integer_source(%b: tensor<8xi1>, %s: tensor<8xi16>, %i: tensor<8xi32>, %x: tensor<8xf16>)
    -> (tensor<8xf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xf16>, tensor<8xf32>) {
  %w = dsmp.cast %b {dsmp.assigned = #dsmp.format<f32>, dsmp.name = "one_hot"} : (tensor<8xi1>) -> tensor<8xf32>
  %h = dsmp.cast %w : (tensor<8xf32>) -> tensor<8xf16>
  %m = dsmp.mul %h, %x : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  %ws = dsmp.cast %s : (tensor<8xi16>) -> tensor<8xf32>
  %bs = dsmp.cast %ws : (tensor<8xf32>) -> tensor<8xbf16>
  %wi = dsmp.cast %i : (tensor<8xi32>) -> tensor<8xf32>
  %bi = dsmp.cast %wi : (tensor<8xf32>) -> tensor<8xbf16>
  %ws2 = dsmp.cast %s : (tensor<8xi16>) -> tensor<8xf32>
  %hs2 = dsmp.cast %ws2 : (tensor<8xf32>) -> tensor<8xf16>
  return %m, %bs, %bi, %hs2, %ws2 : tensor<8xf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xf16>, tensor<8xf32>
}
