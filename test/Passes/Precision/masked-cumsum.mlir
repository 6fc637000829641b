// RUN: rm -rf %t && mkdir -p %t/cal
// RUN: %dsmp_python %S/Inputs/write_tensor.py %t/cal/input_0.pb x 2x3 0.3,-1.1,2.2,0.7,1.9,-0.4
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity=calibration=%t/cal | FileCheck %s

/// CumSum has no VJP model: the forward estimate runs it again on its
/// input rounded with random signs and sizes a gradient by how far its
/// result moves. Where the result is -inf (a mask added before it), so is
/// the rerun's, and their difference is NaN: it counts as no movement (a
/// non-finite value rounds to itself), so the CumSum and the Add before it
/// get finite energies rather than NaN (passes/Precision/ForwardEstimate.cpp).
// CHECK: dsmp.add {{.*}}dsmp.sensitivity = {adapt = {{[0-9]\.[0-9]+(E-[0-9]+)?}} : f64, energy = {{[0-9]\.[0-9]+(E-[0-9]+)?}} : f64
// CHECK: dsmp.cum_sum {{.*}}dsmp.sensitivity = {adapt = {{[0-9]\.[0-9]+(E-[0-9]+)?}} : f64, energy = {{[0-9]\.[0-9]+(E-[0-9]+)?}} : f64
func.func @main_graph(%x: tensor<2x3xf32> {dsmp.name = "x"}) -> tensor<2x3xf32> {
  %mask = dsmp.constant dense<[[0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0]]> : tensor<2x3xf32>
  %s = dsmp.add %x, %mask : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %axis = dsmp.constant dense<1> : tensor<i64>
  %c = dsmp.cum_sum %s, %axis : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  %p = dsmp.softmax %c {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %p : tensor<2x3xf32>
}
