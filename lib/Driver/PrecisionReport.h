//===- PrecisionReport.h - What the precision report says -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_DRIVER_PRECISIONREPORT_H
#define DSMP_LIB_DRIVER_PRECISIONREPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

namespace mlir::dsmp {

/// One entry per op that has a precision decision (an assigned module,
/// before casts): index (graph op order), name, op type, format, class,
/// accumulation, reason, FLOPs, error share, sensitivity and range.
llvm::json::Array describeOps(ModuleOp assigned);

/// Adds the FLOP shares per format of `ops` (describeOps' entries) to
/// `summary`: flop_share, low_precision_flop_share (16- and 8-bit),
/// f8_flop_share, reduced_precision_flop_share, total_flops.
void summarizeFlops(const llvm::json::Array &ops, llvm::json::Object &summary);

} // namespace mlir::dsmp

#endif // DSMP_LIB_DRIVER_PRECISIONREPORT_H
