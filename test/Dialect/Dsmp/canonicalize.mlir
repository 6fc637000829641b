// RUN: dsmp-opt %s --canonicalize --split-input-file | FileCheck %s

/// Identity folds to its input.
// CHECK-LABEL: func.func @identity(
// CHECK-SAME: %[[X:.+]]: tensor<4xf32>
// CHECK-NEXT: return %[[X]]
func.func @identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = dsmp.identity %x : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

/// Shape of static dims folds to a constant; start/end select the dims.
// CHECK-LABEL: func.func @shape_static(
// CHECK-NEXT: %[[C:.+]] = dsmp.constant dense<[3, 5]> : tensor<2xi64>
// CHECK-NEXT: return %[[C]]
func.func @shape_static(%x: tensor<2x3x5xf32>) -> tensor<2xi64> {
  %s = dsmp.shape %x {start = 1 : i64} : (tensor<2x3x5xf32>) -> tensor<2xi64>
  return %s : tensor<2xi64>
}

// -----

/// A dynamic dim keeps the Shape op.
// CHECK-LABEL: func.func @shape_dynamic(
// CHECK: dsmp.shape
func.func @shape_dynamic(%x: tensor<?x3xf32>) -> tensor<2xi64> {
  %s = dsmp.shape %x : (tensor<?x3xf32>) -> tensor<2xi64>
  return %s : tensor<2xi64>
}

// -----

/// Size of a static shape folds.
// CHECK-LABEL: func.func @size(
// CHECK-NEXT: %[[C:.+]] = dsmp.constant dense<30> : tensor<i64>
func.func @size(%x: tensor<2x3x5xf32>) -> tensor<i64> {
  %s = dsmp.size %x : (tensor<2x3x5xf32>) -> tensor<i64>
  return %s : tensor<i64>
}

// -----

/// The shape arithmetic of exported graphs folds away:
/// Gather(Shape) -> Unsqueeze -> Concat with a constant.
// CHECK-LABEL: func.func @shape_arithmetic(
// CHECK-NEXT: %[[C:.+]] = dsmp.constant dense<[3, -1]> : tensor<2xi64>
// CHECK-NEXT: return %[[C]]
func.func @shape_arithmetic(%x: tensor<3x4x5xf32>) -> tensor<2xi64> {
  %s = dsmp.shape %x : (tensor<3x4x5xf32>) -> tensor<3xi64>
  %i = dsmp.constant dense<0> : tensor<i64>
  %d = dsmp.gather %s, %i : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %a = dsmp.constant dense<0> : tensor<1xi64>
  %u = dsmp.unsqueeze %d, %a : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %m = dsmp.constant dense<-1> : tensor<1xi64>
  %c = dsmp.concat %u, %m {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  return %c : tensor<2xi64>
}

// -----

/// Casts between integer types fold on constants; a no-op cast folds away.
// CHECK-LABEL: func.func @cast_fold(
// CHECK-SAME: %[[X:.+]]: tensor<4xf32>
// CHECK-DAG: %[[C:.+]] = dsmp.constant dense<[7, -1]> : tensor<2xi32>
// CHECK: return %[[X]], %[[C]]
func.func @cast_fold(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xi32>) {
  %y = dsmp.cast %x : (tensor<4xf32>) -> tensor<4xf32>
  %c = dsmp.constant dense<[7, -1]> : tensor<2xi64>
  %z = dsmp.cast %c : (tensor<2xi64>) -> tensor<2xi32>
  return %y, %z : tensor<4xf32>, tensor<2xi32>
}

// -----

/// Float shape arithmetic cast back to integers folds, rounded as f32
/// computes it (MobileViT: ceil(63 / 2) * 2 / 2 = 32; ceil(-15 / 2) = -7);
/// float math that stays float, or reads an argument, stays.
// CHECK-LABEL: func.func @float_shape_math(
// CHECK-DAG: %[[N:.+]] = dsmp.constant dense<[32, -7]> : tensor<2xi64>
// CHECK-DAG: dsmp.ceil %{{.+}} : (tensor<f32>) -> tensor<f32>
// CHECK: return %[[N]], %{{.+}}, %{{.+}} : tensor<2xi64>, tensor<f32>, tensor<i64>
func.func @float_shape_math(%x: tensor<f32>) -> (tensor<2xi64>, tensor<f32>, tensor<i64>) {
  %h = dsmp.constant dense<[63, -15]> : tensor<2xi64>
  %two = dsmp.constant dense<2.0> : tensor<f32>
  %hf = dsmp.cast %h : (tensor<2xi64>) -> tensor<2xf32>
  %q = dsmp.div %hf, %two : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %c = dsmp.ceil %q : (tensor<2xf32>) -> tensor<2xf32>
  %m = dsmp.mul %c, %two : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %d = dsmp.div %m, %two : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %n = dsmp.cast %d : (tensor<2xf32>) -> tensor<2xi64>
  %y = dsmp.ceil %x : (tensor<f32>) -> tensor<f32>
  %z = dsmp.cast %y : (tensor<f32>) -> tensor<i64>
  return %n, %y, %z : tensor<2xi64>, tensor<f32>, tensor<i64>
}

// -----

/// DINOv2's patches per side: int(N ** 0.5), and sqrt likewise.
// CHECK-LABEL: func.func @float_shape_pow(
// CHECK-NEXT: %[[S:.+]] = dsmp.constant dense<8> : tensor<i64>
// CHECK-NEXT: %[[R:.+]] = dsmp.constant dense<3> : tensor<i64>
// CHECK-NEXT: return %[[S]], %[[R]]
func.func @float_shape_pow() -> (tensor<i64>, tensor<i64>) {
  %n = dsmp.constant dense<64> : tensor<i64>
  %half = dsmp.constant dense<0.5> : tensor<f32>
  %nf = dsmp.cast %n : (tensor<i64>) -> tensor<f32>
  %p = dsmp.pow %nf, %half : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %s = dsmp.cast %p : (tensor<f32>) -> tensor<i64>
  %ten = dsmp.constant dense<10.0> : tensor<f32>
  %q = dsmp.sqrt %ten : (tensor<f32>) -> tensor<f32>
  %r = dsmp.cast %q : (tensor<f32>) -> tensor<i64>
  return %s, %r : tensor<i64>, tensor<i64>
}

// -----

/// Max and Min of integer constants fold (MPT's ALiBi slice start,
/// max(0, n - length)); of floats they stay.
// CHECK-LABEL: func.func @int_max_min(
// CHECK-DAG: dsmp.constant dense<[3, 0]> : tensor<2xi64>
// CHECK-DAG: dsmp.constant dense<[-1, -4]> : tensor<2xi64>
// CHECK: dsmp.max %{{.+}}, %{{.+}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NOT: dsmp.min
func.func @int_max_min(%x: tensor<f32>) -> (tensor<2xi64>, tensor<2xi64>, tensor<f32>) {
  %a = dsmp.constant dense<[3, -4]> : tensor<2xi64>
  %z = dsmp.constant dense<0> : tensor<i64>
  %m = dsmp.constant dense<-1> : tensor<i64>
  %hi = dsmp.max %a, %z : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %lo = dsmp.min %a, %z, %m : (tensor<2xi64>, tensor<i64>, tensor<i64>) -> tensor<2xi64>
  %one = dsmp.constant dense<1.0> : tensor<f32>
  %f = dsmp.max %x, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %hi, %lo, %f : tensor<2xi64>, tensor<2xi64>, tensor<f32>
}

// -----

/// Integer Neg and Abs on shape values fold (XLNet's relative positions:
/// Range(n, -n, -1) with n from Shape); float ones stay, their rounding is
/// a precision decision.
// CHECK-LABEL: func.func @int_neg_abs(
// CHECK-DAG: dsmp.constant dense<-16> : tensor<i64>
// CHECK-DAG: dsmp.constant dense<[3, 4]> : tensor<2xi64>
// CHECK: dsmp.neg %{{.+}} : (tensor<f32>) -> tensor<f32>
// CHECK-NOT: dsmp.abs
func.func @int_neg_abs(%x: tensor<f32>) -> (tensor<i64>, tensor<2xi64>, tensor<f32>) {
  %n = dsmp.constant dense<16> : tensor<i64>
  %neg = dsmp.neg %n : (tensor<i64>) -> tensor<i64>
  %a = dsmp.constant dense<[3, -4]> : tensor<2xi64>
  %abs = dsmp.abs %a : (tensor<2xi64>) -> tensor<2xi64>
  %f = dsmp.neg %x : (tensor<f32>) -> tensor<f32>
  return %neg, %abs, %f : tensor<i64>, tensor<2xi64>, tensor<f32>
}

// -----

/// TF "same" padding (timm's tf_* ports): the pads of a stride-2, 3-wide
/// window over 64 computed in f32 from the input's height, clipped at 0,
/// halved, cast to int and back, then joined by Unsqueeze and Concat.
// CHECK-LABEL: func.func @tf_same_padding(
// CHECK-NEXT: %[[P:.+]] = dsmp.constant dense<[0, 1, 0, 1]> : tensor<4xi64>
// CHECK-NEXT: return %[[P]]
func.func @tf_same_padding() -> tensor<4xi64> {
  %ih = dsmp.constant dense<64> : tensor<i64>
  %zero = dsmp.constant dense<0.0> : tensor<f32>
  %one = dsmp.constant dense<1.0> : tensor<f32>
  %two = dsmp.constant dense<2.0> : tensor<f32>
  %axis = dsmp.constant dense<0> : tensor<1xi64>
  %none = dsmp.none
  %h = dsmp.cast %ih : (tensor<i64>) -> tensor<f32>
  %q = dsmp.div %h, %two : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %c = dsmp.ceil %q : (tensor<f32>) -> tensor<f32>
  %c1 = dsmp.sub %c, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %s = dsmp.mul %c1, %two : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %k = dsmp.add %s, %two : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %k1 = dsmp.add %k, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %total = dsmp.sub %k1, %h : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %pad = dsmp.clip %total, %zero, %none : (tensor<f32>, tensor<f32>, none) -> tensor<f32>
  %half = dsmp.div %pad, %two : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %hi = dsmp.cast %half : (tensor<f32>) -> tensor<i64>
  %before = dsmp.cast %hi : (tensor<i64>) -> tensor<f32>
  %after = dsmp.sub %pad, %before : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %b1 = dsmp.unsqueeze %before, %axis : (tensor<f32>, tensor<1xi64>) -> tensor<1xf32>
  %a1 = dsmp.unsqueeze %after, %axis : (tensor<f32>, tensor<1xi64>) -> tensor<1xf32>
  %all = dsmp.concat %b1, %a1, %b1, %a1 {axis = 0 : i64} : (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4xf32>
  %pads = dsmp.cast %all : (tensor<4xf32>) -> tensor<4xi64>
  return %pads : tensor<4xi64>
}

// -----

/// GCViT's Tile repeats: OneHot of a constant axis times [1, B].
// CHECK-LABEL: func.func @one_hot_constants(
// CHECK-DAG: dsmp.constant dense<{{\[}}[1, 64, 1, 1, 1]]> : tensor<1x5xi64>
// CHECK-DAG: dsmp.constant dense<{{\[}}[0, 0], [1, 0], [0, 0]]> : tensor<3x2xi64>
// CHECK: dsmp.one_hot %{{.+}} : (tensor<2xi64>, tensor<i64>, tensor<2xi64>) -> tensor<2x3xi64>
func.func @one_hot_constants(%i: tensor<2xi64>) -> (tensor<1x5xi64>, tensor<3x2xi64>, tensor<2x3xi64>) {
  %index = dsmp.constant dense<1> : tensor<1xi64>
  %depth = dsmp.constant dense<5> : tensor<i64>
  %values = dsmp.constant dense<[1, 64]> : tensor<2xi64>
  %a = dsmp.one_hot %index, %depth, %values : (tensor<1xi64>, tensor<i64>, tensor<2xi64>) -> tensor<1x5xi64>
  %pair = dsmp.constant dense<[-2, 5]> : tensor<2xi64>
  %three = dsmp.constant dense<3> : tensor<i64>
  %bits = dsmp.constant dense<[0, 1]> : tensor<2xi64>
  %b = dsmp.one_hot %pair, %three, %bits {axis = 0 : i64} : (tensor<2xi64>, tensor<i64>, tensor<2xi64>) -> tensor<3x2xi64>
  %c = dsmp.one_hot %i, %three, %bits : (tensor<2xi64>, tensor<i64>, tensor<2xi64>) -> tensor<2x3xi64>
  return %a, %b, %c : tensor<1x5xi64>, tensor<3x2xi64>, tensor<2x3xi64>
}

// -----

/// A float cast is a precision decision and stays.
// CHECK-LABEL: func.func @cast_keeps_precision(
// CHECK: dsmp.cast %{{.+}} : (tensor<4xf32>) -> tensor<4xbf16>
func.func @cast_keeps_precision(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %y = dsmp.cast %x : (tensor<4xf32>) -> tensor<4xbf16>
  return %y : tensor<4xbf16>
}

// -----

/// A small float constant widened exactly folds (f16 scales an f16 export
/// casts back to f32 for a Resize, so shape inference can read them); a
/// rounding cast of a constant stays for dsmp-minimize-casts.
// CHECK-LABEL: func.func @cast_widens_constant(
// CHECK-DAG: %[[W:.+]] = dsmp.constant dense<[1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[N:.+]] = dsmp.cast %{{.+}} : (tensor<2xf32>) -> tensor<2xf16>
// CHECK: return %[[W]], %[[N]]
func.func @cast_widens_constant() -> (tensor<4xf32>, tensor<2xf16>) {
  %s = dsmp.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf16>
  %w = dsmp.cast %s : (tensor<4xf16>) -> tensor<4xf32>
  %c = dsmp.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %n = dsmp.cast %c : (tensor<2xf32>) -> tensor<2xf16>
  return %w, %n : tensor<4xf32>, tensor<2xf16>
}

// -----

/// Weights in the weight file are distinct constants even when their types
/// match: canonicalization must not merge them. Equal inline constants merge.
// CHECK-LABEL: func.func @external_constants_stay_distinct(
// CHECK-DAG: %[[A:.+]] = dsmp.constant #dsmp.external<offset = 0, size = 16> : tensor<4xf32>
// CHECK-DAG: %[[B:.+]] = dsmp.constant #dsmp.external<offset = 64, size = 16> : tensor<4xf32>
// CHECK-DAG: %[[C:.+]] = dsmp.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[C]]
func.func @external_constants_stay_distinct() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = dsmp.constant #dsmp.external<offset = 0, size = 16> : tensor<4xf32>
  %b = dsmp.constant #dsmp.external<offset = 64, size = 16> : tensor<4xf32>
  %c = dsmp.constant dense<1.0> : tensor<4xf32>
  %d = dsmp.constant dense<1.0> : tensor<4xf32>
  return %a, %b, %c, %d : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

/// Integer shape arithmetic folds (Slice of a shape, Mul by a constant,
/// Squeeze of a constant); float arithmetic never does.
// CHECK-LABEL: func.func @int_shape_math(
// CHECK-DAG: %[[C:.+]] = dsmp.constant dense<[8, 20]> : tensor<2xi64>
// CHECK-DAG: %[[F:.+]] = dsmp.mul
// CHECK: return %[[C]], %[[F]]
func.func @int_shape_math(%x: tensor<2x4x5xf32>) -> (tensor<2xi64>, tensor<f32>) {
  %s = dsmp.shape %x : (tensor<2x4x5xf32>) -> tensor<3xi64>
  %b = dsmp.constant dense<1> : tensor<1xi64>
  %e = dsmp.constant dense<3> : tensor<1xi64>
  %n = dsmp.none
  %t = dsmp.slice %s, %b, %e, %n, %n : (tensor<3xi64>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<2xi64>
  %two = dsmp.constant dense<[2, 4]> : tensor<2xi64>
  %m = dsmp.mul %t, %two : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %f1 = dsmp.constant dense<1.5> : tensor<f32>
  %f = dsmp.mul %f1, %f1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %m, %f : tensor<2xi64>, tensor<f32>
}

// -----

/// Integer Mod folds with the divisor's sign (fmod = 0, Python's %) or the
/// dividend's (fmod = 1, C's fmod); a zero divisor does not fold.
// CHECK-LABEL: func.func @int_mod(
// CHECK-DAG: dsmp.constant dense<[1, 2, -2, -1]> : tensor<4xi64>
// CHECK-DAG: dsmp.constant dense<[1, -1, 1, -1]> : tensor<4xi64>
// CHECK-DAG: %[[Z:.+]] = dsmp.mod
// CHECK: return
func.func @int_mod() -> (tensor<4xi64>, tensor<4xi64>, tensor<1xi64>) {
  %a = dsmp.constant dense<[7, -7, 7, -7]> : tensor<4xi64>
  %b = dsmp.constant dense<[3, 3, -3, -3]> : tensor<4xi64>
  %m = dsmp.mod %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %f = dsmp.mod %a, %b {fmod = 1 : i64} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %one = dsmp.constant dense<1> : tensor<1xi64>
  %zero = dsmp.constant dense<0> : tensor<1xi64>
  %z = dsmp.mod %one, %zero : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %m, %f, %z : tensor<4xi64>, tensor<4xi64>, tensor<1xi64>
}

// -----

/// Position ids and mask shapes fold: Range, ConstantOfShape, Equal and
/// Where on small integer constants.
// CHECK-LABEL: func.func @mask_shape_math(
// CHECK-DAG: %[[R:.+]] = dsmp.constant dense<[0, 2, 4, 6]> : tensor<4xi64>
// CHECK-DAG: %[[W:.+]] = dsmp.constant dense<[1, 5, 1]> : tensor<3xi64>
// CHECK: return %[[R]], %[[W]]
func.func @mask_shape_math() -> (tensor<4xi64>, tensor<3xi64>) {
  %start = dsmp.constant dense<0> : tensor<i64>
  %limit = dsmp.constant dense<8> : tensor<i64>
  %delta = dsmp.constant dense<2> : tensor<i64>
  %r = dsmp.range %start, %limit, %delta : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<4xi64>
  %s = dsmp.constant dense<3> : tensor<1xi64>
  %ones = dsmp.constant_of_shape %s {value = dense<1> : tensor<1xi64>} : (tensor<1xi64>) -> tensor<3xi64>
  %x = dsmp.constant dense<[-1, 5, -1]> : tensor<3xi64>
  %m = dsmp.constant dense<-1> : tensor<i64>
  %eq = dsmp.equal %x, %m : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %w = dsmp.where %eq, %ones, %x : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %r, %w : tensor<4xi64>, tensor<3xi64>
}

// -----

/// Shape arithmetic on small integer constants folds through Slice (any
/// step, any rank), Transpose and Reshape, as exporters write pads.
// CHECK-LABEL: func.func @pads_math
// CHECK: %[[P:.+]] = dsmp.constant dense<[0, 0, 0, 64]> : tensor<4xi64>
// CHECK: return %[[P]]
func.func @pads_math() -> tensor<4xi64> {
  %pads = dsmp.constant dense<[0, 64, 0, 0]> : tensor<4xi64>
  %shape = dsmp.constant dense<[-1, 2]> : tensor<2xi64>
  %r = dsmp.reshape %pads, %shape : (tensor<4xi64>, tensor<2xi64>) -> tensor<2x2xi64>
  %start = dsmp.constant dense<-1> : tensor<1xi64>
  %end = dsmp.constant dense<-9223372036854775807> : tensor<1xi64>
  %axes = dsmp.constant dense<0> : tensor<1xi64>
  %step = dsmp.constant dense<-1> : tensor<1xi64>
  %rev = dsmp.slice %r, %start, %end, %axes, %step : (tensor<2x2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x2xi64>
  %t = dsmp.transpose %rev {perm = array<i64: 1, 0>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
  %flat = dsmp.constant dense<-1> : tensor<1xi64>
  %out = dsmp.reshape %t, %flat : (tensor<2x2xi64>, tensor<1xi64>) -> tensor<4xi64>
  return %out : tensor<4xi64>
}

// -----

/// An If on a constant condition whose branch has the If's types inlines.
// CHECK-LABEL: func.func @constant_if
// CHECK-NOT: dsmp.if
// CHECK: %[[R:.+]] = dsmp.relu %arg0
// CHECK: return %[[R]]
func.func @constant_if(%x: tensor<4xf32>) -> tensor<4xf32> {
  %false = dsmp.constant dense<false> : tensor<i1>
  %y = dsmp.if %false : tensor<i1> -> tensor<4xf32> {
    dsmp.yield %x : tensor<4xf32>
  } else {
    %r = dsmp.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    dsmp.yield %r : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

/// Cast to bool is x != 0 (not a truncation: 2 is true), as ONNX defines it.
// CHECK-LABEL: func.func @cast_to_bool
// CHECK: %[[B:.+]] = dsmp.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK: return %[[B]]
func.func @cast_to_bool() -> tensor<3xi1> {
  %x = dsmp.constant dense<[2, 0, -1]> : tensor<3xi64>
  %b = dsmp.cast %x : (tensor<3xi64>) -> tensor<3xi1>
  return %b : tensor<3xi1>
}

// -----

/// tf2onnx merges dims as ReduceProd of a slice of Shape: integer
/// reductions of constants fold (all dims, or the given axes, with or
/// without keepdims); float reductions stay.
// CHECK-LABEL: func.func @int_reduce(
// CHECK-DAG: dsmp.constant dense<8> : tensor<1xi64>
// CHECK-DAG: dsmp.constant dense<[5, 7, 9]> : tensor<3xi64>
// CHECK-DAG: dsmp.constant dense<{{\[\[}}3], [6]]> : tensor<2x1xi64>
// CHECK-DAG: dsmp.constant dense<1> : tensor<i64>
// CHECK: dsmp.reduce_sum %{{.+}} : (tensor<2x3xf32>, none) -> tensor<1x1xf32>
func.func @int_reduce(%x: tensor<2x3xf32>) -> (tensor<1xi64>, tensor<3xi64>, tensor<2x1xi64>, tensor<i64>, tensor<1x1xf32>) {
  %none = dsmp.none
  %dims = dsmp.constant dense<[2, 4]> : tensor<2xi64>
  %prod = dsmp.reduce_prod %dims, %none : (tensor<2xi64>, none) -> tensor<1xi64>
  %m = dsmp.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %axis0 = dsmp.constant dense<0> : tensor<1xi64>
  %sum = dsmp.reduce_sum %m, %axis0 {keepdims = 0 : i64} : (tensor<2x3xi64>, tensor<1xi64>) -> tensor<3xi64>
  %axis1 = dsmp.constant dense<-1> : tensor<1xi64>
  %max = dsmp.reduce_max %m, %axis1 : (tensor<2x3xi64>, tensor<1xi64>) -> tensor<2x1xi64>
  %min = dsmp.reduce_min %m, %none {keepdims = 0 : i64} : (tensor<2x3xi64>, none) -> tensor<i64>
  %f = dsmp.reduce_sum %x, %none : (tensor<2x3xf32>, none) -> tensor<1x1xf32>
  return %prod, %sum, %max, %min, %f : tensor<1xi64>, tensor<3xi64>, tensor<2x1xi64>, tensor<i64>, tensor<1x1xf32>
}

// -----

/// A Loop's condition as tf2onnx writes it, float(i) < n and counter < n,
/// folds where i and the counter are constants; comparisons of data stay.
// CHECK-LABEL: func.func @loop_condition(
// CHECK-DAG: %[[T:.+]] = dsmp.constant dense<true> : tensor<i1>
// CHECK-DAG: %[[F:.+]] = dsmp.constant dense<[false, true]> : tensor<2xi1>
// CHECK-DAG: %[[X:.+]] = dsmp.constant dense<[true, false]> : tensor<2xi1>
// CHECK: %[[D:.+]] = dsmp.greater %arg0
// CHECK: return %[[T]], %[[F]], %[[X]], %[[D]]
func.func @loop_condition(%x: tensor<f32>) -> (tensor<i1>, tensor<2xi1>, tensor<2xi1>, tensor<i1>) {
  %i = dsmp.constant dense<3> : tensor<i64>
  %fi = dsmp.cast %i : (tensor<i64>) -> tensor<f32>
  %n = dsmp.constant dense<5.0> : tensor<f32>
  %a = dsmp.less %fi, %n : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %k = dsmp.constant dense<4> : tensor<i32>
  %kn = dsmp.constant dense<5> : tensor<i32>
  %b = dsmp.less_or_equal %k, %kn : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %both = dsmp.and %a, %b : (tensor<i1>, tensor<i1>) -> tensor<i1>
  %v = dsmp.constant dense<[1, 7]> : tensor<2xi64>
  %six = dsmp.constant dense<6> : tensor<i64>
  %g = dsmp.greater_or_equal %v, %six : (tensor<2xi64>, tensor<i64>) -> tensor<2xi1>
  %p = dsmp.constant dense<[true, true]> : tensor<2xi1>
  %q = dsmp.constant dense<[false, true]> : tensor<2xi1>
  %xor = dsmp.xor %p, %q : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %d = dsmp.greater %x, %n : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %both, %g, %xor, %d : tensor<i1>, tensor<2xi1>, tensor<2xi1>, tensor<i1>
}

// -----

/// dft_table folds to the constant table once its length is known and
/// its type static (dsmp-refine-shapes gives it that type): length 2, a
/// real signal, two-sided: rows [1, -0, 1, -0] and [1, -0, -1, ~0].
// CHECK-LABEL: func.func @dft_table_known(
// CHECK-NEXT: %[[T:.+]] = dsmp.constant dense<{{\[\[}}1.000000e+00, -0.000000e+00, 1.000000e+00, -0.000000e+00], [1.000000e+00, -0.000000e+00, -1.000000e+00, {{.*}}]]> : tensor<2x4xf32>
// CHECK-NEXT: return %[[T]]
func.func @dft_table_known() -> tensor<2x4xf32> {
  %n = dsmp.constant dense<2> : tensor<1xi64>
  %t = dsmp.dft_table %n {inverse = false, onesided = false, parts = 1 : i64} : (tensor<1xi64>) -> tensor<2x4xf32>
  return %t : tensor<2x4xf32>
}

// -----

/// A run-time length, or a type not yet refined, stays.
// CHECK-LABEL: func.func @dft_table_dynamic(
// CHECK: dsmp.dft_table
// CHECK: dsmp.dft_table
func.func @dft_table_dynamic(%x: tensor<?x4xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %n = dsmp.shape %x {start = 0 : i64, end = 1 : i64} : (tensor<?x4xf32>) -> tensor<1xi64>
  %t = dsmp.dft_table %n {inverse = false, onesided = false, parts = 1 : i64} : (tensor<1xi64>) -> tensor<?x?xf32>
  %m = dsmp.constant dense<2> : tensor<1xi64>
  %u = dsmp.dft_table %m {inverse = false, onesided = false, parts = 1 : i64} : (tensor<1xi64>) -> tensor<?x?xf32>
  return %t, %u : tensor<?x?xf32>, tensor<?x?xf32>
}
