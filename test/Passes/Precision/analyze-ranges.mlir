// RUN: rm -rf %t && mkdir -p %t/cal
// RUN: %dsmp_python %S/Inputs/write_tensor.py %t/cal/input_0.pb x 2x4 1,-2,3,-4,0,70000,0.5,2e-6
// RUN: dsmp-opt %s --dsmp-analyze-ranges | FileCheck %s --check-prefix=STATIC
// RUN: dsmp-opt %s --dsmp-analyze-ranges=calibration=%t/cal | FileCheck %s
/// The reference evaluator (the default here) and the compiled program
/// measure the same statistics.
// RUN: dsmp-opt %s --dsmp-analyze-ranges="calibration=%t/cal engine=evaluate" | FileCheck %s
// RUN: dsmp-opt %s --dsmp-analyze-ranges="calibration=%t/cal engine=compile" | FileCheck %s
// RUN: not dsmp-opt %s --dsmp-analyze-ranges="calibration=%t/cal engine=jit" 2>&1 | FileCheck %s --check-prefix=ENGINE
/// dsmp-analyze-sensitivity with record-ranges (what the
/// dsmp-auto-mixed-precision pipeline runs) records the same ranges from
/// its forward pass: the same checks, and the same module as running both
/// passes, evaluated or compiled.
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity="calibration=%t/cal record-ranges=true" | FileCheck %s
// RUN: dsmp-opt %s --dsmp-analyze-ranges=calibration=%t/cal --dsmp-analyze-sensitivity=calibration=%t/cal > %t/two-runs.mlir
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity="calibration=%t/cal record-ranges=true" > %t/one-run.mlir
// RUN: diff %t/two-runs.mlir %t/one-run.mlir
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity="calibration=%t/cal record-ranges=true engine=compile" > %t/one-run-compiled.mlir
// RUN: diff %t/two-runs.mlir %t/one-run-compiled.mlir
// ENGINE: dsmp-analyze-ranges: unknown engine 'jit' (auto, evaluate, compile)

/// Without calibration only the bounds every input obeys: sigmoid in
/// [0, 1]; a product has none.
// STATIC-NOT: dsmp.range = {amax
// STATIC: dsmp.sigmoid {{.*}}dsmp.range = {static_hi = 1.000000e+00 : f64, static_lo = 0.000000e+00 : f64}
// STATIC: dsmp.mul
// STATIC-NOT: dsmp.range
// STATIC: return

/// Calibrated on one input: x * 2 reaches 140000, beyond f16 (65504) and
/// the FP8 formats but not bf16; 1 of its 7 nonzero values (4e-6) lies
/// below f16's smallest normal (6.1e-5), which is more than 1 %. The
/// histogram counts |x| by binary exponent from 2^-30 (the 17 of 2^17 =
/// 131072 <= 140000 is the last bin).
/// The graph input gets its calibrated range as an argument attribute
/// (70000 overflows f16): what an op reading it is checked against.
// CHECK: func.func @main_graph(%{{.*}}: tensor<2x4xf32> {dsmp.name = "x", dsmp.range = {amax = 7.000000e+04 : f64, {{.*}}max = 7.000000e+04 : f64, min = -4.000000e+00 : f64, overflow = ["f16", {{.*}}zeros = 1 : i64}})
// CHECK: dsmp.sigmoid {{.*}}dsmp.range = {amax = 1.000000e+00 : f64, count = 8 : i64, {{.*}}max = 1.000000e+00 : f64, min = 0.017986{{[0-9]*}} : f64, overflow = [], static_hi = 1.000000e+00 : f64, static_lo = 0.000000e+00 : f64, underflow = [], zeros = 0 : i64}
// CHECK: dsmp.mul {{.*}}dsmp.range = {amax = 1.400000e+05 : f64, count = 8 : i64, hist = array<i64: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {{.*}}, 1>, max = 1.400000e+05 : f64, min = -8.000000e+00 : f64, overflow = ["f16", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ"], underflow = ["f16", {{.*}}], zeros = 1 : i64}
func.func @main_graph(%x: tensor<2x4xf32> {dsmp.name = "x"}) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %s = dsmp.sigmoid %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %two = dsmp.constant dense<2.0> : tensor<f32>
  %m = dsmp.mul %x, %two : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  return %s, %m : tensor<2x4xf32>, tensor<2x4xf32>
}
