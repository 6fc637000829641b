// An f16 BatchNormalization with f32 statistics (what dsmp-insert-casts
// makes of one assigned f16): X rounded to f16, the affine map computed in
// f32, the result rounded once to f16. The variance 1e-6 would flush to an
// f16 subnormal; in f32 it does not.
func.func @main_graph(%x: tensor<1x2x3x3xf32> {dsmp.name = "x"}) -> (tensor<1x2x3x3xf32> {dsmp.name = "y"}) {
  %s = dsmp.constant dense<[1.5, 0.5]> : tensor<2xf32>
  %b = dsmp.constant dense<[0.25, -1.0]> : tensor<2xf32>
  %m = dsmp.constant dense<[0.1, -0.2]> : tensor<2xf32>
  %v = dsmp.constant dense<[1.0e-6, 4.0]> : tensor<2xf32>
  %xh = dsmp.cast %x : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf16>
  %yh = dsmp.batch_normalization %xh, %s, %b, %m, %v {epsilon = 1.0e-5 : f32} : (tensor<1x2x3x3xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf16>
  %y = dsmp.cast %yh : (tensor<1x2x3x3xf16>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}
