func.func @size(%x: tensor<2x3x5xf32>) -> tensor<i64> {
  %s = dsmp.size %x : (tensor<2x3x5xf32>) -> tensor<i64>
  return %s : tensor<i64>
}
