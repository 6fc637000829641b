// REQUIRES: cuda-toolkit, rocm-lld
// dsmp-lower-to-gpu: every loop nest a kernel in one gpu.module, serialized
// for the chip; the host launches them on device buffers.
// Each function below is lowered on its own (--split-input-file).

// RUN: dsmp-opt %s --split-input-file --dsmp-lower-to-gpu="chip=sm_80 format=isa toolkit=%cuda_toolkit" | FileCheck %s --check-prefix=NV
// RUN: dsmp-opt %s --split-input-file --dsmp-lower-to-gpu="chip=gfx90a format=isa toolkit=%rocm_toolkit" | FileCheck %s --check-prefix=AMD
// RUN: dsmp-opt %s --split-input-file --dsmp-lower-to-gpu="chip=sm_80 format=isa toolkit=%cuda_toolkit" -o %t.mlir
// RUN: %dsmp_python %dsmp_src/scripts/device_code.py ptx %t.mlir --chip sm_80 | FileCheck %s --check-prefix=PTXAS
// PTXAS: sm_80: PTX 8.0, 1 kernels, ptxas -arch=sm_80: ok
// PTXAS: sm_80: PTX 8.0, {{[0-9]+}} kernels, ptxas -arch=sm_80: ok

// An elementwise chain (add, tanh, a round trip through f16, relu) is one
// kernel: one launch, and no buffer between its ops.
// NV-LABEL: llvm.func @chain
// NV: gpu.launch_func @chain_kernels::@k0_chain_Relu
// NV-NOT: gpu.launch_func
// NV: gpu.binary @chain_kernels
// NV-SAME: #nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
// The chain's kernel, named after its ONNX node, reads x and y and writes
// the result once; the f16 rounding is the PTX conversion.
// NV-SAME: .visible .entry k0_chain_Relu(
// NV-SAME: cvt.rn.f16.f32
// NV-NOT: .entry
// AMD-LABEL: llvm.func @chain
// AMD: gpu.binary @chain_kernels
// AMD-SAME: #rocdl.target<O = 3, chip = "gfx90a">
// AMD-SAME: .amdhsa_kernel k0_chain_Relu
func.func @chain(%x: tensor<64x128xf32> {dsmp.name = "x"}, %y: tensor<64x128xf32> {dsmp.name = "y"}) -> (tensor<64x128xf32> {dsmp.name = "z"}) {
  %s = dsmp.add %x, %y : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32> loc("chain_Add")
  %t = dsmp.tanh %s : (tensor<64x128xf32>) -> tensor<64x128xf32> loc("chain_Tanh")
  %h = dsmp.cast %t : (tensor<64x128xf32>) -> tensor<64x128xf16> loc("chain_Cast")
  %b = dsmp.cast %h : (tensor<64x128xf16>) -> tensor<64x128xf32> loc("chain_Cast")
  %r = dsmp.relu %b : (tensor<64x128xf32>) -> tensor<64x128xf32> loc("chain_Relu")
  return %r : tensor<64x128xf32>
}

// -----

// A tf32 matmul (what sm_80's format table assigns an f32 one): the
// operands round with cvt.rna.tf32.f32, ties away from zero as the host's
// emulation rounds.
// NV-LABEL: llvm.func @tf32_matmul
// NV: gpu.binary @tf32_matmul_kernels
// NV-SAME: cvt.rna.tf32.f32
func.func @tf32_matmul(%a: tensor<32x64xf32> {dsmp.name = "a"}, %b: tensor<64x16xf32> {dsmp.name = "b"}) -> (tensor<32x16xf32> {dsmp.name = "c"}) {
  %at = dsmp.cast %a : (tensor<32x64xf32>) -> tensor<32x64xtf32>
  %bt = dsmp.cast %b : (tensor<64x16xf32>) -> tensor<64x16xtf32>
  %p = dsmp.matmul %at, %bt : (tensor<32x64xtf32>, tensor<64x16xtf32>) -> tensor<32x16xtf32>
  %c = dsmp.cast %p : (tensor<32x16xtf32>) -> tensor<32x16xf32>
  return %c : tensor<32x16xf32>
}
