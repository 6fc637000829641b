//===- InitAll.h - Register every dsmp dialect and pass -----------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_INITALL_H
#define DSMP_INITALL_H

#include "dialects/Dsmp/IR/DsmpDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::dsmp {

/// The dialects that dsmp IR uses: dsmp itself and func.
inline void registerAllDialects(DialectRegistry &registry) {
  registry.insert<DsmpDialect, func::FuncDialect>();
}

/// Every dsmp pass, test passes included.
inline void registerAllPasses() { registerDsmpPasses(); }

} // namespace mlir::dsmp

#endif // DSMP_INITALL_H
