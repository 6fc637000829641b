func.func @exp_int(%x: tensor<4xi32>) {
  %y = "dsmp.exp"(%x) : (tensor<4xi32>) -> tensor<4xi32>
  return
}
