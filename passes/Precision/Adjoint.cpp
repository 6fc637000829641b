//===- Adjoint.cpp - Reverse-mode differentiation of a dsmp graph -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Adjoint.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/GraphBuilder.h"

using namespace mlir;
using namespace mlir::dsmp;

Adjoint mlir::dsmp::buildAdjoint(OpBuilder &builder, ArrayRef<Operation *> ops,
                                 ArrayRef<std::pair<Value, Value>> seeds) {
  Adjoint adjoint;
  auto accumulate = [&](Value value, Value grad, Location loc) {
    Value &slot = adjoint.grads[value];
    if (!slot) {
      slot = grad;
      return;
    }
    GraphBuilder g(builder, loc);
    slot = g.add(slot, grad);
  };
  for (auto [value, seed] : seeds) {
    accumulate(value, seed, value.getLoc());
  }

  for (Operation *op : llvm::reverse(ops)) {
    SmallVector<Value> resultGrads;
    bool any = false;
    for (Value result : op->getResults()) {
      Value grad = adjoint.grads.lookup(result);
      resultGrads.push_back(grad);
      any |= static_cast<bool>(grad);
    }
    if (!any)
      continue;
    auto vjp = dyn_cast<VJPOpInterface>(op);
    SmallVector<Value> operandGrads;
    if (!vjp || failed(vjp.buildVJP(builder, resultGrads, operandGrads))) {
      adjoint.stoppedAt.push_back(op);
      continue;
    }
    for (auto [operand, grad] : llvm::zip(op->getOperands(), operandGrads))
      if (grad)
        accumulate(operand, grad, op->getLoc());
    adjoint.operandGrads[op] = std::move(operandGrads);
  }
  return adjoint;
}
