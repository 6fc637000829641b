func.func @cast_fold(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xi32>) {
  %y = dsmp.cast %x : (tensor<4xf32>) -> tensor<4xf32>
  %c = dsmp.constant dense<[7, -1]> : tensor<2xi64>
  %z = dsmp.cast %c : (tensor<2xi64>) -> tensor<2xi32>
  return %y, %z : tensor<4xf32>, tensor<2xi32>
}
