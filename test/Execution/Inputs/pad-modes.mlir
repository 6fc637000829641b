// Pad's four modes on a 2x3 input (pad-modes.test checks them against
// numpy.pad).
func.func @main_graph(%x: tensor<2x3xf32> {dsmp.name = "x"}) -> (tensor<4x7xf32> {dsmp.name = "constant"}, tensor<4x7xf32> {dsmp.name = "edge"}, tensor<4x7xf32> {dsmp.name = "reflect"}, tensor<4x7xf32> {dsmp.name = "wrap"}) {
  %pads = dsmp.constant dense<[1, 2, 1, 2]> : tensor<4xi64>
  %v = dsmp.constant dense<-5.0> : tensor<f32>
  %n = dsmp.none
  %c = dsmp.pad %x, %pads, %v, %n {mode = "constant"} : (tensor<2x3xf32>, tensor<4xi64>, tensor<f32>, none) -> tensor<4x7xf32>
  %e = dsmp.pad %x, %pads, %n, %n {mode = "edge"} : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<4x7xf32>
  %r = dsmp.pad %x, %pads, %n, %n {mode = "reflect"} : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<4x7xf32>
  %w = dsmp.pad %x, %pads, %n, %n {mode = "wrap"} : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<4x7xf32>
  return %c, %e, %r, %w : tensor<4x7xf32>, tensor<4x7xf32>, tensor<4x7xf32>, tensor<4x7xf32>
}
