//===- TestAdjoint.cpp - Expose input gradients for tests ----- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Adjoint.h"
#include "test/lib/Passes.h"

#include "dialects/Dsmp/IR/DsmpOps.h"

#define DEBUG_TYPE "dsmp-test-adjoint"

namespace mlir::dsmp {
#define GEN_PASS_DEF_TESTADJOINTPASS
#include "test/lib/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

/// A value this pass differentiates: a static f32 tensor, or f64 (the VJP
/// checks difference in f64).
bool isDifferentiable(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         (tensor.getElementType().isF32() || tensor.getElementType().isF64());
}

struct TestAdjointPass final
    : mlir::dsmp::impl::TestAdjointPassBase<TestAdjointPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto graph = module.lookupSymbol<func::FuncOp>("main_graph");
    if (!graph || graph.isExternal()) {
      module.emitError("dsmp-test-adjoint: no @main_graph");
      return signalPassFailure();
    }
    Block &body = graph.getBody().front();
    Operation *ret = body.getTerminator();
    SmallVector<Operation *> forward;
    for (Operation &op : body.without_terminator())
      forward.push_back(&op);
    SmallVector<Value> inputs;
    for (BlockArgument arg : body.getArguments())
      if (isDifferentiable(arg.getType()))
        inputs.push_back(arg);

    Builder b(&getContext());
    SmallVector<std::pair<Value, Value>> seeds;
    SmallVector<DictionaryAttr> argAttrs;
    graph.getAllArgAttrs(argAttrs);
    for (auto [i, y] : llvm::enumerate(ret->getOperands())) {
      if (!isDifferentiable(y.getType()))
        continue;
      Value seed = body.addArgument(y.getType(), graph.getLoc());
      argAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
          "dsmp.name", b.getStringAttr("seed_" + std::to_string(i)))));
      seeds.push_back({y, seed});
    }
    OpBuilder builder(ret);
    Adjoint adjoint = buildAdjoint(builder, forward, seeds, inputs);
    for (Operation *op : adjoint.stoppedAt)
      op->emitWarning("dsmp-test-adjoint: no VJP here; the gradient stops");

    SmallVector<Value> results(ret->getOperands());
    SmallVector<DictionaryAttr> resultAttrs;
    graph.getAllResultAttrs(resultAttrs);
    resultAttrs.resize(results.size());
    for (auto [i, x] : llvm::enumerate(inputs)) {
      Value grad = adjoint.grads.lookup(x);
      if (!grad) {
        auto type = cast<RankedTensorType>(x.getType());
        grad = ConstantOp::create(
            builder, graph.getLoc(), type,
            DenseElementsAttr::get(
                type, builder.getFloatAttr(type.getElementType(), 0)));
      }
      results.push_back(grad);
      resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
          "dsmp.name", b.getStringAttr("grad_" + std::to_string(i)))));
    }
    unsigned weights = 0;
    for (Operation *op : forward) {
      if (!isa<MatMulOp, GemmOp, ConvOp>(op) || op->getNumOperands() < 2)
        continue;
      Operation *def = op->getOperand(1).getDefiningOp();
      if (!def || !def->hasTrait<mlir::OpTrait::ConstantLike>())
        continue;
      Value grad = adjoint.grads.lookup(op->getResult(0));
      Value dW = grad ? weightGradient(builder, op, grad) : Value();
      if (!dW) {
        op->emitWarning("dsmp-test-adjoint: no weight gradient here");
        continue;
      }
      results.push_back(dW);
      resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
          "dsmp.name", b.getStringAttr("wgrad_" + std::to_string(weights++)))));
    }
    ret->setOperands(results);
    SmallVector<Type> resultTypes;
    for (Value v : results)
      resultTypes.push_back(v.getType());
    graph.setFunctionType(
        FunctionType::get(&getContext(), body.getArgumentTypes(), resultTypes));
    graph.setAllArgAttrs(argAttrs);
    graph.setAllResultAttrs(resultAttrs);
  }
};
} // namespace
