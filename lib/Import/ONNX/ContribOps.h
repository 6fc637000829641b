//===- ContribOps.h - onnxruntime's contrib ops as dsmp ops ---- -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_IMPORT_ONNX_CONTRIBOPS_H
#define DSMP_LIB_IMPORT_ONNX_CONTRIBOPS_H

#include "dialects/Dsmp/IR/GraphBuilder.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

namespace mlir::dsmp::onnx_import {

/// Whether `node` is one of onnxruntime's contrib ops that dsmp spells with
/// its own ops: the fusions onnxruntime's transformer optimizer writes
/// (com.microsoft Gelu, FastGelu, BiasGelu, QuickGelu, BiasAdd,
/// FusedMatMul, SkipLayerNormalization, SkipSimplifiedLayerNormalization,
/// SimplifiedLayerNormalization, the last also in the default domain;
/// Attention without past state, EmbedLayerNormalization).
bool isSpelledContribOp(const onnx::NodeProto &node);

/// The reason a com.microsoft op is not imported, naming the ones that are.
std::string unsupportedContribOpMessage(llvm::StringRef opType);

/// Builds `node`'s outputs from `inputs` (null for an absent optional
/// input) with `g`: one value per requested output (`node.output(i)`
/// non-empty), null for the others. Errors say what is wrong with the node,
/// without its name (the caller adds it).
llvm::Expected<llvm::SmallVector<Value>>
importContribOp(const onnx::NodeProto &node, llvm::ArrayRef<Value> inputs,
                GraphBuilder &g);

} // namespace mlir::dsmp::onnx_import

#endif // DSMP_LIB_IMPORT_ONNX_CONTRIBOPS_H
