// RUN: rm -rf %t && mkdir -p %t/pos %t/both/test_data_set_0 %t/both/test_data_set_1
// RUN: %dsmp_python %S/Inputs/write_tensor.py %t/pos/input_0.pb x 2x2 1.1,2.2,3.3,4.4
// RUN: cp %t/pos/input_0.pb %t/both/test_data_set_0/
// RUN: %dsmp_python %S/Inputs/write_tensor.py %t/both/test_data_set_1/input_0.pb x 2x2 -1.1,-2.2,-3.3,-4.4
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity=calibration=%t/pos | FileCheck %s --check-prefix=POS
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity="calibration=%t/pos engine=compile" | FileCheck %s --check-prefix=POS
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity=calibration=%t/both | FileCheck %s --check-prefix=BOTH
// RUN: dsmp-opt %s --pass-pipeline="builtin.module(dsmp-auto-mixed-precision{target=sm_80 tolerance=1e-2 calibration=%t/pos})" | FileCheck %s --check-prefix=ASSIGN
/// Ranges recorded from the sensitivity run (record-ranges) match
/// dsmp-analyze-ranges' own run, inside the flattened branches too.
// RUN: dsmp-opt %s --dsmp-analyze-ranges=calibration=%t/both --dsmp-analyze-sensitivity=calibration=%t/both > %t/two-runs.mlir
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity="calibration=%t/both record-ranges=true" > %t/one-run.mlir
// RUN: diff %t/two-runs.mlir %t/one-run.mlir
// RUN: dsmp-opt %s --pass-pipeline="builtin.module(dsmp-auto-mixed-precision{target=sm_80 tolerance=1e-3 calibration=%t/pos})" | FileCheck %s --check-prefix=TIGHT

/// The ops inside an If's branches are measured too: the analyses run a
/// copy of the graph with both branches inline and a Where of their results
/// (passes/Precision/Calibration.h, flattenBranches), so the adjoint reaches
/// the branch the data takes. On positive x (max(2x) = 8.8 > 7) the then
/// branch runs: its matmul and relu see the output's whole energy (1, as in
/// analyze-sensitivity.mlir), and the else branch, which no set takes, is
/// marked as such rather than given a zero sensitivity. The doubling and
/// the max only decide the branch: no gradient reaches them from the
/// output, but the value compared counts as an output whose error is
/// relative to its margin (8.8 against 7: seed r / 1.8, so g x = 4.889 for
/// the max and, through it, for the doubled element that is the max; its
/// square 23.90). The doubling reads the graph input, so it also measures
/// that input's rounding (operand_energy, the same 23.90: x times 2 is
/// linear). The inputs are not integers: 1, 2, 3, 4 and their doubles
/// round exactly in every format, so their energies would be 0.
// POS: dsmp.mul {{.*}}dsmp.sensitivity = {adapt = 4.8888{{[0-9]*}} : f64, energy = 23.90{{[0-9]*}} : f64, operand_energy = 23.90{{[0-9]*}} : f64}
// POS: dsmp.reduce_max {{.*}}dsmp.sensitivity = {adapt = 4.8888{{[0-9]*}} : f64, energy = 23.90{{[0-9]*}} : f64}
// POS: dsmp.matmul {{.*}}dsmp.sensitivity = {adapt = 1.82574{{[0-9]*}} : f64, energy = {{0\.9999[0-9]*|1\.0000[0-9]*(e\+00)?}} : f64, operand_energy
// POS: dsmp.relu {{.*}}dsmp.sensitivity = {adapt = 1.82574{{[0-9]*}} : f64, energy = {{0\.9999[0-9]*|1\.0000[0-9]*(e\+00)?}} : f64}
// POS: } else {
// POS-NEXT: dsmp.neg %{{.*}} {dsmp.no_adjoint = "a branch no calibration set takes"} :

/// With a negative set as well each branch has the output's energy on the
/// set that takes it, half of it over the two sets; the max is -2.2 there,
/// 9.2 from 7: (23.901 + (2.2/9.2)^2) / 2 = 11.979.
// BOTH: dsmp.reduce_max {{.*}}energy = 11.97{{[0-9]*}} : f64
// BOTH: dsmp.matmul {{.*}}energy = {{0\.49999[0-9]*|0\.5000[0-9]*}} : f64
// BOTH: dsmp.relu {{.*}}energy = {{0\.49999[0-9]*|0\.5000[0-9]*}} : f64
// BOTH: } else {
// BOTH-NEXT: dsmp.neg {{.*}}energy = {{0\.49999[0-9]*|0\.5000[0-9]*}} : f64

/// The budget assigns formats inside the branch: the matmul reads the f16
/// copy of x (one cast, shared with the doubling), the matmul and relu run
/// in f16, a cast back before the yield. The unmeasured branch stays f32.
/// At tau = 1e-2 rounding the doubling in f16 (u = 2^-11) moves the
/// compared 8.8 by ~0.004, inside the budget's 0.01 of its margin of 1.8;
/// at 1e-3 it would not be, and the doubling stays f32.
// ASSIGN: %[[X16:.*]] = dsmp.cast %arg0 : (tensor<2x2xf32>) -> tensor<2x2xf16>
// ASSIGN: dsmp.mul %[[X16]], {{.*}}dsmp.assigned = #dsmp.format<f16>
// ASSIGN: dsmp.if
// ASSIGN-NEXT: dsmp.matmul %[[X16]], {{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}} -> tensor<2x2xf16>
// ASSIGN-NEXT: dsmp.relu {{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}} -> tensor<2x2xf16>
// ASSIGN-NEXT: dsmp.cast %{{.*}} : (tensor<2x2xf16>) -> tensor<2x2xf32>
// ASSIGN-NEXT: dsmp.yield
// ASSIGN-NEXT: } else {
// ASSIGN-NEXT: dsmp.neg %arg0 {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "no_sensitivity"{{.*}} -> tensor<2x2xf32>
// TIGHT: dsmp.mul {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "budget"
func.func @main_graph(%x: tensor<2x2xf32> {dsmp.name = "x"}) -> tensor<2x2xf32> {
  %none = dsmp.none
  %two = dsmp.constant dense<2.0> : tensor<f32>
  %d = dsmp.mul %x, %two : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %s = dsmp.reduce_max %d, %none : (tensor<2x2xf32>, none) -> tensor<1x1xf32>
  %seven = dsmp.constant dense<7.0> : tensor<f32>
  %c = dsmp.greater %s, %seven : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xi1>
  %r = dsmp.if %c : tensor<1x1xi1> -> tensor<2x2xf32> {
    %w = dsmp.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
    %a = dsmp.matmul %x, %w : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %y = dsmp.relu %a : (tensor<2x2xf32>) -> tensor<2x2xf32>
    dsmp.yield %y : tensor<2x2xf32>
  } else {
    %n = dsmp.neg %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
    dsmp.yield %n : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}
