// RUN: rm -rf %t && mkdir -p %t/pos %t/both/test_data_set_0 %t/both/test_data_set_1
// RUN: %dsmp_python %S/Inputs/write_tensor.py %t/pos/input_0.pb x 2x2 1,2,3,4
// RUN: cp %t/pos/input_0.pb %t/both/test_data_set_0/
// RUN: %dsmp_python %S/Inputs/write_tensor.py %t/both/test_data_set_1/input_0.pb x 2x2 -1,-2,-3,-4
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity=calibration=%t/pos | FileCheck %s --check-prefix=POS
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity="calibration=%t/pos engine=compile" | FileCheck %s --check-prefix=POS
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity=calibration=%t/both | FileCheck %s --check-prefix=BOTH
// RUN: dsmp-opt %s --pass-pipeline="builtin.module(dsmp-auto-mixed-precision{target=sm_80 tolerance=1e-2 calibration=%t/pos})" | FileCheck %s --check-prefix=ASSIGN

/// The ops inside an If's branches are measured too: the analyses run a
/// copy of the graph with both branches inline and a Where of their results
/// (passes/Precision/Calibration.h, flattenBranches), so the adjoint reaches
/// the branch the data takes. On positive x the then branch runs: its
/// matmul and relu see the output's whole energy (1, as in
/// analyze-sensitivity.mlir); the reduction that only decides the branch
/// gets no gradient, and the else branch, which no set takes, is marked
/// as such rather than given a zero sensitivity.
// POS: dsmp.reduce_max
// POS-NOT: dsmp.sensitivity
// POS-SAME: -> tensor<1x1xf32>
// POS: dsmp.matmul {{.*}}dsmp.sensitivity = {adapt = 1.82574{{[0-9]*}} : f64, energy = {{0\.9999[0-9]*|1\.0000[0-9]*(e\+00)?}} : f64, operand_energy
// POS: dsmp.relu {{.*}}dsmp.sensitivity = {adapt = 1.82574{{[0-9]*}} : f64, energy = {{0\.9999[0-9]*|1\.0000[0-9]*(e\+00)?}} : f64}
// POS: } else {
// POS-NEXT: dsmp.neg %{{.*}} {dsmp.no_adjoint = "a branch no calibration set takes"} :

/// With a negative set as well each branch has the output's energy on the
/// set that takes it, half of it over the two sets.
// BOTH: dsmp.matmul {{.*}}energy = {{0\.49999[0-9]*|0\.5000[0-9]*}} : f64
// BOTH: dsmp.relu {{.*}}energy = {{0\.49999[0-9]*|0\.5000[0-9]*}} : f64
// BOTH: } else {
// BOTH-NEXT: dsmp.neg {{.*}}energy = {{0\.49999[0-9]*|0\.5000[0-9]*}} : f64

/// The budget assigns formats inside the branch: casts in, the matmul and
/// relu in f16, a cast back before the yield. The unmeasured branch stays
/// f32.
// ASSIGN: dsmp.if
// ASSIGN-NEXT: dsmp.cast %arg0 : (tensor<2x2xf32>) -> tensor<2x2xf16>
// ASSIGN-NEXT: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}} -> tensor<2x2xf16>
// ASSIGN-NEXT: dsmp.relu {{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}} -> tensor<2x2xf16>
// ASSIGN-NEXT: dsmp.cast %{{.*}} : (tensor<2x2xf16>) -> tensor<2x2xf32>
// ASSIGN-NEXT: dsmp.yield
// ASSIGN-NEXT: } else {
// ASSIGN-NEXT: dsmp.neg {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "no_sensitivity"{{.*}} -> tensor<2x2xf32>
func.func @main_graph(%x: tensor<2x2xf32> {dsmp.name = "x"}) -> tensor<2x2xf32> {
  %none = dsmp.none
  %s = dsmp.reduce_max %x, %none : (tensor<2x2xf32>, none) -> tensor<1x1xf32>
  %zero = dsmp.constant dense<0.0> : tensor<f32>
  %c = dsmp.greater %s, %zero : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xi1>
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
