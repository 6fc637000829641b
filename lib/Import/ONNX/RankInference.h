//===- RankInference.h - Fallback result types for the importer ---*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_IMPORT_ONNX_RANKINFERENCE_H
#define DSMP_LIB_IMPORT_ONNX_RANKINFERENCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

#include <onnx/onnx_pb.h>

namespace mlir::dsmp::onnx_import {

/// The result type of output `index` of `opName` when ONNX shape inference
/// gave none (typically after a Reshape whose shape is computed at run
/// time). Uses the operand types already imported; dims it cannot tell are
/// dynamic. Returns null when even the rank is unknown.
mlir::RankedTensorType inferRankedType(mlir::MLIRContext &ctx,
                                       llvm::StringRef opName, int index,
                                       llvm::ArrayRef<mlir::Value> operands,
                                       const onnx::NodeProto &node);

} // namespace mlir::dsmp::onnx_import

#endif // DSMP_LIB_IMPORT_ONNX_RANKINFERENCE_H
