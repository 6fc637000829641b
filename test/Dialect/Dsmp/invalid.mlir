// RUN: dsmp-opt %s -split-input-file -verify-diagnostics

/// Conv: input channels must equal W's channels times group.
func.func @conv_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  %n = dsmp.none
  // expected-error @+1 {{input channels 4 != W channels 3 * group 1}}
  %y = dsmp.conv %x, %w, %n : (tensor<1x4x8x8xf32>, tensor<8x3x3x3xf32>, none) -> tensor<1x8x6x6xf32>
  return
}

// -----

/// Conv: one stride per spatial dim.
func.func @conv_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  %n = dsmp.none
  // expected-error @+1 {{strides has 1 entries, expected 2}}
  %y = dsmp.conv %x, %w, %n {strides = array<i64: 2>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, none) -> tensor<1x8x3x3xf32>
  return
}

// -----

/// Conv: auto_pad takes the four ONNX values only.
func.func @conv_auto_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  %n = dsmp.none
  // expected-error @+1 {{auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got 'SAME'}}
  %y = dsmp.conv %x, %w, %n {auto_pad = "SAME"} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, none) -> tensor<1x8x8x8xf32>
  return
}

// -----

/// ConvTranspose: W's first dim is the input channels.
func.func @conv_transpose_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<3x2x2x2xf32>) {
  %n = dsmp.none
  // expected-error @+1 {{input channels 4 != W dim 0 3}}
  %y = dsmp.conv_transpose %x, %w, %n : (tensor<1x4x8x8xf32>, tensor<3x2x2x2xf32>, none) -> tensor<1x2x9x9xf32>
  return
}

// -----

/// MatMul: the contracting dims must agree.
func.func @matmul_k(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{contracting dims differ: 3 vs 4}}
  %y = dsmp.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

/// MatMul: A and B have one element type.
func.func @matmul_mixed_operands(%a: tensor<2x3xf16>, %b: tensor<3x5xf32>) {
  // expected-error @+1 {{expects A and B of one element type}}
  %y = dsmp.matmul %a, %b : (tensor<2x3xf16>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

/// MatMul: only 16-bit products may be stored wider, and only in f32.
func.func @matmul_wide_result(%a: tensor<2x3xf16>, %b: tensor<3x5xf16>) {
  // expected-error @+1 {{expects a result of the operands' element type, or f32 for f16 and bf16 operands}}
  %y = dsmp.matmul %a, %b : (tensor<2x3xf16>, tensor<3x5xf16>) -> tensor<2x5xbf16>
  return
}

// -----

/// Gemm: transB decides which dim of B contracts.
func.func @gemm_trans(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) {
  %n = dsmp.none
  // expected-error @+1 {{contracting dims differ: 3 vs 5}}
  %y = dsmp.gemm %a, %b, %n {transB = 1 : i64} : (tensor<2x3xf32>, tensor<3x5xf32>, none) -> tensor<2x3xf32>
  return
}

// -----

/// Add: operands must broadcast.
func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{operands don't have broadcast-compatible shapes}}
  %y = dsmp.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

/// Transpose: perm must be a permutation.
func.func @transpose_perm(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{perm is not a permutation}}
  %y = dsmp.transpose %x {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

/// Transpose: result dims follow perm.
func.func @transpose_dims(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result dim 0 does not match the permuted input}}
  %y = dsmp.transpose %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

/// Reshape: the element count is preserved.
func.func @reshape_count(%x: tensor<2x3xf32>, %s: tensor<1xi64>) {
  // expected-error @+1 {{cannot reshape 6 elements into 5}}
  %y = dsmp.reshape %x, %s : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<5xf32>
  return
}

// -----

/// Reshape: the result rank is the length of the shape operand.
func.func @reshape_rank(%x: tensor<2x3xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{shape has 2 entries but the result has rank 1}}
  %y = dsmp.reshape %x, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<6xf32>
  return
}

// -----

/// Softmax: the axis lies in [-rank, rank).
func.func @softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %y = dsmp.softmax %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

/// Concat: all inputs share the rank.
func.func @concat_rank(%a: tensor<2xf32>, %b: tensor<2x2xf32>) {
  // expected-error @+1 {{expects all inputs to have the result's rank}}
  %y = dsmp.concat %a, %b {axis = 0 : i64} : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<4xf32>
  return
}

// -----

/// Clip: bounds are one element of the input's type.
func.func @clip_bounds(%x: tensor<4xf32>, %lo: tensor<2xf32>) {
  %n = dsmp.none
  // expected-error @+1 {{expects min and max to hold one element}}
  %y = dsmp.clip %x, %lo, %n : (tensor<4xf32>, tensor<2xf32>, none) -> tensor<4xf32>
  return
}

// -----

/// Gather: result rank is rank(data) - 1 + rank(indices).
func.func @gather_rank(%x: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{expects a result of rank 2}}
  %y = dsmp.gather %x, %i : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

/// ReduceMean with keepdims keeps the rank.
func.func @reduce_keepdims(%x: tensor<2x8xf32>, %a: tensor<1xi64>) {
  // expected-error @+1 {{with keepdims = 1 expects the result rank to equal the input rank}}
  %y = dsmp.reduce_mean %x, %a : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2xf32>
  return
}

// -----

/// MaxPool: kernel_shape has one entry per spatial dim.
func.func @pool_kernel(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{kernel_shape has 3 entries, expected 2}}
  %y, %i = dsmp.max_pool %x {kernel_shape = array<i64: 2, 2, 2>} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, none)
  return
}

// -----

/// LSTM: W holds 4 gates of hidden_size rows.
func.func @lstm_hidden(%x: tensor<5x1x3xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x12x4xf32>) {
  %n = dsmp.none
  // expected-error @+1 {{expects W dim 1 to be 4 * hidden_size}}
  %y, %h, %c = dsmp.lstm %x, %w, %r, %n, %n, %n, %n, %n {hidden_size = 4 : i64} : (tensor<5x1x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, none, none, none, none, none) -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>)
  return
}

// -----

/// Einsum: one equation term per input.
func.func @einsum_terms(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{equation has 2 input terms but 1 inputs are given}}
  %y = dsmp.einsum %a {equation = "ij,jk->ik"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

/// Unary float ops take float tensors only (generic form: the custom form
/// would reject the type while parsing).
func.func @exp_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be tensor of floating-point values}}
  %y = "dsmp.exp"(%x) : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

/// The accumulation format is a #dsmp.format.
func.func @acc_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{Invalid attribute `acc` in property conversion}}
  %y = "dsmp.relu"(%x) <{acc = 1 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

/// Constants: the value's type is the result type.
func.func @constant_type() {
  // expected-error @+1 {{value type 'tensor<2xi32>' differs from the result type 'tensor<2xi64>'}}
  %c = "dsmp.constant"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi64>
  return
}

// -----

/// External constants: the byte range holds exactly the tensor.
func.func @external_size() {
  // expected-error @+1 {{external range of 12 bytes does not hold 'tensor<4xf32>' (16 bytes)}}
  %c = dsmp.constant #dsmp.external<offset = 0, size = 12> : tensor<4xf32>
  return
}

// -----

/// If: each branch yields the op's result types.
func.func @if_yield(%c: tensor<i1>, %a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{else_branch yields 'tensor<3xf32>' where the op has 'tensor<2xf32>'}}
  %r = dsmp.if %c : tensor<i1> -> tensor<2xf32> {
    dsmp.yield %a : tensor<2xf32>
  } else {
    dsmp.yield %b : tensor<3xf32>
  }
  return
}

// -----

/// Loop: the body takes iteration number, condition and carried values.
func.func @loop_args(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{body takes 2 arguments, expected 3}}
  %r = dsmp.loop %m, %c, %x : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>):
    dsmp.yield %cond, %x : tensor<i1>, tensor<2xf32>
  }
  return
}

// -----

/// dsmp.yield only terminates If and Loop bodies.
func.func @yield_parent(%a: tensor<2xf32>) {
  // expected-error @+1 {{expects parent op to be one of 'dsmp.if, dsmp.loop'}}
  dsmp.yield %a : tensor<2xf32>
}

// -----

/// MaxPoolGrad: dX has X's type.
func.func @max_pool_grad_type(%x: tensor<1x4x8x8xf32>, %y: tensor<1x4x4x4xf32>) {
  // expected-error @+1 {{all of {X, dX} have same type}}
  %dx = dsmp.max_pool_grad %x, %y, %y {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

/// MaxPoolGrad: one kernel dim per spatial dim.
func.func @max_pool_grad_kernel(%x: tensor<1x4x8x8xf32>, %y: tensor<1x4x4x4xf32>) {
  // expected-error @+1 {{kernel_shape has 1 entries, expected 2}}
  %dx = dsmp.max_pool_grad %x, %y, %y {kernel_shape = array<i64: 2>} : (tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

/// scan_gradients: one row of five statistics per gradient.
func.func @scan_gradients_stats(%inv: tensor<f32>, %g: tensor<4x3xf32>) {
  // expected-error @+1 {{expects stats of shape [1, 5]}}
  %u, %s = dsmp.scan_gradients %inv, %g {format = f16} : (tensor<f32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<1x4xf32>)
  return
}

// -----

/// scan_gradients: each unscaled result has its gradient's shape.
func.func @scan_gradients_shape(%inv: tensor<f32>, %g: tensor<4x3xf32>) {
  // expected-error @+1 {{expects each unscaled result shaped as its gradient}}
  %u, %s = dsmp.scan_gradients %inv, %g {format = f16} : (tensor<f32>, tensor<4x3xf32>) -> (tensor<12xf32>, tensor<1x5xf32>)
  return
}

// -----

/// scan_gradients: underflows are counted against a float format.
func.func @scan_gradients_format(%inv: tensor<f32>, %g: tensor<4x3xf32>) {
  // expected-error @+1 {{expects a float format, not 'i8'}}
  %u, %s = dsmp.scan_gradients %inv, %g {format = i8} : (tensor<f32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<1x5xf32>)
  return
}

// -----

/// scan_gradients: one scale for every gradient.
func.func @scan_gradients_scale(%inv: tensor<2xf32>, %g: tensor<4x3xf32>) {
  // expected-error @+1 {{expects a one-element inverse_scale}}
  %u, %s = dsmp.scan_gradients %inv, %g {format = f16} : (tensor<2xf32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<1x5xf32>)
  return
}

// -----

/// scatter_elements: indices and updates may leave different dims dynamic
/// (GroupViT's export: [?, 1, 64] and [?, ?, ?]), but static sizes agree.
func.func @scatter_elements_compatible(%x: tensor<2x3x4xf32>, %i: tensor<?x1x4xi64>, %u: tensor<?x?x?xf32>) {
  %y = dsmp.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<?x1x4xi64>, tensor<?x?x?xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @scatter_elements_incompatible(%x: tensor<2x3x4xf32>, %i: tensor<?x1x4xi64>, %u: tensor<?x2x?xf32>) {
  // expected-error @+1 {{all of {indices, updates} have compatible shapes}}
  %y = dsmp.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<?x1x4xi64>, tensor<?x2x?xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

/// gather_elements: the same for indices and the output.
func.func @gather_elements_incompatible(%x: tensor<2x3xf32>, %i: tensor<2x?xi64>) {
  // expected-error @+1 {{all of {indices, output} have compatible shapes}}
  %y = dsmp.gather_elements %x, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x?xi64>) -> tensor<3x2xf32>
  return
}

// -----

/// dft_table: a onesided table is a real forward transform's.
func.func @dft_table_onesided_complex(%n: tensor<1xi64>) {
  // expected-error @+1 {{a onesided table needs a forward transform of a real signal}}
  %t = dsmp.dft_table %n {inverse = false, onesided = true, parts = 2 : i64} : (tensor<1xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @dft_table_parts(%n: tensor<1xi64>) {
  // expected-error @+1 {{parts must be 1 (real) or 2 (complex), not 3}}
  %t = dsmp.dft_table %n {inverse = false, onesided = false, parts = 3 : i64} : (tensor<1xi64>) -> tensor<?x?xf32>
  return
}
