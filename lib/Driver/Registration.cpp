//===- Registration.cpp - Every pass the dsmp tools know ------ -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/Registration.h"

#include "dsmp/Execution/Compile.h"
#include "passes/Precision/Passes.h"

#include <mutex>

namespace mlir::dsmp {

void registerDriverPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerLoweringPasses();
    registerPrecisionPasses();
  });
}

} // namespace mlir::dsmp
