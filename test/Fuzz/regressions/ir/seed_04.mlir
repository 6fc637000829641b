func.func @transpose_dims(%x: tensor<2x3xf32>) {
  %y = dsmp.transpose %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
