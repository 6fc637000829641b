//===- BranchInputs.h - Inputs the data fixes for a branch ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_DRIVER_BRANCHINPUTS_H
#define DSMP_LIB_DRIVER_BRANCHINPUTS_H

#include "dialects/Dsmp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

namespace mlir::dsmp {

/// The integer inputs an If branches on that hold one value in every input
/// set of `dirs` (silero VAD's sample rate, 16000 in all of them), with
/// that value; not those `fixed` names already. The branches no set takes
/// cannot be measured, and may not even run at the sets' shapes (an 8 kHz
/// branch at a 16 kHz chunk size): a precision compile fixes these inputs,
/// as --fix-input does. Empty folders in `dirs` are skipped.
llvm::Expected<FixedInputs> inputsFixedByData(func::FuncOp graph,
                                              llvm::ArrayRef<std::string> dirs,
                                              const FixedInputs &fixed);

} // namespace mlir::dsmp

#endif // DSMP_LIB_DRIVER_BRANCHINPUTS_H
