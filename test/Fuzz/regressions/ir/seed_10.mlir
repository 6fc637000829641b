func.func @shape_arithmetic(%x: tensor<3x4x5xf32>) -> tensor<2xi64> {
  %s = dsmp.shape %x : (tensor<3x4x5xf32>) -> tensor<3xi64>
  %i = dsmp.constant dense<0> : tensor<i64>
  %d = dsmp.gather %s, %i : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %a = dsmp.constant dense<0> : tensor<1xi64>
  %u = dsmp.unsqueeze %d, %a : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %m = dsmp.constant dense<-1> : tensor<1xi64>
  %c = dsmp.concat %u, %m {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  return %c : tensor<2xi64>
}
