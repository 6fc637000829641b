func.func @external_size() {
  %c = dsmp.constant #dsmp.external<offset = 0, size = 12> : tensor<4xf32>
  return
}
