//===- DeclinableAction.h - Long steps a handler may decline ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The long steps of a compile (a calibration run, a validation run, an
// artifact's lowering or code generation) run as MLIR actions, so that a
// context's action handler sees them (progress lines) and may decline them
// (an interrupted Python compile: the handler stops running actions). A
// declined step is an error, so nothing downstream mistakes its missing
// result for a real one and no artifact is committed.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_SUPPORT_DECLINABLEACTION_H
#define DSMP_SUPPORT_DECLINABLEACTION_H

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <utility>

namespace mlir::dsmp {

/// Runs `step` as action `ActionT` (constructed from `args`) on `context`;
/// its error, or "interrupted" when the context's handler declined it.
template <typename ActionT, typename... Args>
llvm::Error runDeclinable(MLIRContext *context,
                          llvm::function_ref<llvm::Error()> step,
                          Args &&...args) {
  llvm::Error result = llvm::createStringError("interrupted");
  context->executeAction<ActionT>(
      [&] {
        llvm::consumeError(std::move(result));
        result = step();
      },
      {}, std::forward<Args>(args)...);
  return result;
}

} // namespace mlir::dsmp

#endif // DSMP_SUPPORT_DECLINABLEACTION_H
