// Transposes the evaluator shortcuts: one that only moves size-1 dims (the
// element order stays: a copy), one that keeps its trailing dims (moved as
// blocks), and a general one.
func.func @main_graph(%x: tensor<1x3x4x2xf32> {dsmp.name = "x"})
    -> (tensor<3x1x4x2xf32> {dsmp.name = "unit"},
        tensor<4x1x3x2xf32> {dsmp.name = "blocks"},
        tensor<2x4x1x3xf32> {dsmp.name = "general"}) {
  %u = dsmp.transpose %x {perm = array<i64: 1, 0, 2, 3>} : (tensor<1x3x4x2xf32>) -> tensor<3x1x4x2xf32>
  %b = dsmp.transpose %x {perm = array<i64: 2, 0, 1, 3>} : (tensor<1x3x4x2xf32>) -> tensor<4x1x3x2xf32>
  %g = dsmp.transpose %x {perm = array<i64: 3, 2, 0, 1>} : (tensor<1x3x4x2xf32>) -> tensor<2x4x1x3xf32>
  return %u, %b, %g : tensor<3x1x4x2xf32>, tensor<4x1x3x2xf32>, tensor<2x4x1x3xf32>
}
