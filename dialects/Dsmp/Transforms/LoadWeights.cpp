//===- LoadWeights.cpp - Load #dsmp.external weights into -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/Transforms/Passes.h"
#include "dsmp/Support/WeightFile.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/Path.h"

#define DEBUG_TYPE "dsmp-load-weights"

namespace mlir::dsmp {
#define GEN_PASS_DEF_LOADWEIGHTSPASS
#include "dialects/Dsmp/Transforms/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

llvm::Error mlir::dsmp::loadExternalWeights(ModuleOp module,
                                            llvm::StringRef path) {
  bool any = false;
  module.walk([&](ConstantOp op) { any |= isa<ExternalAttr>(op.getValue()); });
  if (!any)
    return llvm::Error::success();
  auto reader = ::mlir::dsmp::WeightFileReader::open(path);
  if (!reader)
    return reader.takeError();
  llvm::Error failure = llvm::Error::success();
  module.walk([&](ConstantOp op) {
    auto external = dyn_cast<ExternalAttr>(op.getValue());
    if (!external)
      return WalkResult::advance();
    auto bytes = reader->read(external.getOffset(), external.getSize());
    if (!bytes) {
      failure = bytes.takeError();
      return WalkResult::interrupt();
    }
    auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        *bytes, ::mlir::dsmp::kWeightAlignment);
    auto type = cast<ShapedType>(op.getType());
    op.setValueAttr(DenseResourceElementsAttr::get(
        type, "w" + std::to_string(external.getOffset()), std::move(blob)));
    return WalkResult::advance();
  });
  if (failure)
    return failure;
  module->removeAttr("dsmp.weights");
  return llvm::Error::success();
}

namespace {
/// The folder of the file `module` was parsed from (its location), where
/// dsmp-translate puts the weight file; "." when it names none.
std::string folderOfSource(ModuleOp module) {
  if (auto file = dyn_cast<FileLineColLoc>(module.getLoc())) {
    StringRef parent = llvm::sys::path::parent_path(file.getFilename());
    if (!parent.empty())
      return parent.str();
  }
  return ".";
}

struct LoadWeightsPass final
    : mlir::dsmp::impl::LoadWeightsPassBase<LoadWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto name = module->getAttrOfType<StringAttr>("dsmp.weights");
    if (!name)
      return; // Nothing refers to a weight file.
    llvm::SmallString<256> path(weightsDir.empty() ? folderOfSource(module)
                                                   : weightsDir.getValue());
    llvm::sys::path::append(path, name.getValue());
    int64_t before = 0;
    module.walk(
        [&](ConstantOp op) { before += isa<ExternalAttr>(op.getValue()); });
    if (llvm::Error err = loadExternalWeights(module, path)) {
      module.emitError() << llvm::toString(std::move(err));
      return signalPassFailure();
    }
    numLoaded += before;
  }
};
} // namespace
