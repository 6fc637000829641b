//===- ImportUtils.h - Shared pieces of the ONNX importer -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_IMPORT_ONNX_IMPORTUTILS_H
#define DSMP_LIB_IMPORT_ONNX_IMPORTUTILS_H

#include "dialects/Dsmp/IR/OnnxTypes.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

namespace onnx {
class OpSchema;
} // namespace onnx

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::dsmp::onnx_import {

/// Where a problem is: the node (if any) and the graph it is in.
struct Where {
  std::string nodeName;
  std::string opType;
};

/// Builds the importer's one-line error: "FILE: node 'N' (OP, opset K): MSG".
llvm::Error makeError(llvm::StringRef file, const Where &where, int64_t opset,
                      const llvm::Twine &message);

/// Checks a tensor's dims, dtype and data size without reading external
/// data, and returns its element count. `modelDir` anchors external data.
llvm::Expected<int64_t> checkTensor(const onnx::TensorProto &tensor,
                                    llvm::StringRef modelDir,
                                    uint64_t maxBytes);

/// The tensor's elements as little-endian bytes in row-major order (bool as
/// one byte per element). Reads external data from inside `modelDir` only.
llvm::Expected<std::vector<char>>
readTensorBytes(const onnx::TensorProto &tensor, llvm::StringRef modelDir,
                uint64_t maxBytes);

/// The bytes readTensorBytes would return, as a view of the tensor's inline
/// raw_data (checked the same way) where it has one, so that large weights
/// become attributes without a staging copy; std::nullopt where they live
/// elsewhere (typed fields, external data).
llvm::Expected<std::optional<llvm::ArrayRef<char>>>
viewRawTensorBytes(const onnx::TensorProto &tensor, llvm::StringRef modelDir,
                   uint64_t maxBytes);

/// Resolves an external-data location, refusing anything outside `modelDir`
/// (absolute paths, `..`, symlinks that lead out).
llvm::Expected<std::string> resolveExternalLocation(llvm::StringRef location,
                                                    llvm::StringRef modelDir);

/// Builds an inline elements attribute from little-endian bytes.
mlir::DenseElementsAttr makeDenseAttr(mlir::RankedTensorType type,
                                      llvm::ArrayRef<char> bytes);

/// Checks each attribute of `node`: it declares a type, holds its value in
/// that type's field and no other, and has the type ONNX's schema gives it
/// for the node's op (the newest schema up to `opset`). Errors name the
/// node, the attribute, the expected and the found type.
llvm::Error checkNodeAttributes(const onnx::NodeProto &node,
                                llvm::StringRef file, const Where &where,
                                int64_t opset);

/// The schema attribute types are checked against: `opType`'s newest
/// version up to `opset` (up to 17, the newest ONNX 1.12 knows); null for
/// an op ONNX does not have.
const onnx::OpSchema *schemaForAttributes(llvm::StringRef opType,
                                          int64_t opset);

/// The one-line reason for an op type dsmp does not import, with the form
/// to export instead where there is one, or the nearest supported op type.
std::string unsupportedOpMessage(llvm::StringRef opType, int64_t opset);

/// Sorts `graph`'s nodes topologically in place. `outerNames` are the names
/// visible from enclosing graphs. Fails on a cycle or a missing input,
/// recursing into subgraphs.
llvm::Error sortGraph(onnx::GraphProto &graph,
                      const std::vector<std::string> &outerNames,
                      llvm::StringRef file, int64_t opset);

} // namespace mlir::dsmp::onnx_import

#endif // DSMP_LIB_IMPORT_ONNX_IMPORTUTILS_H
