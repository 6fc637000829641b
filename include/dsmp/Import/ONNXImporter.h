//===- ONNXImporter.h - ONNX model -> dsmp dialect --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_IMPORT_ONNXIMPORTER_H
#define DSMP_IMPORT_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::dsmp {

struct ONNXImportOptions {
  /// Where to write the weight file for large constants. Empty: keep every
  /// constant inline in the IR.
  std::string weightsPath;
  /// The name the module records for the weight file (usually relative to
  /// the .mlir file). Defaults to the file name of `weightsPath`.
  std::string weightsName;
  /// Constants with more elements than this go to the weight file.
  int64_t inlineElementLimit = 16;
  /// Upper bound on the bytes of any one tensor the model declares.
  uint64_t maxTensorBytes = uint64_t(4) << 30;
  /// Receives what the import works around (a graph output declared with a
  /// shape its node does not compute); ignored where null.
  std::vector<std::string> *warnings = nullptr;
};

/// Imports the ONNX model at `path` into a module holding one `func.func`
/// (`@main_graph`) of dsmp ops. Fails with a one-line message that names the
/// file, and where one is involved, the node, its op type and the opset.
/// Nothing is written to `weightsPath` unless the import succeeds.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importONNXModel(llvm::StringRef path, mlir::MLIRContext &context,
                const ONNXImportOptions &options = {});

/// The same for a model already in memory; `path` only names it in
/// messages and anchors external data.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importONNXModelFromBuffer(llvm::StringRef bytes, llvm::StringRef path,
                          mlir::MLIRContext &context,
                          const ONNXImportOptions &options = {});

/// The default-domain opsets the importer supports. Older models import
/// when every op they use is unchanged between their opset and kMinOpset.
inline constexpr int64_t kMinOpset = 9;
inline constexpr int64_t kMaxOpset = 23;

} // namespace mlir::dsmp

#endif // DSMP_IMPORT_ONNXIMPORTER_H
