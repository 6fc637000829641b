// RUN: rm -rf %t && mkdir -p %t/cal
// RUN: %dsmp_python %S/Inputs/write_tensor.py %t/cal/input_0.pb x 1x2 1,2
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity=calibration=%t/cal | FileCheck %s
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity="calibration=%t/cal engine=compile" | FileCheck %s

/// A contraction's constant bias is rounded with its weights, so its
/// rounding is part of weight_energy: sum (dC * C)^2 beside sum (dW * W)^2.
/// Here W = 0 and the output is the bias, y = C = [3, 4] (an untrained
/// network's logits are its classifier's bias); with seeds r / |y| = r / 5,
/// dC * C = r [3, 4] / 5, so weight_energy = (9 + 16) / 25 = 1 whatever r's
/// signs, where W alone would give 0.
// CHECK: dsmp.gemm {{.*}}dsmp.sensitivity = {{{.*}}weight_energy = {{0\.9999[0-9]*|1\.0000[0-9]*(e\+00)?}} : f64}
func.func @main_graph(%x: tensor<1x2xf32> {dsmp.name = "x"}) -> tensor<1x2xf32> {
  %w = dsmp.constant dense<0.0> : tensor<2x2xf32>
  %c = dsmp.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %y = dsmp.gemm %x, %w, %c {transB = 1 : i64} : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}
