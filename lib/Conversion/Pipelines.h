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
};

/// dsmp (static shapes, weights loaded) -> linalg -> buffers -> loops ->
/// the LLVM dialect, ready for mlir-runner or translation to LLVM IR.
/// Needs the upstream passes it names to be registered.
LogicalResult
buildLowerToLLVMPipeline(OpPassManager &pm,
                         const LowerToLLVMPipelineOptions &options);

/// Registers `dsmp-lower-to-llvm` with dsmp-opt.
void registerDsmpConversionPipelines();

} // namespace mlir::dsmp

#endif // DSMP_LIB_CONVERSION_PIPELINES_H
