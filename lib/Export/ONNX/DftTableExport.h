//===- DftTableExport.h - dsmp.dft_table as ONNX nodes -------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// dsmp.dft_table has no ONNX op of its own, but its table is ONNX's DFT of
// unit impulses: row r of the identity [R, R] (R = length * parts), seen as
// a signal [length, parts], transforms into row r of the table. So a model
// whose DFT runs over a run-time dim exports as EyeLike, Reshape, DFT and
// Reshape (opset 17 and later).
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_EXPORT_ONNX_DFTTABLEEXPORT_H
#define DSMP_LIB_EXPORT_ONNX_DFTTABLEEXPORT_H

#include "dialects/Dsmp/IR/DsmpOps.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

#include <string>

namespace mlir::dsmp {

/// Appends to `graph` the nodes that compute `op`'s table from the value
/// named `length` into the value named `result`, at export opset `opset`.
/// `unique` makes a fresh value or node name from a base.
llvm::Error
exportDftTable(DftTableOp op, onnx::GraphProto &graph, int64_t opset,
               llvm::StringRef length, llvm::StringRef result,
               llvm::function_ref<std::string(llvm::StringRef)> unique);

} // namespace mlir::dsmp

#endif // DSMP_LIB_EXPORT_ONNX_DFTTABLEEXPORT_H
