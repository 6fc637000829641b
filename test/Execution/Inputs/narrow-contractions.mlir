// 16-bit and tf32 contractions whose results tell one rounding from two:
// the lowering adds the bias (or Gemm's C) to the f32 sum and rounds once
// to the result type (narrow-contractions.test). The inputs are exact in
// f32, so the sums do not depend on their order.
func.func @main_graph(%x: tensor<1x8x1x1xf32> {dsmp.name = "x"},
                      %y: tensor<1x2x1x1xf32> {dsmp.name = "y"},
                      %a: tensor<1x2xf32> {dsmp.name = "a"},
                      %t: tensor<1x2xf32> {dsmp.name = "t"},
                      %e: tensor<1x2xf32> {dsmp.name = "e"})
    -> (tensor<1x4x1x1xf32> {dsmp.name = "conv_gemm"},
        tensor<1x1x1x1xf32> {dsmp.name = "conv_direct"},
        tensor<1x1xf32> {dsmp.name = "gemm_f16"},
        tensor<1x1xf32> {dsmp.name = "matmul_bf16"},
        tensor<1x1xf32> {dsmp.name = "matmul_tf32"},
        tensor<1x1xf32> {dsmp.name = "gemm_tf32"}) {
  %n = dsmp.none
  // 8 channels x 4 maps: the evaluator's im2col + GEMM path.
  %xh = dsmp.cast %x : (tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf16>
  %w = dsmp.constant dense<[[[[1.0]], [[1.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]]],
                            [[[1.0]], [[1.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]]],
                            [[[1.0]], [[1.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]]],
                            [[[1.0]], [[1.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]]]]> : tensor<4x8x1x1xf16>
  %b = dsmp.constant dense<1.0> : tensor<4xf16>
  %c = dsmp.conv %xh, %w, %b : (tensor<1x8x1x1xf16>, tensor<4x8x1x1xf16>, tensor<4xf16>) -> tensor<1x4x1x1xf16>
  %c32 = dsmp.cast %c : (tensor<1x4x1x1xf16>) -> tensor<1x4x1x1xf32>
  // 2 channels x 1 map: the direct loops.
  %yh = dsmp.cast %y : (tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf16>
  %w1 = dsmp.constant dense<1.0> : tensor<1x2x1x1xf16>
  %b1 = dsmp.constant dense<1.0> : tensor<1xf16>
  %d = dsmp.conv %yh, %w1, %b1 : (tensor<1x2x1x1xf16>, tensor<1x2x1x1xf16>, tensor<1xf16>) -> tensor<1x1x1x1xf16>
  %d32 = dsmp.cast %d : (tensor<1x1x1x1xf16>) -> tensor<1x1x1x1xf32>
  // Gemm with C: round(e . 1 + 1).
  %ah = dsmp.cast %e : (tensor<1x2xf32>) -> tensor<1x2xf16>
  %ones = dsmp.constant dense<1.0> : tensor<2x1xf16>
  %one = dsmp.constant dense<1.0> : tensor<1xf16>
  %g = dsmp.gemm %ah, %ones, %one : (tensor<1x2xf16>, tensor<2x1xf16>, tensor<1xf16>) -> tensor<1x1xf16>
  %g32 = dsmp.cast %g : (tensor<1x1xf16>) -> tensor<1x1xf32>
  // bf16: 256 + 1 ties to 256 (8 significant bits).
  %ab = dsmp.cast %a : (tensor<1x2xf32>) -> tensor<1x2xbf16>
  %onesb = dsmp.constant dense<1.0> : tensor<2x1xbf16>
  %m = dsmp.matmul %ab, %onesb : (tensor<1x2xbf16>, tensor<2x1xbf16>) -> tensor<1x1xbf16>
  %m32 = dsmp.cast %m : (tensor<1x1xbf16>) -> tensor<1x1xf32>
  // tf32 inputs, f32 sum: 1 + 2^-11 rounds away from zero to 1 + 2^-10.
  %tt = dsmp.cast %t : (tensor<1x2xf32>) -> tensor<1x2xtf32>
  %onest = dsmp.constant dense<1.0> : tensor<2x1xf32>
  %onestt = dsmp.cast %onest : (tensor<2x1xf32>) -> tensor<2x1xtf32>
  %p = dsmp.matmul %tt, %onestt : (tensor<1x2xtf32>, tensor<2x1xtf32>) -> tensor<1x1xtf32>
  %p32 = dsmp.cast %p : (tensor<1x1xtf32>) -> tensor<1x1xf32>
  // tf32 Gemm with C: 2048 + 1 + 1 is 2050 rounded once; rounded before C
  // too (ties away from zero) it would be 2052.
  %et = dsmp.cast %e : (tensor<1x2xf32>) -> tensor<1x2xtf32>
  %onet = dsmp.cast %one : (tensor<1xf16>) -> tensor<1xtf32>
  %q = dsmp.gemm %et, %onestt, %onet : (tensor<1x2xtf32>, tensor<2x1xtf32>, tensor<1xtf32>) -> tensor<1x1xtf32>
  %q32 = dsmp.cast %q : (tensor<1x1xtf32>) -> tensor<1x1xf32>
  return %c32, %d32, %g32, %m32, %p32, %q32 : tensor<1x4x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>
}
