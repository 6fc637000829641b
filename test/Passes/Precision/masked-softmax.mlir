// RUN: rm -rf %t && mkdir -p %t/cal
// RUN: %dsmp_python %S/Inputs/write_tensor.py %t/cal/input_0.pb x 2x3 0.3,-1.1,2.2,0.7,1.9,-0.4
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity=calibration=%t/cal | FileCheck %s
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity="calibration=%t/cal exact-values=false" | FileCheck %s

/// A causal mask adds -inf before a Softmax: there the sum is -inf and its
/// gradient 0, so the product g y is -inf * 0 = NaN. A non-finite value
/// rounds to itself and adds nothing: the energies stay finite and
/// positive (a NaN energy kept the Add in f32 as "budget" at any margin).
// CHECK: dsmp.add {{.*}}dsmp.sensitivity = {adapt = {{[0-9]\.[0-9]+(E-[0-9]+)?}} : f64, energy = {{[0-9]\.[0-9]+(E-[0-9]+)?}} : f64, operand_energy
// CHECK: dsmp.softmax {{.*}}dsmp.sensitivity = {adapt = {{[0-9]\.[0-9]+(E-[0-9]+)?}} : f64, energy = {{[0-9]\.[0-9]+(E-[0-9]+)?}} : f64
func.func @main_graph(%x: tensor<2x3xf32> {dsmp.name = "x"}) -> tensor<2x3xf32> {
  %mask = dsmp.constant dense<[[0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000]]> : tensor<2x3xf32>
  %s = dsmp.add %x, %mask : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %p = dsmp.softmax %s {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %p : tensor<2x3xf32>
}
