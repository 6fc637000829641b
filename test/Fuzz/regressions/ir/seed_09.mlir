func.func @abs(%x: tensor<2x?xf32>) {
  %y = dsmp.abs %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @acos(%x: tensor<2x?xf32>) {
  %y = dsmp.acos %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @acosh(%x: tensor<2x?xf32>) {
  %y = dsmp.acosh %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  %c = dsmp.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

func.func @and(%a: tensor<4xi1>, %b: tensor<i1>) {
  %c = dsmp.and %a, %b : (tensor<4xi1>, tensor<i1>) -> tensor<4xi1>
  return
}

func.func @arg_max(%x: tensor<2x8xf32>) {
  %i = dsmp.arg_max %x {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x1xi64>
  return
}

func.func @arg_min(%x: tensor<2x8xf32>) {
  %i = dsmp.arg_min %x {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x1xi64>
  return
}

func.func @asin(%x: tensor<2x?xf32>) {
  %y = dsmp.asin %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @asinh(%x: tensor<2x?xf32>) {
  %y = dsmp.asinh %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @atan(%x: tensor<2x?xf32>) {
  %y = dsmp.atan %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @atanh(%x: tensor<2x?xf32>) {
  %y = dsmp.atanh %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @average_pool(%x: tensor<1x4x8x8xf32>) {
  %y = dsmp.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

func.func @batch_normalization(%x: tensor<1x4x8x8xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) {
  %y = dsmp.batch_normalization %x, %s, %b, %m, %v : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return
}

func.func @cast(%x: tensor<4xf32>) {
  %y = dsmp.cast %x : (tensor<4xf32>) -> tensor<4xbf16>
  return
}

func.func @ceil(%x: tensor<2x?xf32>) {
  %y = dsmp.ceil %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @celu(%x: tensor<2x?xf32>) {
  %y = dsmp.celu %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @clip(%x: tensor<4xf32>) {
  %lo = dsmp.constant dense<0.0> : tensor<f32>
  %n = dsmp.none
  %y = dsmp.clip %x, %lo, %n : (tensor<4xf32>, tensor<f32>, none) -> tensor<4xf32>
  return
}

func.func @concat(%a: tensor<1xi64>, %b: tensor<2xi64>) {
  %y = dsmp.concat %a, %b {axis = 0 : i64} : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
  return
}

func.func @constant() {
  %a = dsmp.constant dense<[1, 2]> : tensor<2xi64>
  %w = dsmp.constant #dsmp.external<offset = 0, size = 4096> : tensor<32x32xf32>
  return
}

func.func @constant_of_shape(%s: tensor<2xi64>) {
  %y = dsmp.constant_of_shape %s {value = dense<1> : tensor<1xi64>} : (tensor<2xi64>) -> tensor<?x?xi64>
  return
}

func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %n = dsmp.none
  %y = dsmp.conv %x, %w, %n {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  return
}

func.func @conv_transpose(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x2x2xf32>) {
  %n = dsmp.none
  %y = dsmp.conv_transpose %x, %w, %n {strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x2x2x2xf32>, none) -> tensor<1x2x16x16xf32>
  return
}

func.func @cos(%x: tensor<2x?xf32>) {
  %y = dsmp.cos %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @cosh(%x: tensor<2x?xf32>) {
  %y = dsmp.cosh %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @cum_sum(%x: tensor<8xf32>) {
  %a = dsmp.constant dense<0> : tensor<i64>
  %y = dsmp.cum_sum %x, %a : (tensor<8xf32>, tensor<i64>) -> tensor<8xf32>
  return
}

func.func @depth_to_space(%x: tensor<1x8x2x2xf32>) {
  %y = dsmp.depth_to_space %x {blocksize = 2 : i64} : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
  return
}

func.func @dequantize_linear(%q: tensor<4xi8>, %s: tensor<f32>) {
  %n = dsmp.none
  %y = dsmp.dequantize_linear %q, %s, %n : (tensor<4xi8>, tensor<f32>, none) -> tensor<4xf32>
  return
}

func.func @div(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  %c = dsmp.div %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

func.func @dropout(%x: tensor<4xf32>) {
  %n = dsmp.none
  %y, %m = dsmp.dropout %x, %n, %n : (tensor<4xf32>, none, none) -> (tensor<4xf32>, none)
  return
}

func.func @einsum(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  %y = dsmp.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

func.func @elu(%x: tensor<2x?xf32>) {
  %y = dsmp.elu %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @equal(%a: tensor<4xi64>, %b: tensor<i64>) {
  %c = dsmp.equal %a, %b : (tensor<4xi64>, tensor<i64>) -> tensor<4xi1>
  return
}

func.func @erf(%x: tensor<2x?xf32>) {
  %y = dsmp.erf %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @exp(%x: tensor<2x?xf32>) {
  %y = dsmp.exp %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @expand(%x: tensor<1x4xf32>, %s: tensor<2xi64>) {
  %y = dsmp.expand %x, %s : (tensor<1x4xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  return
}

func.func @flatten(%x: tensor<2x3x4xf32>) {
  %y = dsmp.flatten %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return
}

func.func @floor(%x: tensor<2x?xf32>) {
  %y = dsmp.floor %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @gather(%x: tensor<10x4xf32>, %i: tensor<3xi64>) {
  %y = dsmp.gather %x, %i {axis = 0 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return
}

func.func @gather_elements(%x: tensor<2x4xf32>, %i: tensor<2x2xi64>) {
  %y = dsmp.gather_elements %x, %i {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return
}

func.func @gather_nd(%x: tensor<2x4xf32>, %i: tensor<3x2xi64>) {
  %y = dsmp.gather_nd %x, %i : (tensor<2x4xf32>, tensor<3x2xi64>) -> tensor<3xf32>
  return
}

func.func @gelu(%x: tensor<2x?xf32>) {
  %y = dsmp.gelu %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @gemm(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) {
  %n = dsmp.none
  %y = dsmp.gemm %a, %b, %n {transB = 1 : i64} : (tensor<4x8xf32>, tensor<16x8xf32>, none) -> tensor<4x16xf32>
  return
}

func.func @global_average_pool(%x: tensor<1x4x8x8xf32>) {
  %y = dsmp.global_average_pool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  return
}

func.func @global_max_pool(%x: tensor<1x4x8x8xf32>) {
  %y = dsmp.global_max_pool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  return
}

func.func @greater(%a: tensor<4xi64>, %b: tensor<i64>) {
  %c = dsmp.greater %a, %b : (tensor<4xi64>, tensor<i64>) -> tensor<4xi1>
  return
}

func.func @greater_or_equal(%a: tensor<4xi64>, %b: tensor<i64>) {
  %c = dsmp.greater_or_equal %a, %b : (tensor<4xi64>, tensor<i64>) -> tensor<4xi1>
  return
}

func.func @group_normalization(%x: tensor<1x4x8x8xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) {
  %y = dsmp.group_normalization %x, %s, %b {num_groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return
}

func.func @gru(%x: tensor<5x1x3xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x12x4xf32>) {
  %n = dsmp.none
  %y, %h = dsmp.gru %x, %w, %r, %n, %n, %n {hidden_size = 4 : i64} : (tensor<5x1x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, none, none, none) -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>)
  return
}

func.func @hard_sigmoid(%x: tensor<2x?xf32>) {
  %y = dsmp.hard_sigmoid %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @hard_swish(%x: tensor<2x?xf32>) {
  %y = dsmp.hard_swish %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @hardmax(%x: tensor<2x8xf32>) {
  %y = dsmp.hardmax %x {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

func.func @identity(%x: tensor<4xf32>) {
  %y = dsmp.identity %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}

func.func @if(%c: tensor<i1>, %a: tensor<2xf32>, %b: tensor<2xf32>) {
  %r = dsmp.if %c : tensor<i1> -> tensor<2xf32> {
  dsmp.yield %a : tensor<2xf32>
  } else {
  dsmp.yield %b : tensor<2xf32>
  }
  return
}

func.func @instance_normalization(%x: tensor<1x4x8x8xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) {
  %y = dsmp.instance_normalization %x, %s, %b : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return
}

func.func @is_inf(%x: tensor<4xf32>) {
  %y = dsmp.is_inf %x : (tensor<4xf32>) -> tensor<4xi1>
  return
}

func.func @is_nan(%x: tensor<4xf32>) {
  %y = dsmp.is_nan %x : (tensor<4xf32>) -> tensor<4xi1>
  return
}

func.func @layer_normalization(%x: tensor<2x8xf32>, %s: tensor<8xf32>) {
  %n = dsmp.none
  %y, %m, %i = dsmp.layer_normalization %x, %s, %n : (tensor<2x8xf32>, tensor<8xf32>, none) -> (tensor<2x8xf32>, none, none)
  return
}

func.func @leaky_relu(%x: tensor<2x?xf32>) {
  %y = dsmp.leaky_relu %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @less(%a: tensor<4xi64>, %b: tensor<i64>) {
  %c = dsmp.less %a, %b : (tensor<4xi64>, tensor<i64>) -> tensor<4xi1>
  return
}

func.func @less_or_equal(%a: tensor<4xi64>, %b: tensor<i64>) {
  %c = dsmp.less_or_equal %a, %b : (tensor<4xi64>, tensor<i64>) -> tensor<4xi1>
  return
}

func.func @log(%x: tensor<2x?xf32>) {
  %y = dsmp.log %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @log_softmax(%x: tensor<2x8xf32>) {
  %y = dsmp.log_softmax %x {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

func.func @loop(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>) {
  %r = dsmp.loop %m, %c, %x : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<2xf32>):
  dsmp.yield %cond, %v : tensor<i1>, tensor<2xf32>
  }
  return
}

func.func @lp_normalization(%x: tensor<2x8xf32>) {
  %y = dsmp.lp_normalization %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

func.func @lrn(%x: tensor<1x4x8x8xf32>) {
  %y = dsmp.lrn %x {size = 3 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return
}

func.func @lstm(%x: tensor<5x1x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>) {
  %n = dsmp.none
  %y, %h, %c = dsmp.lstm %x, %w, %r, %n, %n, %n, %n, %n {hidden_size = 4 : i64} : (tensor<5x1x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, none, none, none, none, none) -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>)
  return
}

func.func @matmul(%a: tensor<2x4x8xf32>, %b: tensor<8x16xf32>) {
  %y = dsmp.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  return
}

func.func @max(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  %r = dsmp.max %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

func.func @max_pool(%x: tensor<1x4x8x8xf32>) {
  %y, %i = dsmp.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, none)
  return
}

func.func @max_pool_grad(%x: tensor<1x4x8x8xf32>, %y: tensor<1x4x4x4xf32>, %dy: tensor<1x4x4x4xf32>) {
  %dx = dsmp.max_pool_grad %x, %y, %dy {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  return
}

func.func @mean(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  %r = dsmp.mean %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

func.func @mean_variance_normalization(%x: tensor<1x4x8x8xf32>) {
  %y = dsmp.mean_variance_normalization %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return
}

func.func @min(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  %r = dsmp.min %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

func.func @mish(%x: tensor<2x?xf32>) {
  %y = dsmp.mish %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @mod(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  %c = dsmp.mod %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

func.func @mul(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  %c = dsmp.mul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

func.func @neg(%x: tensor<2x?xf32>) {
  %y = dsmp.neg %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @none() {
  %n = dsmp.none
  return
}

func.func @not(%x: tensor<4xi1>) {
  %y = dsmp.not %x : (tensor<4xi1>) -> tensor<4xi1>
  return
}

func.func @or(%a: tensor<4xi1>, %b: tensor<i1>) {
  %c = dsmp.or %a, %b : (tensor<4xi1>, tensor<i1>) -> tensor<4xi1>
  return
}

func.func @pad(%x: tensor<2x3xf32>, %p: tensor<4xi64>) {
  %n = dsmp.none
  %y = dsmp.pad %x, %p, %n, %n : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<?x?xf32>
  return
}

func.func @pow(%x: tensor<2x3xf32>, %y: tensor<f32>) {
  %z = dsmp.pow %x, %y : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return
}

func.func @prelu(%x: tensor<1x8x4x4xf32>, %s: tensor<8x1x1xf32>) {
  %y = dsmp.prelu %x, %s : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
  return
}

func.func @quantize_linear(%x: tensor<4xf32>, %s: tensor<f32>) {
  %z = dsmp.constant dense<0> : tensor<i8>
  %y = dsmp.quantize_linear %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return
}

func.func @range(%a: tensor<i64>, %b: tensor<i64>, %c: tensor<i64>) {
  %y = dsmp.range %a, %b, %c : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return
}

func.func @reciprocal(%x: tensor<2x?xf32>) {
  %y = dsmp.reciprocal %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @reduce_l1(%x: tensor<2x8xf32>) {
  %a = dsmp.constant dense<1> : tensor<1xi64>
  %r = dsmp.reduce_l1 %x, %a : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return
}

func.func @reduce_l2(%x: tensor<2x8xf32>) {
  %a = dsmp.constant dense<1> : tensor<1xi64>
  %r = dsmp.reduce_l2 %x, %a : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return
}

func.func @reduce_log_sum(%x: tensor<2x8xf32>) {
  %a = dsmp.constant dense<1> : tensor<1xi64>
  %r = dsmp.reduce_log_sum %x, %a : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return
}

func.func @reduce_log_sum_exp(%x: tensor<2x8xf32>) {
  %a = dsmp.constant dense<1> : tensor<1xi64>
  %r = dsmp.reduce_log_sum_exp %x, %a : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return
}

func.func @reduce_max(%x: tensor<2x8xf32>) {
  %a = dsmp.constant dense<1> : tensor<1xi64>
  %r = dsmp.reduce_max %x, %a : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return
}

func.func @reduce_mean(%x: tensor<2x8xf32>) {
  %a = dsmp.constant dense<1> : tensor<1xi64>
  %r = dsmp.reduce_mean %x, %a : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return
}

func.func @reduce_min(%x: tensor<2x8xf32>) {
  %a = dsmp.constant dense<1> : tensor<1xi64>
  %r = dsmp.reduce_min %x, %a : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return
}

func.func @reduce_prod(%x: tensor<2x8xf32>) {
  %a = dsmp.constant dense<1> : tensor<1xi64>
  %r = dsmp.reduce_prod %x, %a : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return
}

func.func @reduce_sum(%x: tensor<2x8xf32>) {
  %a = dsmp.constant dense<1> : tensor<1xi64>
  %r = dsmp.reduce_sum %x, %a : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return
}

func.func @reduce_sum_square(%x: tensor<2x8xf32>) {
  %a = dsmp.constant dense<1> : tensor<1xi64>
  %r = dsmp.reduce_sum_square %x, %a : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return
}

func.func @relu(%x: tensor<2x?xf32>) {
  %y = dsmp.relu %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @reshape(%x: tensor<2x3x4xf32>, %s: tensor<2xi64>) {
  %y = dsmp.reshape %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  return
}

func.func @resize(%x: tensor<1x4x8x8xf32>, %s: tensor<4xf32>) {
  %n = dsmp.none
  %y = dsmp.resize %x, %n, %s, %n {mode = "nearest"} : (tensor<1x4x8x8xf32>, none, tensor<4xf32>, none) -> tensor<1x4x16x16xf32>
  return
}

func.func @rnn(%x: tensor<5x1x3xf32>, %w: tensor<1x4x3xf32>, %r: tensor<1x4x4xf32>) {
  %n = dsmp.none
  %y, %h = dsmp.rnn %x, %w, %r, %n, %n, %n {hidden_size = 4 : i64} : (tensor<5x1x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, none, none, none) -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>)
  return
}

func.func @round(%x: tensor<2x?xf32>) {
  %y = dsmp.round %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @selu(%x: tensor<2x?xf32>) {
  %y = dsmp.selu %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @shape(%x: tensor<2x?xf32>) {
  %s = dsmp.shape %x : (tensor<2x?xf32>) -> tensor<2xi64>
  return
}

func.func @shrink(%x: tensor<2x?xf32>) {
  %y = dsmp.shrink %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @sigmoid(%x: tensor<2x?xf32>) {
  %y = dsmp.sigmoid %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @sign(%x: tensor<2x?xf32>) {
  %y = dsmp.sign %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @sin(%x: tensor<2x?xf32>) {
  %y = dsmp.sin %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @sinh(%x: tensor<2x?xf32>) {
  %y = dsmp.sinh %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @size(%x: tensor<2x3xf32>) {
  %n = dsmp.size %x : (tensor<2x3xf32>) -> tensor<i64>
  return
}

func.func @slice(%x: tensor<8xf32>, %b: tensor<1xi64>, %e: tensor<1xi64>) {
  %n = dsmp.none
  %y = dsmp.slice %x, %b, %e, %n, %n : (tensor<8xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<?xf32>
  return
}

func.func @softmax(%x: tensor<2x8xf32>) {
  %y = dsmp.softmax %x {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

func.func @softplus(%x: tensor<2x?xf32>) {
  %y = dsmp.softplus %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @softsign(%x: tensor<2x?xf32>) {
  %y = dsmp.softsign %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @space_to_depth(%x: tensor<1x2x4x4xf32>) {
  %y = dsmp.space_to_depth %x {blocksize = 2 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x8x2x2xf32>
  return
}

func.func @split(%x: tensor<4xf32>) {
  %n = dsmp.none
  %a, %b = dsmp.split %x, %n {axis = 0 : i64} : (tensor<4xf32>, none) -> (tensor<2xf32>, tensor<2xf32>)
  return
}

func.func @sqrt(%x: tensor<2x?xf32>) {
  %y = dsmp.sqrt %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @squeeze(%x: tensor<1x4xf32>) {
  %a = dsmp.constant dense<0> : tensor<1xi64>
  %y = dsmp.squeeze %x, %a : (tensor<1x4xf32>, tensor<1xi64>) -> tensor<4xf32>
  return
}

func.func @sub(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  %c = dsmp.sub %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

func.func @sum(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  %r = dsmp.sum %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

func.func @tan(%x: tensor<2x?xf32>) {
  %y = dsmp.tan %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @tanh(%x: tensor<2x?xf32>) {
  %y = dsmp.tanh %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @thresholded_relu(%x: tensor<2x?xf32>) {
  %y = dsmp.thresholded_relu %x : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

func.func @tile(%x: tensor<2x3xf32>, %r: tensor<2xi64>) {
  %y = dsmp.tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  return
}

func.func @top_k(%x: tensor<2x8xf32>) {
  %k = dsmp.constant dense<2> : tensor<1xi64>
  %v, %i = dsmp.top_k %x, %k : (tensor<2x8xf32>, tensor<1xi64>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  return
}

func.func @transpose(%x: tensor<2x3xf32>) {
  %y = dsmp.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

func.func @unsqueeze(%x: tensor<4xf32>) {
  %a = dsmp.constant dense<0> : tensor<1xi64>
  %y = dsmp.unsqueeze %x, %a : (tensor<4xf32>, tensor<1xi64>) -> tensor<1x4xf32>
  return
}

func.func @where(%c: tensor<2x3xi1>, %x: tensor<2x3xf32>, %y: tensor<f32>) {
  %r = dsmp.where %c, %x, %y : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return
}

func.func @xor(%a: tensor<4xi1>, %b: tensor<i1>) {
  %c = dsmp.xor %a, %b : (tensor<4xi1>, tensor<i1>) -> tensor<4xi1>
  return
}
