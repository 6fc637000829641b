// A round trip through f16: the evaluator holds the f16 value in f32
// storage, rounded to f16, as the compiled program computes it
// (evaluate-shared-models.test).
func.func @main_graph(%x: tensor<4xf32> {dsmp.name = "x"}) -> (tensor<4xf32> {dsmp.name = "y"}) {
  %h = dsmp.cast %x : (tensor<4xf32>) -> tensor<4xf16>
  %y = dsmp.cast %h : (tensor<4xf16>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
