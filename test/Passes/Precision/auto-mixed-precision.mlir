// RUN: rm -rf %t && mkdir -p %t/cal
// RUN: %dsmp_python %S/Inputs/write_tensor.py %t/cal/input_0.pb x 4x16 seed:1
// RUN: dsmp-opt %s --dsmp-auto-mixed-precision="target=sm_80 tolerance=1e-2 calibration=%t/cal" | FileCheck %s
// RUN: dsmp-opt %s --dsmp-auto-mixed-precision="target=gfx90a tolerance=1e-2 calibration=%t/cal" | FileCheck %s --check-prefix=GFX
// RUN: dsmp-opt %s --dsmp-auto-mixed-precision="target=sm_80 tolerance=1e-3 metric=max-abs calibration=%t/cal" | FileCheck %s --check-prefix=MAXABS

/// The whole pipeline on a small MLP block: the matmuls, the bias add and
/// the GELU (built from Erf) run in f16, Softmax stays f32 (policy); the
/// weights become f16 constants; the only casts left are at the f16/f32
/// borders, each once: no value is cast to a type and straight back.
// CHECK: module attributes {dsmp.error_metric = {exact_seeds = false, metric = "rel-l2", output_elements = 64 : i64, seed_vectors = 1 : i64}, dsmp.precision = {margin = 5.000000e-01 : f64, predicted_error = {{.*}}, target = "sm_80", tolerance = 1.000000e-02 : f64}}
// CHECK-DAG: dsmp.constant {{.*}} : tensor<16x16xf16>
/// A max-abs budget: the sensitivity pass says what its energies measure;
/// the softmax probabilities (at most 1) are predicted to err by 1e-6 to
/// 1e-4 with the matmuls in f16, under the budget's half. All 64 are peaks
/// (the constant weights make every row uniform: 1/16 each); a row's one
/// value rounds alike at its 16 places, which the softmax cancels
/// (CoherentRounding.h), so x's own rounding is most of what is left.
// MAXABS: module attributes {dsmp.error_metric = {exact_seeds = false, metric = "max-abs", output_elements = 64 : i64, peak_elements = 64 : i64, seed_vectors = 1 : i64}, dsmp.precision = {margin = 5.000000e-01 : f64, predicted_error = {{[0-9.]+}}E-{{[456]}} : f64, target = "sm_80", tolerance = 1.000000e-03 : f64}}
// MAXABS: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f16>
// CHECK: %[[X:.*]] = dsmp.cast %arg0 : (tensor<4x16xf32>) -> tensor<4x16xf16>
// CHECK: %[[M:.*]] = dsmp.matmul %[[X]], %{{.*}} {{.*}}#dsmp.format<f16>{{.*}} : (tensor<4x16xf16>, tensor<16x16xf16>) -> tensor<4x16xf16>
// CHECK: dsmp.add %[[M]], %{{.*}} : (tensor<4x16xf16>, tensor<16xf16>) -> tensor<4x16xf16>
// CHECK: dsmp.erf {{.*}} -> tensor<4x16xf16>
// CHECK: %[[W:.*]] = dsmp.cast %{{.*}} : (tensor<4x16xf16>) -> tensor<4x16xf32>
// CHECK: dsmp.softmax %[[W]] {{.*}}dsmp.reason = "policy"{{.*}} : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NOT: dsmp.cast
// CHECK: return
// GFX: dsmp.matmul {{.*}}#dsmp.format<{{f16|bf16}}>
// GFX-NOT: tf32
func.func @main_graph(%x: tensor<4x16xf32> {dsmp.name = "x"}) -> tensor<4x16xf32> {
  %w = dsmp.constant dense<0.0625> : tensor<16x16xf32>
  %b = dsmp.constant dense<0.5> : tensor<16xf32>
  %m = dsmp.matmul %x, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %a = dsmp.add %m, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %e = dsmp.erf %a : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %h = dsmp.mul %a, %e : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %s = dsmp.softmax %h : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}
