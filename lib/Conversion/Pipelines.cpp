//===- Pipelines.cpp - dsmp lowering pipelines ------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Pipelines.h"

#include "lib/Conversion/Passes.h"

#include "dialects/Dsmp/Transforms/Passes.h"

#include "mlir/InitAllPasses.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <mutex>

namespace mlir::dsmp {

LogicalResult
buildLowerToLLVMPipeline(OpPassManager &pm,
                         const LowerToLLVMPipelineOptions &options) {
  // The steps below are named as mlir-opt names them: their passes must be
  // registered to be parsed, in any program that builds this pipeline.
  static std::once_flag registered;
  std::call_once(registered, [] {
    mlir::registerAllPasses();
    registerDsmpConversionPasses();
  });
  // dsmp ops become linalg/tensor/arith/math on the same tensors.
  // Adjoint graphs' MaxPool gradients as ops the lowering has.
  pm.addNestedPass<func::FuncOp>(createExpandMaxPoolGradPass());
  pm.addNestedPass<func::FuncOp>(createConvertDsmpToLinalgPass());
  if (!options.useBlas &&
      failed(parsePassPipeline("func.func(linalg-generalize-named-ops)", pm)))
    return failure();
  // Chains of elementwise ops (bias, activation, casts) become one loop
  // nest: no intermediate buffers. Each op's rounding stays in the body.
  pm.addNestedPass<func::FuncOp>(createFuseElementwisePass());
  // erf as arithmetic LLVM vectorizes, not a libm call per element.
  pm.addNestedPass<func::FuncOp>(createApproximateErfPass());
  // Contiguous innermost loops, which LLVM vectorizes.
  pm.addNestedPass<func::FuncOp>(createOrderLoopsForLocalityPass());
  // Elementwise loops over contiguous dims as one long loop.
  pm.addNestedPass<func::FuncOp>(createCollapseContiguousLoopsPass());
  // Padding: border fills only, the producer writing the interior.
  pm.addNestedPass<func::FuncOp>(createWriteIntoPaddingPass());
  // Upstream from here; by name, so the steps read like mlir-opt's.
  std::string outParams =
      options.resultsToOutParams
          ? "buffer-results-to-out-params{modify-public-functions},"
          : "";
  if (failed(parsePassPipeline(
          // Tensors become buffers, across function boundaries too, with
          // plain row-major layouts at the boundary.
          // A result inserted into a bigger tensor (a convolution's
          // output boxes, concatenation) is computed in place there.
          "eliminate-empty-tensors,"
          "one-shot-bufferize{bufferize-function-boundaries "
          "function-boundary-type-conversion=identity-layout-map}," +
              outParams +
              // Free every intermediate buffer (ownership-based): the steps
              // of upstream's buffer-deallocation-pipeline.
              "expand-realloc{emit-deallocs=false},canonicalize,"
              "ownership-based-buffer-deallocation,canonicalize," +
              (options.simplifyDeallocations
                   ? std::string("buffer-deallocation-simplification,")
                   : std::string()) +
              "bufferization-lower-deallocations,cse,canonicalize",
          pm)))
    return failure();
  // Each buffer freed after its last use: the next one of its size reuses
  // it while it is in cache.
  pm.addNestedPass<func::FuncOp>(createFreeBuffersAfterLastUsePass());
  if (options.useBlas)
    pm.addPass(
        createLinalgToBlasPass(LinalgToBlasPassOptions{options.blasApi}));
  // Strided copies as loops: no call into MLIR's runner library.
  pm.addNestedPass<func::FuncOp>(createExpandStridedCopiesPass());
  // Plain loops (scf.parallel for the parallel dims when threads run
  // them); LLVM vectorizes the innermost.
  if (failed(parsePassPipeline(
          options.parallelLoops ? "func.func(convert-linalg-to-parallel-loops)"
                                : "func.func(convert-linalg-to-loops)",
          pm)))
    return failure();
  // One function per loop nest keeps LLVM's analyses linear.
  OutlineLoopNestsPassOptions outline;
  outline.splitParallel = options.parallelLoops;
  pm.addPass(createOutlineLoopNestsPass(outline));
  // Buffers through the artifact's cache, or malloc/free.
  std::string finalizeMemRef =
      options.genericAllocation
          ? "finalize-memref-to-llvm{use-generic-functions},"
          : "finalize-memref-to-llvm,";
  // Outlined nests marked dsmp.fork run on libgomp's threads.
  std::string fork = options.parallelLoops ? ",dsmp-fork-loop-nests" : "";
  return parsePassPipeline(
      "convert-scf-to-cf,"
      // Memref metadata and affine maps that bufferization leaves.
      "expand-strided-metadata,lower-affine," +
          // Everything to the LLVM dialect.
          finalizeMemRef +
          // Math ops without an LLVM intrinsic (erf, ...) call libm.
          "convert-math-to-llvm,convert-math-to-libm,"
          // bf16: any arithmetic left computes in f32, and every conversion
          // is integer code (round to nearest even), not LLVM's
          // target-dependent bf16 lowering (round toward zero on AArch64
          // without +bf16).
          "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
          "arith-expand{include-bf16},"
          "convert-arith-to-llvm,"
          "convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts,"
          // Outlined loop nests whose buffers cannot overlap say so to LLVM.
          "dsmp-mark-noalias-pointers" +
          fork,
      pm);
}

void registerDsmpConversionPipelines() {
  PassPipelineRegistration<LowerToLLVMPipelineOptions>(
      "dsmp-lower-to-llvm",
      "Lower dsmp (static shapes) through linalg and bufferization to the "
      "LLVM dialect",
      [](OpPassManager &pm, const LowerToLLVMPipelineOptions &options) {
        (void)buildLowerToLLVMPipeline(pm, options);
      });
}

} // namespace mlir::dsmp
