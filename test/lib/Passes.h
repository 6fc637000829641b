//===- Passes.h - Test-only dsmp passes ------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_TEST_LIB_PASSES_H
#define DSMP_TEST_LIB_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::dsmp {

#define GEN_PASS_DECL
#include "test/lib/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "test/lib/Passes.h.inc"

} // namespace mlir::dsmp

#endif // DSMP_TEST_LIB_PASSES_H
