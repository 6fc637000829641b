// REQUIRES: cuda-toolkit, rocm-lld
// f16, bf16 and tf32 matmuls (what sm_80's format table assigns) on
// tensor cores: a warp per 16x8 tile, nvvm.mma.sync with f32 accumulators,
// in PTX that CUDA's ptxas assembles for sm_80. On gfx90a, f16 and bf16 on
// the matrix cores: a wavefront per 32x32 tile, v_mfma_f32_32x32x8*.

// RUN: dsmp-opt %s --split-input-file --dsmp-lower-to-gpu="chip=sm_80 format=isa toolkit=%cuda_toolkit" -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: %dsmp_python %dsmp_src/scripts/device_code.py ptx %t.mlir --chip sm_80 | FileCheck %s --check-prefix=PTXAS
// PTXAS-COUNT-6: sm_80: PTX 8.0, {{[0-9]+}} kernels, ptxas -arch=sm_80: ok
// RUN: dsmp-opt %s --split-input-file --dsmp-lower-to-gpu="chip=gfx90a format=isa toolkit=%rocm_toolkit" | FileCheck %s --check-prefix=AMD

// CHECK-LABEL: gpu.binary @f16_matmul_kernels
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// AMD-LABEL: gpu.binary @f16_matmul_kernels
// AMD-SAME: v_mfma_f32_32x32x8f16
func.func @f16_matmul(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>) -> tensor<32x16xf16> {
  %p = dsmp.matmul %a, %b : (tensor<32x64xf16>, tensor<64x16xf16>) -> tensor<32x16xf16>
  return %p : tensor<32x16xf16>
}

// -----

// CHECK-LABEL: gpu.binary @bf16_matmul_kernels
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// AMD-LABEL: gpu.binary @bf16_matmul_kernels
// AMD-SAME: v_mfma_f32_32x32x8bf16_1k
func.func @bf16_matmul(%a: tensor<32x64xbf16>, %b: tensor<64x16xbf16>) -> tensor<32x16xbf16> {
  %p = dsmp.matmul %a, %b : (tensor<32x64xbf16>, tensor<64x16xbf16>) -> tensor<32x16xbf16>
  return %p : tensor<32x16xbf16>
}

// -----

// The operands round with cvt.rna.tf32.f32, then m16n8k8 tf32.
// gfx90a has no tf32: the operands round, the product is f32 arithmetic.
// AMD-LABEL: gpu.binary @tf32_matmul_kernels
// AMD-NOT: v_mfma
// CHECK-LABEL: gpu.binary @tf32_matmul_kernels
// CHECK-SAME: cvt.rna.tf32.f32
// CHECK-SAME: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
func.func @tf32_matmul(%a: tensor<32x64xf32>, %b: tensor<64x16xf32>) -> tensor<32x16xf32> {
  %at = dsmp.cast %a : (tensor<32x64xf32>) -> tensor<32x64xtf32>
  %bt = dsmp.cast %b : (tensor<64x16xf32>) -> tensor<64x16xtf32>
  %p = dsmp.matmul %at, %bt : (tensor<32x64xtf32>, tensor<64x16xtf32>) -> tensor<32x16xtf32>
  %c = dsmp.cast %p : (tensor<32x16xtf32>) -> tensor<32x16xf32>
  return %c : tensor<32x16xf32>
}

// -----

// A shape that does not tile (m = 20, n = 12, k = 40): the edge tiles
// read zeros past the ends and store only inside.
// CHECK-LABEL: gpu.binary @ragged_kernels
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// AMD-LABEL: gpu.binary @ragged_kernels
// AMD-SAME: v_mfma_f32_32x32x8f16
func.func @ragged(%a: tensor<20x40xf16>, %b: tensor<40x12xf16>) -> tensor<20x12xf16> {
  %p = dsmp.matmul %a, %b : (tensor<20x40xf16>, tensor<40x12xf16>) -> tensor<20x12xf16>
  return %p : tensor<20x12xf16>
}

// -----

// Smaller than one 16x8 tile: one thread per output element.
// CHECK-LABEL: gpu.binary @tiny_kernels
// CHECK-NOT: mma.sync
func.func @tiny(%a: tensor<1x64xf16>, %b: tensor<64x4xf16>) -> tensor<1x4xf16> {
  %p = dsmp.matmul %a, %b : (tensor<1x64xf16>, tensor<64x4xf16>) -> tensor<1x4xf16>
  return %p : tensor<1x4xf16>
}

// -----

// A convolution is an im2col GEMM on the GPU path, whatever its format:
// an f16 3x3 one (two samples, one GEMM each) runs on tensor cores.
// CHECK-LABEL: gpu.binary @f16_conv_kernels
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
func.func @f16_conv(%x: tensor<2x16x10x10xf16>, %w: tensor<32x16x3x3xf16>) -> tensor<2x32x8x8xf16> {
  %n = dsmp.none
  %y = dsmp.conv %x, %w, %n : (tensor<2x16x10x10xf16>, tensor<32x16x3x3xf16>, none) -> tensor<2x32x8x8xf16>
  return %y : tensor<2x32x8x8xf16>
}
