//===- Passes.h - dsmp pass declarations --------------------------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_PASSES_H
#define DSMP_PASSES_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::dsmp {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// Replaces every #dsmp.external constant of `module` by its bytes from
/// the weight file at `path` (what dsmp-load-weights does).
llvm::Error loadExternalWeights(ModuleOp module, llvm::StringRef path);

} // namespace mlir::dsmp

#endif // DSMP_PASSES_PASSES_H
