//===- OpSummary.h - Per-op-type summary of a dsmp module -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_TOOLS_DSMP_TRANSLATE_OPSUMMARY_H
#define DSMP_TOOLS_DSMP_TRANSLATE_OPSUMMARY_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::dsmp {
/// Prints one line per op type: count, precision class and total FLOPs.
void printOpSummary(mlir::ModuleOp module, llvm::raw_ostream &os);
} // namespace mlir::dsmp

#endif // DSMP_TOOLS_DSMP_TRANSLATE_OPSUMMARY_H
