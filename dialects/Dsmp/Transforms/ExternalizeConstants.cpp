//===- ExternalizeConstants.cpp - Weights to the weight file ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An artifact maps its weights from weights.bin instead of embedding them
// in code: every large float constant becomes a #dsmp.external range of
// that file.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/Transforms/Passes.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#define DEBUG_TYPE "dsmp-externalize-constants"

namespace mlir::dsmp {
#define GEN_PASS_DEF_EXTERNALIZECONSTANTSPASS
#include "dialects/Dsmp/Transforms/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

/// A constant's value as row-major little-endian bytes, or none when it is
/// not held as such a buffer (then it stays inline).
std::optional<ArrayRef<char>> rawBytes(ConstantOp op) {
  auto type = dyn_cast<RankedTensorType>(op.getType());
  if (!type)
    return std::nullopt;
  ArrayRef<char> bytes;
  Attribute value = op.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    bytes = dense.getRawData();
  else if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      bytes = blob->getData();
  }
  uint64_t expected =
      type.getNumElements() * (type.getElementTypeBitWidth() / 8);
  if (bytes.size() != expected)
    return std::nullopt;
  return bytes;
}

struct ExternalizeConstantsPass final
    : mlir::dsmp::impl::ExternalizeConstantsPassBase<ExternalizeConstantsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (weightsFile.empty()) {
      module.emitError("dsmp-externalize-constants needs weights-file=PATH");
      return signalPassFailure();
    }
    // Float tensors only: integer constants feed shape folding, which
    // needs their values in the IR.
    SmallVector<ConstantOp> constants;
    module.walk([&](ConstantOp op) {
      auto type = dyn_cast<RankedTensorType>(op.getType());
      auto elements = dyn_cast<ElementsAttr>(op.getValue());
      if (!type || !elements || !type.hasStaticShape() ||
          !isa<FloatType>(type.getElementType()) ||
          type.getElementTypeBitWidth() % 8 != 0)
        return;
      if (auto dense = dyn_cast<DenseElementsAttr>(elements);
          dense && dense.isSplat())
        return;
      if (type.getNumElements() * (type.getElementTypeBitWidth() / 8) >=
          minBytes)
        constants.push_back(op);
    });

    // The file the module's external constants point into grows; a
    // module without one starts a new file.
    auto named = module->getAttrOfType<StringAttr>("dsmp.weights");
    bool append = named && llvm::sys::path::filename(weightsFile) ==
                               llvm::sys::path::filename(named.getValue());
    if (named && !append) {
      module.emitError() << "the module's weights are in '" << named.getValue()
                         << "', not '" << weightsFile
                         << "'; run dsmp-load-weights first";
      return signalPassFailure();
    }
    uint64_t size = 0;
    if (append)
      (void)llvm::sys::fs::file_size(weightsFile, size);
    std::error_code ec;
    llvm::raw_fd_ostream out(weightsFile, ec,
                             append ? llvm::sys::fs::OF_Append
                                    : llvm::sys::fs::OF_None);
    if (ec) {
      module.emitError() << "cannot write '" << weightsFile
                         << "': " << ec.message();
      return signalPassFailure();
    }
    for (ConstantOp op : constants) {
      std::optional<ArrayRef<char>> bytes = rawBytes(op);
      if (!bytes)
        continue;
      while (size % kAlignment) {
        out << '\0';
        ++size;
      }
      out.write(bytes->data(), bytes->size());
      op.setValueAttr(ExternalAttr::get(module.getContext(), size,
                                        bytes->size(),
                                        cast<RankedTensorType>(op.getType())));
      size += bytes->size();
      ++numExternalized;
    }
    out.close();
    if (out.has_error()) {
      out.clear_error();
      module.emitError() << "cannot write '" << weightsFile << "'";
      return signalPassFailure();
    }
    module->setAttr("dsmp.weights",
                    StringAttr::get(module.getContext(),
                                    llvm::sys::path::filename(weightsFile)));
  }

  static constexpr uint64_t kAlignment = 64;
};

} // namespace
