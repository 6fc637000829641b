//===- ONNXExporter.h - dsmp dialect -> ONNX model ----------------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_EXPORT_ONNXEXPORTER_H
#define DSMP_EXPORT_ONNXEXPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mlir::dsmp {

struct ONNXExportOptions {
  /// Folder that the module's `dsmp.weights` file name is relative to.
  std::string weightsDir = ".";
  /// Default-domain opset of the exported model (dsmp ops follow its forms).
  int64_t opset = 21;
};

/// Serializes the module's `@main_graph` as an ONNX ModelProto. Casts become
/// Cast nodes, constants become initializers (or Constant nodes inside
/// subgraphs) and tensors keep their element types, low precision included.
llvm::Expected<std::string>
exportONNXModel(mlir::ModuleOp module, const ONNXExportOptions &options = {});

} // namespace mlir::dsmp

#endif // DSMP_EXPORT_ONNXEXPORTER_H
