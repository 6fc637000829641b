//===- InitAll.h - Everything the dsmp tools register ----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_INITALL_H
#define DSMP_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::dsmp {

/// Adds every dialect, interface model and LLVM translation dsmp's flows
/// use (import to the LLVM dialect) to `registry`, and registers, once per
/// process, every dsmp pass and pipeline (transforms, conversion,
/// precision, dsmp-compile-artifact) and the upstream passes the pipelines
/// name. Test-only passes are not among them (dsmp-opt adds those).
void registerAll(DialectRegistry &registry);

} // namespace mlir::dsmp

#endif // DSMP_INITALL_H
