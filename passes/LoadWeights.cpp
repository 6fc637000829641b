//===- LoadWeights.cpp - Load #dsmp.external weights into memory --*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dsmp/Support/WeightFile.h"
#include "passes/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/Path.h"

#define DEBUG_TYPE "dsmp-load-weights"

namespace mlir::dsmp {
#define GEN_PASS_DEF_LOADWEIGHTSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {
struct LoadWeightsPass final
    : mlir::dsmp::impl::LoadWeightsPassBase<LoadWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto name = module->getAttrOfType<StringAttr>("dsmp.weights");
    if (!name)
      return; // Nothing refers to a weight file.
    llvm::SmallString<256> path(weightsDir);
    llvm::sys::path::append(path, name.getValue());
    auto reader = ::mlir::dsmp::WeightFileReader::open(path);
    if (!reader) {
      module.emitError() << llvm::toString(reader.takeError());
      return signalPassFailure();
    }
    WalkResult result = module.walk([&](ConstantOp op) {
      auto external = dyn_cast<ExternalAttr>(op.getValue());
      if (!external)
        return WalkResult::advance();
      auto bytes = reader->read(external.getOffset(), external.getSize());
      if (!bytes) {
        op.emitOpError() << llvm::toString(bytes.takeError());
        return WalkResult::interrupt();
      }
      auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
          *bytes, ::mlir::dsmp::kWeightAlignment);
      auto type = cast<ShapedType>(op.getType());
      op.setValueAttr(DenseResourceElementsAttr::get(
          type, "w" + std::to_string(external.getOffset()), std::move(blob)));
      ++numLoaded;
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    module->removeAttr("dsmp.weights");
  }
};
} // namespace
