//===- RunPasses.h - Run a pipeline, keep its errors ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_DRIVER_ARTIFACT_RUNPASSES_H
#define DSMP_LIB_DRIVER_ARTIFACT_RUNPASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace mlir::dsmp {

/// Runs `pm` on `module` with the tool's --mlir-print-ir-* and similar
/// options (where it registered them). On failure, `errors` holds the
/// passes' error diagnostics, each naming its ONNX node, one per line
/// (lines after the first indented by two spaces).
LogicalResult runPasses(PassManager &pm, ModuleOp module, std::string &errors);

/// The passes of a module-anchored pipeline as textual pipeline elements:
/// what goes inside `builtin.module(...)` when it is replayed.
std::string pipelineElements(OpPassManager &pm);

} // namespace mlir::dsmp

#endif // DSMP_LIB_DRIVER_ARTIFACT_RUNPASSES_H
