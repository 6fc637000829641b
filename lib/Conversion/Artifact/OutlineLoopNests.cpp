//===- OutlineLoopNests.cpp - One function per top-level loop nest -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_OUTLINELOOPNESTSPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
struct OutlineLoopNestsPass final
    : mlir::dsmp::impl::OutlineLoopNestsPassBase<OutlineLoopNestsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto graph = module.lookupSymbol<func::FuncOp>("main_graph");
    if (!graph || graph.isExternal())
      return;
    SmallVector<Operation *> nests;
    for (Block &block : graph.getBody())
      for (Operation &op : block)
        if (isa<scf::ForOp, scf::ParallelOp>(op) && op.getNumResults() == 0)
          nests.push_back(&op);

    MLIRContext *context = &getContext();
    SymbolTable symbols(module);
    unsigned counter = 0;
    for (Operation *nest : nests) {
      // Values from outside: constants are cloned, the rest are arguments.
      llvm::SetVector<Value> captured;
      getUsedValuesDefinedAbove(nest->getRegions(), captured);
      for (Value operand : nest->getOperands())
        captured.insert(operand);
      SmallVector<Value> arguments;
      SmallVector<Operation *> constants;
      for (Value v : captured) {
        Operation *def = v.getDefiningOp();
        if (def && def->hasTrait<OpTrait::ConstantLike>() &&
            def->getNumOperands() == 0)
          constants.push_back(def);
        else
          arguments.push_back(v);
      }

      OpBuilder b(graph);
      auto type =
          FunctionType::get(context, ValueRange(arguments).getTypes(), {});
      auto outlined = func::FuncOp::create(
          b, nest->getLoc(), "main_graph_loop" + std::to_string(counter++),
          type);
      outlined.setPrivate();
      // Kept out of line through LLVM (the inliner would otherwise rebuild
      // the one big function) and internal to the artifact.
      outlined->setAttr("passthrough",
                        b.getArrayAttr({b.getStringAttr("noinline")}));
      outlined->setAttr("llvm.linkage", LLVM::LinkageAttr::get(
                                            context, LLVM::Linkage::Internal));
      symbols.insert(outlined);
      Block *body = outlined.addEntryBlock();
      OpBuilder inner = OpBuilder::atBlockBegin(body);
      IRMapping mapping;
      for (auto [value, arg] : llvm::zip(arguments, body->getArguments()))
        mapping.map(value, arg);
      for (Operation *constant : constants)
        inner.clone(*constant, mapping);
      inner.clone(*nest, mapping);
      func::ReturnOp::create(inner, nest->getLoc());

      OpBuilder call(nest);
      func::CallOp::create(call, nest->getLoc(), outlined, arguments);
      nest->erase();
    }
  }
};
} // namespace
