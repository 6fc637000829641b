//===- ArtifactPipeline.cpp - dsmp-compile-artifact ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Driver/Artifact/ArtifactPipeline.h"

#include "dialects/Dsmp/Transforms/Passes.h"
#include "dsmp/Target/CPUTarget.h"
#include "dsmp/Target/GPUTarget.h"
#include "dsmp/runtime/ProfileTable.h"
#include "lib/Conversion/Passes.h"
#include "lib/Conversion/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"

namespace mlir::dsmp {

LogicalResult
buildCompileArtifactPipeline(OpPassManager &pm,
                             const CompileArtifactPipelineOptions &options) {
  // The MLIR steps depend on the target's libraries, not on the CPU model
  // (which only tunes LLVM's code generation).
  auto target = lookupCPUTarget(options.target, "generic");
  if (!target)
    return failure();
  // The model at this variant's shapes, every output static.
  SpecializeShapesPassOptions specialize;
  specialize.shapes.assign(options.shapes.begin(), options.shapes.end());
  specialize.defaultDim = options.defaultDim;
  specialize.requireAllInputs = options.requireAllInputs;
  specialize.fixInputs.assign(options.fixInputs.begin(),
                              options.fixInputs.end());
  specialize.keepDynamic = options.dynamic;
  // Kernels are launched at sizes known when compiled; the profiler's
  // table has a row per op at one shape: neither has a dynamic form yet.
  if (options.dynamic && (!options.device.empty() || options.profile))
    return failure();
  pm.addPass(createSpecializeShapesPass(specialize));
  // Weights are read in place from the mapped weight file.
  pm.addNestedPass<func::FuncOp>(createWeightsToArgumentsPass());
  // What the C entry point passes, before lowering erases names and types.
  pm.addPass(createRecordEntryLayoutPass(
      RecordEntryLayoutPassOptions{options.dynamic}));
  // The profiler's table of ops, at this variant's shapes.
  if (options.profile) {
    if (!options.device.empty())
      return failure(); // kernels run asynchronously: no per-call clock
    pm.addPass(createTagProfileOpsPass());
  }
  if (!options.device.empty()) {
    // Kernels for the GPU, host code for the CPU that launches them.
    auto gpu = lookupGPUTarget(options.device);
    if (!gpu)
      return failure();
    LowerToGPUPipelineOptions lower;
    lower.chip = gpu->chip;
    lower.binaryFormat = gpu->binaryFormat;
    lower.toolkit = gpu->toolkit;
    lower.resultsToOutParams = true;
    if (failed(buildLowerToGPUPipeline(pm, lower)))
      return failure();
  } else {
    LowerToLLVMPipelineOptions lower;
    // A dynamic variant returns its outputs: their sizes are known once
    // computed (the entry point copies them out).
    lower.resultsToOutParams = !options.dynamic;
    lower.useBlas = !target->blasLibrary.empty();
    lower.blasApi = target->blasLibrary == "dnnl" ? "dnnl" : "cblas";
    lower.parallelLoops = target->parallelLoops;
    // Buffers through the artifact's cache (linkSharedLibrary links it).
    lower.genericAllocation = true;
    if (options.profile)
      lower.profileCounters =
          ::dsmp::artifact::profileCountersSymbol(options.entry);
    if (failed(buildLowerToLLVMPipeline(pm, lower)))
      return failure();
  }
  EmitEntryPointPassOptions entryPoint;
  entryPoint.entryName = options.entry;
  entryPoint.dynamic = options.dynamic;
  pm.addPass(createEmitEntryPointPass(entryPoint));
  return success();
}

void registerArtifactPipelines() {
  registerPassPipeline(
      "dsmp-compile-artifact",
      "One artifact variant: dsmp IR (weights in the weight file) to the "
      "LLVM dialect with its C entry point",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        CompileArtifactPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (options.dynamic && (!options.device.empty() || options.profile))
          return errorHandler("dsmp-compile-artifact: a dynamic variant runs "
                              "on the CPU and is not profiled");
        if (failed(buildCompileArtifactPipeline(pm, options)))
          return errorHandler(
              "dsmp-compile-artifact: unknown target '" + options.target +
              "' (known: " + knownCPUTargets() + ") or device '" +
              options.device + "' (known: " + knownGPUTargets() + ")");
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> handler) {
        handler(CompileArtifactPipelineOptions());
      });
}

} // namespace mlir::dsmp
