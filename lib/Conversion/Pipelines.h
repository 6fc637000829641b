//===- Pipelines.h - dsmp lowering pipelines ----------------------*- C++
//-*-===//
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
    : public PassPipelineOptions<LowerToLLVMPipelineOptions> {};

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
