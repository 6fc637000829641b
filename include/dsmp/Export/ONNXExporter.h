//===- ONNXExporter.h - dsmp dialect -> ONNX model --------------*- C++ -*-===//
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
#include <vector>

namespace mlir::dsmp {

/// A node that the export computes in f32 because the ONNX operator at the
/// export opset has no form for its 16-bit type (Conv has no bfloat16
/// before opset 22): Casts around it keep dsmp's rounding (16-bit operands,
/// an f32 computation, the result rounded once to the 16-bit type).
struct WidenedNode {
  std::string node;   // the ONNX node name in the export
  std::string opType; // e.g. "Conv"
  std::string type;   // the type ONNX lacks, e.g. "tensor(bfloat16)"
};

struct ONNXExportOptions {
  /// Folder that the module's `dsmp.weights` file name is relative to.
  std::string weightsDir = ".";
  /// Default-domain opset of the exported model (dsmp ops follow its forms).
  int64_t opset = 21;
  /// Where to list the nodes widened to f32 (none are listed when null).
  std::vector<WidenedNode> *widened = nullptr;
};

/// Serializes the module's `@main_graph` as an ONNX ModelProto. Casts become
/// Cast nodes, constants become initializers (or Constant nodes inside
/// subgraphs) and tensors keep their element types, low precision included,
/// except where ONNX's schema for a node has no such type (WidenedNode).
llvm::Expected<std::string>
exportONNXModel(mlir::ModuleOp module, const ONNXExportOptions &options = {});

} // namespace mlir::dsmp

#endif // DSMP_EXPORT_ONNXEXPORTER_H
