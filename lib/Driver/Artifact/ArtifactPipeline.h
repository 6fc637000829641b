//===- ArtifactPipeline.h - dsmp-compile-artifact --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_DRIVER_ARTIFACT_ARTIFACTPIPELINE_H
#define DSMP_LIB_DRIVER_ARTIFACT_ARTIFACTPIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::dsmp {

struct CompileArtifactPipelineOptions
    : public PassPipelineOptions<CompileArtifactPipelineOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("The CPU the artifact is for: x86_64 or aarch64 (which "
                     "GEMM library and threads its code calls)"),
      llvm::cl::init("x86_64")};
  PassOptions::Option<std::string> device{
      *this, "device",
      llvm::cl::desc("The GPU whose kernels the code launches (sm_80, sm_90, "
                     "gfx90a, gfx942); empty: the code runs on the CPU"),
      llvm::cl::init("")};
  PassOptions::ListOption<std::string> shapes{
      *this, "shapes",
      llvm::cl::desc("Input shapes of this variant, NAME=D0xD1x... each")};
  PassOptions::Option<int64_t> defaultDim{
      *this, "default-dim",
      llvm::cl::desc("Value of the dynamic input dims `shapes` does not give"),
      llvm::cl::init(1)};
  PassOptions::Option<bool> requireAllInputs{
      *this, "require-all-inputs",
      llvm::cl::desc("Every input must have a shape in `shapes`"),
      llvm::cl::init(false)};
  PassOptions::ListOption<std::string> fixInputs{
      *this, "fix-inputs",
      llvm::cl::desc("Integer inputs compiled for one value, NAME=V[:V...]")};
  PassOptions::Option<std::string> entry{
      *this, "entry", llvm::cl::desc("The variant's C entry point"),
      llvm::cl::init("dsmp_model_run_0")};
  PassOptions::Option<bool> profile{
      *this, "profile",
      llvm::cl::desc("Record each op's node, format and FLOPs and time each "
                     "lowered call into the exported array "
                     "dsmp_profile_<entry> (the runtime's profiler; CPU code "
                     "only)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> dynamic{
      *this, "dynamic",
      llvm::cl::desc("The dynamic variant: input dims not in `shapes` stay "
                     "dynamic, sized at run time (CPU code only; "
                     "docs/dynamic-shapes.md)"),
      llvm::cl::init(false)};
};

/// One artifact variant, from dsmp IR with weights in the artifact's weight
/// file (#dsmp.external) to the LLVM dialect with its C entry point:
/// specialize the shapes, weights to arguments, record the entry layout,
/// dsmp-lower-to-llvm for the target, emit the entry point.
LogicalResult
buildCompileArtifactPipeline(OpPassManager &pm,
                             const CompileArtifactPipelineOptions &options);

/// Registers `dsmp-compile-artifact`.
void registerArtifactPipelines();

} // namespace mlir::dsmp

#endif // DSMP_LIB_DRIVER_ARTIFACT_ARTIFACTPIPELINE_H
