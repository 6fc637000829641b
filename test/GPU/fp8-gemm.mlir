// REQUIRES: cuda-toolkit
// FP8 GEMMs on sm_90: a Gemm whose operands dequantize f8 codes with one
// scale each (what the precision passes make for an f8 contraction) reads
// the codes, its scales folded into one factor on the f32 result. The host
// code asks the runtime's GEMM library (cuBLASLt, format code 4: E4M3) and
// otherwise runs loops that widen the codes with integer code.

// RUN: dsmp-opt %s --dsmp-convert-to-linalg="conv-as-gemm=true" | FileCheck %s --check-prefix=TENSOR
// RUN: dsmp-opt %s --dsmp-lower-to-gpu="chip=sm_90 format=isa toolkit=%cuda_toolkit" --mlir-print-ir-after=dsmp-matmul-to-mma -o %t.mlir 2> %t.after-mma.mlir
// RUN: FileCheck %s --check-prefix=CALL < %t.after-mma.mlir
// RUN: %dsmp_python %dsmp_src/scripts/device_code.py ptx %t.mlir --chip sm_90 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=PTX < %t.mlir

// The widening (dsmp-expand-f8-extensions) gives ml_dtypes' value for each
// of the 256 codes of E4M3FN, E5M2 and the fnuz forms (run on the host).
// RUN: %dsmp_python %S/Inputs/f8_codes.py module > %t.codes.mlir
// RUN: dsmp-opt %t.codes.mlir --pass-pipeline="builtin.module(dsmp-expand-f8-extensions,one-shot-bufferize{bufferize-function-boundaries},func.func(convert-linalg-to-loops),convert-scf-to-cf,expand-strided-metadata,finalize-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)" -o %t.codes.llvm.mlir
// RUN: mlir-runner %t.codes.llvm.mlir -e main -entry-point-result=void -shared-libs=%mlir_runner_libs > %t.codes.log
// RUN: %dsmp_python %S/Inputs/f8_codes.py check %t.codes.log | FileCheck %s --check-prefix=CODES
// CODES: f8E4M3FN: 256 codes match ml_dtypes (2 NaN, 0 inf)
// CODES: f8E5M2: 256 codes match ml_dtypes (6 NaN, 2 inf)
// CODES: f8E4M3FNUZ: 256 codes match ml_dtypes (1 NaN, 0 inf)
// CODES: f8E5M2FNUZ: 256 codes match ml_dtypes (1 NaN, 0 inf)

// The contraction reads the f8 codes; 0.25 x 0.125 scales its result.
// TENSOR-LABEL: func.func @main_graph
// TENSOR-DAG: %[[SCALE:.*]] = arith.constant 3.125000e-02 : f32
// TENSOR: } -> tensor<64x128xf8E4M3FN>
// TENSOR: } -> tensor<32x128xf8E4M3FN>
// TENSOR: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<64x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>) outs(%{{.*}} : tensor<64x32xf32>)
// TENSOR: arith.extf %{{.*}} : f8E4M3FN to f32
// TENSOR: arith.mulf %[[SCALE]]
// TENSOR-NOT: dsmp.dequantize_linear

// The library first (format 4, A and B the f8 buffers, B transposed: the
// "TN" form cuBLASLt's FP8 GEMMs take), the loops where it declines.
// CALL: %[[A:.*]] = memref.alloc() {{.*}} : memref<64x128xf8E4M3FN>
// CALL: %[[FORMAT:.*]] = arith.constant 4 : i32
// CALL: %[[RAN:.*]] = call @dsmp_gpu_gemm(%[[FORMAT]], {{.*}}, %c0_i32{{.*}}, %c1_i32{{.*}})
// CALL: scf.if
// CALL-NEXT: linalg.generic {{.*}} ins(%[[A]], %{{.*}} : memref<64x128xf8E4M3FN>, memref<32x128xf8E4M3FN>)

// PTXAS: sm_90: PTX 8.0, {{[0-9]+}} kernels, ptxas -arch=sm_90: ok
// The generated loops load the bytes and widen them with integer code.
// PTX: .visible .entry {{k[0-9]+}}_fc(
// PTX-SAME: ld.global.s8
// PTX-SAME: bfe.u32

func.func @main_graph(%a: tensor<64x128xf32> {dsmp.name = "a"}, %b: tensor<32x128xf32> {dsmp.name = "b"}) -> (tensor<64x32xf32> {dsmp.name = "c"}) {
  %n = dsmp.none
  %sa = dsmp.constant dense<0.25> : tensor<f32>
  %sb = dsmp.constant dense<0.125> : tensor<f32>
  %z = dsmp.constant dense<0.0> : tensor<f8E4M3FN>
  %qa = dsmp.quantize_linear %a, %sa, %z : (tensor<64x128xf32>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<64x128xf8E4M3FN>
  %da = dsmp.dequantize_linear %qa, %sa, %z : (tensor<64x128xf8E4M3FN>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<64x128xf32>
  %qb = dsmp.quantize_linear %b, %sb, %z : (tensor<32x128xf32>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<32x128xf8E4M3FN>
  %db = dsmp.dequantize_linear %qb, %sb, %z : (tensor<32x128xf8E4M3FN>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<32x128xf32>
  %c = dsmp.gemm %da, %db, %n {transB = 1 : i64} : (tensor<64x128xf32>, tensor<32x128xf32>, none) -> tensor<64x32xf32> loc("fc")
  return %c : tensor<64x32xf32>
}
