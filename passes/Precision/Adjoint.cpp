//===- Adjoint.cpp - Reverse-mode differentiation of a dsmp --- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Adjoint.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/GraphBuilder.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::dsmp;

Adjoint mlir::dsmp::buildAdjoint(OpBuilder &builder, ArrayRef<Operation *> ops,
                                 ArrayRef<std::pair<Value, Value>> seeds,
                                 ValueRange alsoFor) {
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
  for (auto [value, seed] : seeds)
    accumulate(value, seed, value.getLoc());

  // Values whose gradient anyone can use: results of compute ops and of
  // ops downstream of one. Graph inputs, constants and data moved from
  // them need none (a VJP still builds it; it stays unused and is erased).
  llvm::DenseSet<Value> needed(alsoFor.begin(), alsoFor.end());
  for (Operation *op : ops) {
    auto precision = dyn_cast<PrecisionOpInterface>(op);
    bool compute =
        precision && precision.getOpClass() != OpClass::data_movement;
    bool downstream = llvm::any_of(op->getOperands(),
                                   [&](Value v) { return needed.contains(v); });
    if ((compute || downstream) && !op->hasTrait<mlir::OpTrait::ConstantLike>())
      for (Value result : op->getResults())
        needed.insert(result);
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
    SmallVector<std::pair<Value, Value>> operandGrads;
    if (!vjp || failed(vjp.buildVJP(builder, resultGrads, operandGrads))) {
      adjoint.stoppedAt.push_back(op);
      continue;
    }
    // A contraction's activation operand keeps its gradient even where
    // nothing upstream needs one (a graph input): rounding it is part of
    // the op's cost (operand_energy). It is not propagated further.
    auto precision = dyn_cast<PrecisionOpInterface>(op);
    bool contraction =
        precision && (precision.getOpClass() == OpClass::matmul ||
                      precision.getOpClass() == OpClass::conv);
    llvm::erase_if(operandGrads, [&](const std::pair<Value, Value> &entry) {
      return !entry.second ||
             (!needed.contains(entry.first) &&
              !(contraction && entry.first == op->getOperand(0)));
    });
    for (auto [value, grad] : operandGrads)
      if (needed.contains(value))
        accumulate(value, grad, op->getLoc());
    adjoint.operandGrads[op] = std::move(operandGrads);
  }
  return adjoint;
}
