// RUN: dsmp-opt %s --dsmp-assign-precision="target=sm_90" -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=SM90
// RUN: dsmp-opt %s --dsmp-assign-precision="target=gfx942" -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=GFX942
// RUN: dsmp-opt %s --dsmp-assign-precision="target=sm_80" -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=SM80

// f8 matmuls on the targets that have them. The budget is (0.5 * 1e-2)^2 =
// 2.5e-5; an f8 matmul rounds its activation (u^2/(8 ln 2) * the energy of
// the value, 1e-3 here) and its weights (u^2/(8 ln 2) * operand_energy, for
// want of a weight_energy) with u = 2^-4 for E4M3 (2^-3 for E5M2): 1.4e-6
// at operand_energy 1e-3, 7.0e-5 (over the budget) at 0.1, where f16
// (u = 2^-11) still fits.
/// @scaled reads a calibrated activation and constant weights: E4M3FN on sm_90,
/// AMD's E4M3FNUZ on gfx942 (the variant lives in targets.json), f16 on
/// sm_80, which has no f8.
// SM90-LABEL: func.func @main_graph
// SM90: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f8E4M3FN>{{.*}}dsmp.reason = "sensitivity"{{.*}}loc("scaled")
// GFX942: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f8E4M3FNUZ>{{.*}}dsmp.reason = "sensitivity"{{.*}}loc("scaled")
// SM80: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}}loc("scaled")
/// @input reads a graph input without a calibrated range to scale by;
/// @ranged_input one with the range dsmp-analyze-ranges gives inputs.
// SM90: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}}loc("input")
/// Half of @flush's activation lies below 2^-29: scaled by amax / 448, it
/// would fall below E4M3's normals (2^-6), so f8 is refused.
// SM90: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}}loc("flush")
/// @coarse's f8 cost is over the budget; it takes f16, its next offer.
// SM90: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}}loc("coarse")
/// (@ranged_input, last in the graph)
// SM90: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f8E4M3FN>{{.*}}loc("ranged_input")
// SM90-NOT: f8E5M2
// SM80-NOT: format<f8
module {
  func.func @main_graph(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32> {dsmp.range = {amax = 3.5 : f64, hist = array<i64: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}}) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
    %w = dsmp.constant dense<0.25> : tensor<16x16xf32>
    %x = dsmp.relu %a {dsmp.flops = 256 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e-03 : f64}, dsmp.range = {amax = 3.5 : f64, hist = array<i64: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}} : (tensor<16x16xf32>) -> tensor<16x16xf32> loc("relu")
    %y = dsmp.relu %b {dsmp.flops = 256 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e-03 : f64}, dsmp.range = {amax = 3.5 : f64, hist = array<i64: 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}} : (tensor<16x16xf32>) -> tensor<16x16xf32> loc("relu_small")
    %0 = dsmp.matmul %x, %w {dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e-03 : f64, operand_energy = 1.0e-03 : f64}, dsmp.range = {amax = 10.0 : f64, hist = array<i64: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("scaled")
    %1 = dsmp.matmul %a, %w {dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e-03 : f64, operand_energy = 1.0e-03 : f64}, dsmp.range = {amax = 10.0 : f64, hist = array<i64: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("input")
    %2 = dsmp.matmul %y, %w {dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e-03 : f64, operand_energy = 1.0e-03 : f64}, dsmp.range = {amax = 10.0 : f64, hist = array<i64: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("flush")
    %3 = dsmp.matmul %x, %w {dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e-03 : f64, operand_energy = 1.0e-01 : f64}, dsmp.range = {amax = 10.0 : f64, hist = array<i64: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("coarse")
    %4 = dsmp.matmul %c, %w {dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e-03 : f64, operand_energy = 1.0e-03 : f64}, dsmp.range = {amax = 10.0 : f64}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("ranged_input")
    return %0, %1, %2, %3, %4 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
  }
}
