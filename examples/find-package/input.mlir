func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %y = dsmp.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %z = dsmp.relu %y : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %z : tensor<4x16xf32>
}
