// Unsigned integers lower with unsigned semantics (unsigned.test): 200 and
// 100 as ui8 are not -56 and 100.
func.func @main_graph(%a: tensor<2xui8> {dsmp.name = "a"}, %b: tensor<2xui8> {dsmp.name = "b"}) -> (tensor<2xui8> {dsmp.name = "div"}, tensor<2xui8> {dsmp.name = "max"}, tensor<2xi1> {dsmp.name = "less"}, tensor<2xf32> {dsmp.name = "float"}) {
  %d = dsmp.div %a, %b : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %m = dsmp.max %a, %b : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %l = dsmp.less %a, %b : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xi1>
  %f = dsmp.cast %a : (tensor<2xui8>) -> tensor<2xf32>
  return %d, %m, %l, %f : tensor<2xui8>, tensor<2xui8>, tensor<2xi1>, tensor<2xf32>
}
