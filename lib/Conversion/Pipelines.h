//===- Pipelines.h - dsmp lowering pipelines --------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_CONVERSION_PIPELINES_H
#define DSMP_LIB_CONVERSION_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::dsmp {

struct LowerToLLVMPipelineOptions
    : public PassPipelineOptions<LowerToLLVMPipelineOptions> {
  PassOptions::Option<bool> resultsToOutParams{
      *this, "results-to-out-params",
      llvm::cl::desc("Return results through caller-allocated buffers (for "
                     "calls from C and the JIT)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> useBlas{
      *this, "use-blas",
      llvm::cl::desc("Call a GEMM library for f32 matmuls (the artifact links "
                     "it); otherwise they lower to loops"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> blasApi{
      *this, "blas-api",
      llvm::cl::desc("With use-blas: cblas (cblas_sgemm, OpenBLAS) or dnnl "
                     "(oneDNN's dnnl_sgemm)"),
      llvm::cl::init("cblas")};
  PassOptions::Option<bool> parallelLoops{
      *this, "parallel-loops",
      llvm::cl::desc("Run loop nests with enough parallel work on libgomp's "
                     "threads (GOMP_parallel; link -lgomp)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> genericAllocation{
      *this, "generic-allocation",
      llvm::cl::desc("Allocate through _mlir_memref_to_llvm_alloc/_free (the "
                     "artifact's buffer cache) instead of malloc/free"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> simplifyDeallocations{
      *this, "simplify-deallocations",
      llvm::cl::desc("Run buffer-deallocation-simplification (fewer runtime "
                     "alias checks; its time grows superlinearly with the "
                     "size of a function)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> profileCounters{
      *this, "profile-counters",
      llvm::cl::desc("Time each call and copy of @main_graph into this "
                     "exported counters array (dsmp-time-calls); empty: no "
                     "profiling"),
      llvm::cl::init("")};
};

/// dsmp (static shapes, weights loaded) -> linalg -> buffers -> loops ->
/// the LLVM dialect, ready for mlir-runner or translation to LLVM IR.
/// Needs the upstream passes it names to be registered.
LogicalResult
buildLowerToLLVMPipeline(OpPassManager &pm,
                         const LowerToLLVMPipelineOptions &options);

/// Registers `dsmp-lower-to-llvm` with dsmp-opt.
struct LowerToGPUPipelineOptions
    : public PassPipelineOptions<LowerToGPUPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("The GPU: sm_80, sm_90 (NVIDIA) or gfx90a, gfx942 (AMD)"),
      llvm::cl::init("sm_80")};
  PassOptions::Option<std::string> binaryFormat{
      *this, "format",
      llvm::cl::desc("gpu-module-to-binary's format: fatbin (NVIDIA: SASS "
                     "and PTX), bin (a cubin or HSACO), isa (PTX or AMDGPU "
                     "assembly)"),
      llvm::cl::init("bin")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("The toolkit folder gpu-module-to-binary runs ptxas/"
                     "fatbinary (CUDA) or llvm/bin/ld.lld (ROCm) from"),
      llvm::cl::init("")};
  PassOptions::Option<bool> resultsToOutParams{
      *this, "results-to-out-params",
      llvm::cl::desc("Return results through caller-allocated buffers"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("Threads per block of a parallel loop nest"),
      llvm::cl::init(256)};
};

/// Whether a chip name is NVIDIA's (sm_*) or AMD's (gfx*).
bool isNvidiaChip(llvm::StringRef chip);
bool isAmdChip(llvm::StringRef chip);

/// The GPU path: dsmp to kernels in a serialized gpu.binary and host code
/// in the LLVM dialect that allocates device buffers and launches them.
LogicalResult buildLowerToGPUPipeline(OpPassManager &pm,
                                      const LowerToGPUPipelineOptions &options);

void registerDsmpConversionPipelines();

} // namespace mlir::dsmp

#endif // DSMP_LIB_CONVERSION_PIPELINES_H
