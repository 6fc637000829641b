// RUN: rm -rf %t && mkdir -p %t/cal
// RUN: %dsmp_python %S/Inputs/write_tensor.py %t/cal/input_0.pb x 8x64 seed:3
// RUN: dsmp-opt %s --dsmp-analyze-sensitivity="calibration=%t/cal metric=max-abs" -o %t/analyzed.mlir
// RUN: FileCheck %s --input-file=%t/analyzed.mlir
// RUN: %dsmp_python %S/Inputs/check_peaks.py %t/cal/input_0.pb 20 %t/analyzed.mlir | FileCheck %s --check-prefix=PEAKS

/// Under max-abs the adjoint also runs from seeds on the outputs' peaks
/// (|y| >= 0.1 max |y|). A softmax of 20 x saturates: its error gathers in
/// a few winners per row, so the largest error is a far larger part of the
/// L2 error than 512 independent errors give; the mul's energy is its
/// peaks' energy scaled up to say so (check_peaks.py recomputes both).
// CHECK: dsmp.error_metric = {exact_seeds = false, metric = "max-abs", output_elements = 512 : i64, peak_elements = {{[0-9]}}{{[0-9]?}} : i64, seed_vectors = 1 : i64}
// CHECK: dsmp.mul {{.*}}dsmp.sensitivity = {adapt = {{.*}}, energy = {{.*}}, peak_energy = {{.*}}}
// PEAKS: peaks numpy [[K:[0-9]+]] pass [[K]] of 512: True
// PEAKS: energy {{.*}} scaled peak energy {{.*}}: True
func.func @main_graph(%x: tensor<8x64xf32> {dsmp.name = "x"}) -> tensor<8x64xf32> {
  %c = dsmp.constant dense<20.0> : tensor<f32>
  %s = dsmp.mul %x, %c : (tensor<8x64xf32>, tensor<f32>) -> tensor<8x64xf32>
  %y = dsmp.softmax %s {axis = -1 : i64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
