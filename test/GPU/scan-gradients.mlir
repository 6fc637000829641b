// REQUIRES: cuda-toolkit, rocm-lld
// dsmp.scan_gradients on a GPU: the whole list of gradients in three
// kernels, whatever their number: (1) every lane of every gradient
// (interleaved: lane p reads elements p, p + L, ..., so neighbouring threads
// read neighbouring addresses), (2) fold slots, (3) the stats rows.
// The numbers these loops compute are checked against numpy on the host
// (test/Execution/scan-gradients.test runs them through mlir-runner).

// RUN: dsmp-opt %s --dsmp-convert-to-linalg="interleaved-scans=true" | FileCheck %s --check-prefix=LANES
// RUN: dsmp-opt %s --dsmp-lower-to-gpu="chip=sm_90 format=isa toolkit=%cuda_toolkit" | FileCheck %s --check-prefix=NV
// RUN: dsmp-opt %s --dsmp-lower-to-gpu="chip=sm_80 format=isa toolkit=%cuda_toolkit" -o %t.mlir
// RUN: %dsmp_python %dsmp_src/scripts/device_code.py ptx %t.mlir --chip sm_80 | FileCheck %s --check-prefix=PTXAS
// RUN: dsmp-opt %s --dsmp-lower-to-gpu="chip=gfx90a format=isa toolkit=%rocm_toolkit" | FileCheck %s --check-prefix=AMD

// 9408 elements get 8192 lanes (the largest power of two within 16384),
// the f16 bias 64: 8256 lanes in one loop. Lane p of the weight reads
// ceil((9408 - p) / 8192) elements, p + j * 8192.
// LANES-LABEL: func.func @scan
// LANES-DAG: %[[LANES:.*]] = arith.constant 8256 : index
// LANES-DAG: %[[L:.*]] = arith.constant 8192 : index
// LANES: %[[PARTIAL:.*]] = memref.alloc() : memref<5x8256xf32>
// LANES: scf.parallel (%[[LANE:.*]]) = (%{{.*}}) to (%[[LANES]])
// LANES: scf.if
// LANES: scf.for %[[J:.*]] = {{.*}} iter_args(
// LANES: %[[STEP:.*]] = arith.muli %[[J]], %[[L]]
// LANES: %[[AT:.*]] = arith.addi %{{.*}}, %[[STEP]]
// LANES: memref.load %{{.*}}[%[[AT]]] : memref<9408xf32>
// LANES: memref.store %{{.*}}, %{{.*}}[%[[AT]]] : memref<9408xf32>
// The f16 gradient widens to f32 before it is measured.
// LANES: } else {
// LANES: memref.load %{{.*}} : memref<64xf16>
// LANES-NEXT: arith.extf
// LANES: memref.store %{{.*}}, %[[PARTIAL]][%{{.*}}, %[[LANE]]]
// Then 2 x 256 fold slots, and 2 x 5 cells of stats.
// LANES: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c512)
// LANES: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c10)
// LANES: bufferization.to_tensor

// NV-LABEL: llvm.func @scan
// NV: gpu.launch_func @scan_kernels::@k0_scan
// NV: gpu.launch_func @scan_kernels::@k1_scan
// NV: gpu.launch_func @scan_kernels::@k2_scan
// NV-NOT: gpu.launch_func
// NV: gpu.binary @scan_kernels
// Stage 1's loop: one f32 load, the unscaled store, amax by max.f32 (a NaN
// left out), the counts.
// NV-SAME: .visible .entry k0_scan(
// NV-SAME: ld.global.b32
// NV-SAME: mul.rn.f32
// NV-SAME: st.global.b32
// NV-SAME: setp.nan.f32
// NV-SAME: max.f32
// NV-SAME: .visible .entry k1_scan(
// NV-SAME: .visible .entry k2_scan(
// NV-NOT: .entry

// PTXAS: sm_80: PTX 8.0, 3 kernels, ptxas -arch=sm_80: ok

// AMD: gpu.binary @scan_kernels
// AMD-SAME: .amdhsa_kernel k0_scan
// AMD-SAME: .amdhsa_kernel k1_scan
// AMD-SAME: .amdhsa_kernel k2_scan

func.func @scan(%inv: tensor<f32> {dsmp.name = "inverse_scale"}, %w: tensor<64x3x7x7xf32> {dsmp.name = "w"}, %b: tensor<64xf16> {dsmp.name = "b"}) -> (tensor<64x3x7x7xf32> {dsmp.name = "w_unscaled"}, tensor<64xf32> {dsmp.name = "b_unscaled"}, tensor<2x5xf32> {dsmp.name = "stats"}) {
  %uw, %ub, %s = dsmp.scan_gradients %inv, %w, %b {format = f16} : (tensor<f32>, tensor<64x3x7x7xf32>, tensor<64xf16>) -> (tensor<64x3x7x7xf32>, tensor<64xf32>, tensor<2x5xf32>) loc("scan")
  return %uw, %ub, %s : tensor<64x3x7x7xf32>, tensor<64xf32>, tensor<2x5xf32>
}
