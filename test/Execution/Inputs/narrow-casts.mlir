// f32 -> f16 -> f32 and f32 -> bf16 -> f32 (narrow-casts.test compares
// them with numpy / ml_dtypes).
func.func @main_graph(%x: tensor<4099xf32> {dsmp.name = "x"})
    -> (tensor<4099xf32> {dsmp.name = "f16"}, tensor<4099xf32> {dsmp.name = "bf16"}) {
  %h = dsmp.cast %x : (tensor<4099xf32>) -> tensor<4099xf16>
  %hw = dsmp.cast %h : (tensor<4099xf16>) -> tensor<4099xf32>
  %b = dsmp.cast %x : (tensor<4099xf32>) -> tensor<4099xbf16>
  %bw = dsmp.cast %b : (tensor<4099xbf16>) -> tensor<4099xf32>
  return %hw, %bw : tensor<4099xf32>, tensor<4099xf32>
}
