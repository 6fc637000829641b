// A round trip through f64: the evaluator holds no f64 values and rejects
// it; the compiled program runs it (evaluate-shared-models.test).
func.func @main_graph(%x: tensor<4xf32> {dsmp.name = "x"}) -> (tensor<4xf32> {dsmp.name = "y"}) {
  %d = dsmp.cast %x : (tensor<4xf32>) -> tensor<4xf64>
  %y = dsmp.cast %d : (tensor<4xf64>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
