// Precision casts and low-precision tensors export as Cast nodes and typed
// initializers; onnx.checker accepts the model and onnxruntime's casts round
// as ml_dtypes does. (The f16 Mul is only checked for its types: onnxruntime's
// CPU provider computes it in f32 and drops the casts around it.)
// RUN: dsmp-translate --export-onnx %s -o %t.onnx
// RUN: %dsmp_python %S/Inputs/check_casts.py %t.onnx | FileCheck %s
// CHECK: checker: ok
// CHECK: Cast to=BFLOAT16
// CHECK: Cast to=FLOAT
// CHECK: Cast to=FLOAT16
// CHECK: Mul inputs=FLOAT16,FLOAT16
// CHECK: Cast to=FLOAT8E4M3FN
// CHECK: Cast to=FLOAT8E5M2
// CHECK: initializer scale: FLOAT16
// CHECK: initializer table{{.*}}: BFLOAT16
// CHECK: bf16 round trip: exact
// CHECK: f16 round trip: exact
// CHECK: f8E4M3FN round trip: exact
// CHECK: f8E5M2 round trip: exact
// CHECK: bf16 constant: exact

module {
  func.func @main_graph(%x: tensor<64xf32> {dsmp.name = "x"})
      -> (tensor<64xf32> {dsmp.name = "bf16"}, tensor<64xf32> {dsmp.name = "f16"},
          tensor<64xf32> {dsmp.name = "e4m3"}, tensor<64xf32> {dsmp.name = "e5m2"},
          tensor<4xf32> {dsmp.name = "table"}) {
    %b = dsmp.cast %x : (tensor<64xf32>) -> tensor<64xbf16> loc("to_bf16")
    %b32 = dsmp.cast %b : (tensor<64xbf16>) -> tensor<64xf32> loc("from_bf16")
    %h = dsmp.cast %x : (tensor<64xf32>) -> tensor<64xf16> loc("to_f16")
    %s = dsmp.constant dense<3.0> : tensor<f16> loc("scale")
    %hm = dsmp.mul %h, %s {acc = #dsmp.format<f16>} : (tensor<64xf16>, tensor<f16>) -> tensor<64xf16> loc("scaled")
    %h32 = dsmp.cast %h : (tensor<64xf16>) -> tensor<64xf32> loc("from_f16")
    %e = dsmp.cast %x : (tensor<64xf32>) -> tensor<64xf8E4M3FN> loc("to_e4m3")
    %e32 = dsmp.cast %e : (tensor<64xf8E4M3FN>) -> tensor<64xf32> loc("from_e4m3")
    %m = dsmp.cast %x : (tensor<64xf32>) -> tensor<64xf8E5M2> loc("to_e5m2")
    %m32 = dsmp.cast %m : (tensor<64xf8E5M2>) -> tensor<64xf32> loc("from_e5m2")
    %t = dsmp.constant dense<[1.0, 0.333333343, -2.5, 1.0e+3]> : tensor<4xbf16> loc("table")
    %t32 = dsmp.cast %t : (tensor<4xbf16>) -> tensor<4xf32> loc("from_table")
    return %b32, %h32, %e32, %m32, %t32 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<4xf32>
  }
}
