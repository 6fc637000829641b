//===- WeightsToArguments.cpp - Weights as arguments ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An AOT artifact keeps its weights in a file that the runtime maps; the
// generated code reads them through arguments instead of embedding them.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_WEIGHTSTOARGUMENTSPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {
struct WeightsToArgumentsPass final
    : mlir::dsmp::impl::WeightsToArgumentsPassBase<WeightsToArgumentsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    MLIRContext *context = &getContext();
    auto readOnly = [&](unsigned index) {
      func.setArgAttr(index,
                      bufferization::BufferizationDialect::kWritableAttrName,
                      BoolAttr::get(context, false));
    };
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      readOnly(i);

    // One argument per distinct (offset, type): constants that the
    // canonicalizer did not merge still share it.
    llvm::DenseMap<std::pair<uint64_t, Type>, BlockArgument> arguments;
    SmallVector<ConstantOp> external;
    func.walk([&](ConstantOp op) {
      if (isa<ExternalAttr>(op.getValue()))
        external.push_back(op);
    });
    for (ConstantOp op : external) {
      auto attr = cast<ExternalAttr>(op.getValue());
      auto key = std::make_pair(attr.getOffset(), op.getType());
      BlockArgument &arg = arguments[key];
      if (!arg) {
        unsigned index = func.getNumArguments();
        if (failed(func.insertArgument(index, op.getType(), {}, op.getLoc())))
          return signalPassFailure();
        arg = func.getArgument(index);
        readOnly(index);
        func.setArgAttr(
            index, "dsmp.weight_offset",
            IntegerAttr::get(IntegerType::get(context, 64), attr.getOffset()));
        ++numWeights;
      }
      op.getResult().replaceAllUsesWith(arg);
      op.erase();
    }
  }
};
} // namespace
