func.func @acc_kind(%x: tensor<4xf32>) {
  %y = "dsmp.relu"(%x) <{acc = 1 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}
