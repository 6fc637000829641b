func.func @external_constants_stay_distinct() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = dsmp.constant #dsmp.external<offset = 0, size = 16> : tensor<4xf32>
  %b = dsmp.constant #dsmp.external<offset = 64, size = 16> : tensor<4xf32>
  %c = dsmp.constant dense<1.0> : tensor<4xf32>
  %d = dsmp.constant dense<1.0> : tensor<4xf32>
  return %a, %b, %c, %d : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
