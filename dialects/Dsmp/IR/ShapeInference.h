//===- ShapeInference.h - Result types from operand types -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Rules that give the result type of an ONNX-mapped op from its operand
// types, constant operands and attributes. The importer uses them where ONNX
// shape inference leaves a rank or dims unknown; dsmp-refine-shapes uses
// them to make dynamic dims static after folding.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECTS_DSMP_IR_SHAPEINFERENCE_H
#define DSMP_DIALECTS_DSMP_IR_SHAPEINFERENCE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

namespace mlir::dsmp {

/// The type of result `index` of the ONNX operator `onnxType` given its
/// operands and attributes (ONNX names; absent ones take ONNX defaults).
/// Dims the rules cannot tell are dynamic; returns null when even the rank
/// is unknown. `opName` ("dsmp.add") lets traits such as broadcasting decide.
/// `numResults`, where known, is the node's output count (Split's parts).
RankedTensorType inferResultType(MLIRContext &ctx, llvm::StringRef opName,
                                 llvm::StringRef onnxType, unsigned index,
                                 ArrayRef<Value> operands, DictionaryAttr attrs,
                                 unsigned numResults = 0);

/// The values of an integer constant operand (dsmp.constant or any other
/// constant-like op), or std::nullopt.
std::optional<SmallVector<int64_t>> getConstantInts(Value value);

/// The elements of a 0-D or 1-D integer value that are known at compile
/// time, each std::nullopt where it is not: constants, and the shape
/// arithmetic over them (Concat, Cast, Shape of static dims, Gather and
/// Slice with constant indices, and the ops that keep the elements:
/// Unsqueeze, Squeeze, Reshape, Identity). A Reshape to [0, seq, 3, 8] whose
/// shape is such a Concat then has static dims where the elements are
/// known. std::nullopt where even the count is unknown.
std::optional<SmallVector<std::optional<int64_t>>> getPartialInts(Value value);

} // namespace mlir::dsmp

#endif // DSMP_DIALECTS_DSMP_IR_SHAPEINFERENCE_H
