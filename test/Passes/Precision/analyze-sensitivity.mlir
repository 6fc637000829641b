// RUN: rm -rf %t && mkdir -p %t/cal
// RUN: %dsmp_python %S/Inputs/write_tensor.py %t/cal/input_0.pb x 2x2 1.1,2.2,3.3,4.4
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity=calibration=%t/cal | FileCheck %s
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity="calibration=%t/cal engine=compile" | FileCheck %s
/// With three seed vectors the energies are their mean; four output
/// elements take a Hadamard matrix's four rows either way (see below).
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity="calibration=%t/cal seeds=3" | FileCheck %s
// RUN: not dsmp-opt %s --dsmp-analyze-sensitivity 2>&1 | FileCheck %s --check-prefix=NOCAL

/// The seed at the output y is r / |y| (r = +-1), so the relu's result has
/// energy sum (g y)^2 = sum y^2 / |y|^2 = 1 and ADAPT sum |g y| = sum |y| /
/// |y| = 11 / sqrt(36.3) = 1.8257; the product before it feeds the output
/// unchanged (all positive), so it measures the same, and so do the
/// negation and the matmul by -I before it. The matmul also reports the
/// energy of its activation input as it sees it (1 again), and the
/// negation, which reads the graph input, that input's (1: the rounding of
/// x before it; the adjoint keeps that gradient, and propagates no
/// further). (With x = 1, 2, 3, 4 every value would round exactly and
/// every energy be 0: CoherentRounding.h.) Its constant weight W = -I has
/// weight_energy sum (dW * W)^2 with dW = n^T (2 r / |y|): (x00 r00 + x10
/// r10)^2 + (x01 r01 + x11 r11)^2 times 4 / |y|^2, which depends on r's
/// signs; with at most 8 output elements the seeds are the rows of a
/// Hadamard matrix (here 4), over which r_i r_j averages to 0 for i != j:
/// 4 sum x^2 / (4 sum x^2) = 1, with one seed vector asked for or three.
// CHECK: dsmp.neg {{.*}}dsmp.sensitivity = {adapt = 1.82574{{[0-9]*}} : f64, energy = {{0\.9999[0-9]*|1\.0000[0-9]*(e\+00)?}} : f64, operand_energy = {{0\.9999[0-9]*|1\.0000[0-9]*(e\+00)?}} : f64}
// CHECK: dsmp.matmul {{.*}}dsmp.sensitivity = {adapt = 1.82574{{[0-9]*}} : f64, energy = {{0\.9999[0-9]*|1\.0000[0-9]*(e\+00)?}} : f64, operand_energy = {{0\.9999[0-9]*|1\.0000[0-9]*(e\+00)?}} : f64,
// CHECK-SAME: weight_energy = {{0\.9999[0-9]*|1\.0000[0-9]*(e\+00)?}} : f64}
// CHECK: dsmp.mul {{.*}}dsmp.sensitivity = {adapt = 1.82574{{[0-9]*}} : f64, energy = {{0\.9999[0-9]*|1\.0000[0-9]*(e\+00)?}} : f64}
// CHECK: dsmp.relu {{.*}}dsmp.sensitivity = {adapt = 1.82574{{[0-9]*}} : f64, energy = {{0\.9999[0-9]*|1\.0000[0-9]*(e\+00)?}} : f64}
// NOCAL: error: dsmp-analyze-sensitivity needs calibration=DIR
func.func @main_graph(%x: tensor<2x2xf32> {dsmp.name = "x"}) -> tensor<2x2xf32> {
  %n = dsmp.neg %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %id = dsmp.constant dense<[[-1.0, 0.0], [0.0, -1.0]]> : tensor<2x2xf32>
  %a = dsmp.matmul %n, %id : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %two = dsmp.constant dense<2.0> : tensor<f32>
  %m = dsmp.mul %a, %two : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %r = dsmp.relu %m : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
