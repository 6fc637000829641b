func.func @constant_type() {
  %c = "dsmp.constant"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi64>
  return
}
