func.func @softmax_axis(%x: tensor<2x3xf32>) {
  %y = dsmp.softmax %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
