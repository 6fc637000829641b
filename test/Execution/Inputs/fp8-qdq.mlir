// Per-tensor f8 quantize -> dequantize pairs, one per f8 format, as the
// precision passes put them around an f8 contraction's operands
// (fp8-qdq.test compares them with ml_dtypes).
func.func @main_graph(%x: tensor<4096xf32> {dsmp.name = "x"})
    -> (tensor<4096xf32> {dsmp.name = "e4m3fn"}, tensor<4096xf32> {dsmp.name = "e5m2"},
        tensor<4096xf32> {dsmp.name = "e4m3fnuz"}, tensor<4096xf32> {dsmp.name = "e5m2fnuz"}) {
  %n = dsmp.none
  %s = dsmp.constant dense<0.5> : tensor<f32>
  %z0 = dsmp.constant dense<0.0> : tensor<f8E4M3FN>
  %q0 = dsmp.quantize_linear %x, %s, %z0 : (tensor<4096xf32>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<4096xf8E4M3FN>
  %d0 = dsmp.dequantize_linear %q0, %s, %z0 : (tensor<4096xf8E4M3FN>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<4096xf32>
  %q1 = dsmp.quantize_linear %x, %s, %n : (tensor<4096xf32>, tensor<f32>, none) -> tensor<4096xf8E5M2>
  %d1 = dsmp.dequantize_linear %q1, %s, %n : (tensor<4096xf8E5M2>, tensor<f32>, none) -> tensor<4096xf32>
  %q2 = dsmp.quantize_linear %x, %s, %n : (tensor<4096xf32>, tensor<f32>, none) -> tensor<4096xf8E4M3FNUZ>
  %d2 = dsmp.dequantize_linear %q2, %s, %n : (tensor<4096xf8E4M3FNUZ>, tensor<f32>, none) -> tensor<4096xf32>
  %q3 = dsmp.quantize_linear %x, %s, %n : (tensor<4096xf32>, tensor<f32>, none) -> tensor<4096xf8E5M2FNUZ>
  %d3 = dsmp.dequantize_linear %q3, %s, %n : (tensor<4096xf8E5M2FNUZ>, tensor<f32>, none) -> tensor<4096xf32>
  return %d0, %d1, %d2, %d3 : tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>
}
