//===- OnnxOpRegistry.h - ONNX operator <-> dsmp op table -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The table that the ONNX importer and exporter share. It is built from the
// op definitions themselves (every op with the OnnxOp trait), so ODS stays
// the single source of truth for names and arities.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECTS_DSMP_IR_ONNXOPREGISTRY_H
#define DSMP_DIALECTS_DSMP_IR_ONNXOPREGISTRY_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::dsmp {

struct OnnxOpInfo {
  /// ONNX operator type, e.g. "BatchNormalization".
  std::string onnxType;
  /// Full dsmp op name, e.g. "dsmp.batch_normalization".
  std::string opName;
  /// Fixed operand count, or the minimum when `variadicOperands`.
  unsigned numOperands = 0;
  bool variadicOperands = false;
  /// Fixed result count, or the minimum when `variadicResults`.
  unsigned numResults = 0;
  bool variadicResults = false;
};

/// Every op that has an ONNX counterpart, sorted by ONNX type.
llvm::ArrayRef<OnnxOpInfo> getOnnxOps();
/// The entry for an ONNX operator type, or nullptr.
const OnnxOpInfo *lookupOnnxType(llvm::StringRef onnxType);
/// The entry for a dsmp op name ("dsmp.conv"), or nullptr.
const OnnxOpInfo *lookupDsmpOp(llvm::StringRef opName);

/// Whether a dsmp op attribute is dsmp's own (the accumulation format
/// `acc`), never read from an ONNX node.
bool isDsmpOnlyAttribute(llvm::StringRef name);

/// The ONNX node name the importer gave an op's location (a NameLoc, or
/// the first one in a FusedLoc), or "" when it has none.
std::string onnxNodeName(Location loc);

/// The location the importer gives an initializer's constant: its name, over
/// a marker that tells it from a Constant node's value (training lifts only
/// initializers: a model's parameters).
Location onnxInitializerLoc(MLIRContext *context, llvm::StringRef name);
bool isOnnxInitializer(Location loc);

/// A diagnostic's message, prefixed with "node 'NAME': " where its
/// location names an ONNX node (a verifier message alone does not say
/// which of thousands of ops failed).
std::string describeDiagnostic(const Diagnostic &diag);

} // namespace mlir::dsmp

#endif // DSMP_DIALECTS_DSMP_IR_ONNXOPREGISTRY_H
