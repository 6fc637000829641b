// A round trip through f16: the evaluator holds f32 and integers only and
// rejects it; the compiled program runs it (evaluate-shared-models.test).
func.func @main_graph(%x: tensor<4xf32> {dsmp.name = "x"}) -> (tensor<4xf32> {dsmp.name = "y"}) {
  %h = dsmp.cast %x : (tensor<4xf32>) -> tensor<4xf16>
  %y = dsmp.cast %h : (tensor<4xf16>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
