//===- IndexedForms.h - ONNX ops spelled as gathers and scatters -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Two ONNX ops that move elements by computed positions, imported as the
// gather and scatter that do it, so that every analysis, lowering and
// export of those serves them:
//
// - MaxUnpool(X, I[, output_shape]) puts each element of X at its MaxPool
//   index I (X's tensor flattened whole) in a zero tensor: ConstantOfShape,
//   then ScatterElements along the flattened tensor.
// - ReverseSequence(input, sequence_lens) reverses the first
//   sequence_lens[b] steps of each batch entry b along the time axis: a
//   GatherElements along it with index len - 1 - t where t < len, else t.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_IMPORT_ONNX_INDEXEDFORMS_H
#define DSMP_LIB_IMPORT_ONNX_INDEXEDFORMS_H

#include "dialects/Dsmp/IR/GraphBuilder.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

namespace mlir::dsmp::onnx_import {

/// Whether `node` is one of the ops built here (default domain).
bool isIndexedFormOp(const onnx::NodeProto &node);

/// `node` (MaxUnpool or ReverseSequence) on `inputs` (null for an omitted
/// optional one), built with `g`. Errors say what is wrong, without the
/// node's name (the caller adds it).
llvm::Expected<Value> importIndexedForm(const onnx::NodeProto &node,
                                        llvm::ArrayRef<Value> inputs,
                                        GraphBuilder &g);

} // namespace mlir::dsmp::onnx_import

#endif // DSMP_LIB_IMPORT_ONNX_INDEXEDFORMS_H
