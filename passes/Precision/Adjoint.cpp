//===- Adjoint.cpp - Reverse-mode differentiation of a dsmp --- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Adjoint.h"

#include "dialects/Dsmp/IR/ConvGradient.h"
#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/GraphBuilder.h"
#include "passes/Precision/Formats.h"
#include "passes/Precision/ForwardEstimate.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"

#include <numeric>

using namespace mlir;
using namespace mlir::dsmp;

namespace {
/// Records which forward op the ops being inserted were built for.
struct RecordOrigin final : OpBuilder::Listener {
  RecordOrigin(llvm::DenseMap<Operation *, Operation *> &origin,
               OpBuilder::Listener *next)
      : origin(origin), next(next) {}
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    if (current)
      origin[op] = current;
    if (next)
      next->notifyOperationInserted(op, previous);
  }
  void notifyBlockInserted(Block *block, Region *previous,
                           Region::iterator previousIt) override {
    if (next)
      next->notifyBlockInserted(block, previous, previousIt);
  }
  llvm::DenseMap<Operation *, Operation *> &origin;
  OpBuilder::Listener *next;
  Operation *current = nullptr;
};
} // namespace

bool mlir::dsmp::keepsOperandGradient(Operation *op) {
  auto precision = dyn_cast<PrecisionOpInterface>(op);
  if (!precision || op->getNumOperands() == 0)
    return false;
  OpClass cls = precision.getOpClass();
  if (cls == OpClass::matmul || cls == OpClass::conv)
    return true;
  if (cls == OpClass::data_movement ||
      !isF32Tensor(op->getOperand(0).getType(), /*requireStaticShape=*/true))
    return false;
  // The input itself or data moved from it (a Reshape, a Transpose).
  Value v = op->getOperand(0);
  while (Operation *def = v.getDefiningOp()) {
    auto moves = dyn_cast<PrecisionOpInterface>(def);
    if (!moves || moves.getOpClass() != OpClass::data_movement ||
        def->getNumOperands() == 0 || isa<CastOp>(def) ||
        def->hasTrait<mlir::OpTrait::ConstantLike>())
      return false;
    v = def->getOperand(0);
  }
  return isa<BlockArgument>(v);
}

Adjoint mlir::dsmp::buildAdjoint(OpBuilder &builder, ArrayRef<Operation *> ops,
                                 ArrayRef<std::pair<Value, Value>> seeds,
                                 ValueRange alsoFor) {
  Adjoint adjoint;
  RecordOrigin recorder(adjoint.origin, builder.getListener());
  builder.setListener(&recorder);
  auto restore =
      llvm::make_scope_exit([&] { builder.setListener(recorder.next); });
  auto accumulate = [&](Value value, Value grad, Location loc) {
    Value &slot = adjoint.grads[value];
    if (!slot) {
      slot = grad;
      return;
    }
    GraphBuilder g(builder, loc);
    slot = g.add(slot, grad);
    if (Operation *sum = slot.getDefiningOp())
      sum->setAttr(kGradientSumAttr, builder.getUnitAttr());
  };
  for (auto [value, seed] : seeds)
    accumulate(value, seed, value.getLoc());

  // Values whose gradient anyone can use: results of compute ops, of data
  // movement that reads a constant table (a Gather from an embedding: the
  // table may be stored in 16 bits, dsmp-assign-precision's weight_storage)
  // and of ops downstream of one. Graph inputs, other constants and data
  // moved from them need none (a VJP still builds it; it stays unused and
  // is erased).
  llvm::DenseSet<Value> needed(alsoFor.begin(), alsoFor.end());
  auto isFloatConstant = [](Value v) {
    Operation *def = v.getDefiningOp();
    return def && def->hasTrait<mlir::OpTrait::ConstantLike>() &&
           isF32Tensor(v.getType());
  };
  for (Operation *op : ops) {
    auto precision = dyn_cast<PrecisionOpInterface>(op);
    bool compute =
        precision && precision.getOpClass() != OpClass::data_movement;
    bool readsTable = precision && !compute &&
                      llvm::any_of(op->getOperands(), isFloatConstant);
    bool downstream = llvm::any_of(op->getOperands(),
                                   [&](Value v) { return needed.contains(v); });
    if ((compute || readsTable || downstream) &&
        !op->hasTrait<mlir::OpTrait::ConstantLike>())
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
    recorder.current = op;
    bool keepsOperand = keepsOperandGradient(op);
    // No operand takes a gradient (a Gather from a table with computed
    // indices, a OneHot): nothing to propagate, and nothing stops here.
    if (!keepsOperand && op->getNumRegions() == 0 &&
        llvm::none_of(op->getOperands(),
                      [&](Value v) { return needed.contains(v); }))
      continue;
    auto vjp = dyn_cast<VJPOpInterface>(op);
    SmallVector<std::pair<Value, Value>> operandGrads;
    if (!vjp || failed(vjp.buildVJP(builder, resultGrads, operandGrads))) {
      // (what a failed model built stays unused and is erased)
      operandGrads.clear();
      if (failed(forwardEstimateVJP(builder, op, resultGrads, operandGrads))) {
        adjoint.stoppedAt.push_back(op);
        continue;
      }
      adjoint.estimatedAt.push_back(op);
    }
    // The first operand keeps its gradient even where nothing upstream
    // needs one (a graph input): rounding it is part of the op's cost
    // (operand_energy). It is not propagated further.
    llvm::erase_if(operandGrads, [&](const std::pair<Value, Value> &entry) {
      return !entry.second ||
             (!needed.contains(entry.first) &&
              !(keepsOperand && entry.first == op->getOperand(0)));
    });
    for (auto [value, grad] : operandGrads)
      if (needed.contains(value))
        accumulate(value, grad, op->getLoc());
    adjoint.operandGrads[op] = std::move(operandGrads);
  }
  return adjoint;
}

Value mlir::dsmp::weightGradient(OpBuilder &builder, Operation *op,
                                 Value resultGrad) {
  GraphBuilder g(builder, op->getLoc());
  Value A = op->getOperand(0), B = op->getOperand(1);
  auto aType = dyn_cast<RankedTensorType>(A.getType());
  auto bType = dyn_cast<RankedTensorType>(B.getType());
  if (!aType || !bType || !aType.hasStaticShape() || !bType.hasStaticShape())
    return {};
  if (isa<ConvOp>(op))
    return convFilterGradient(g, op, resultGrad);
  if (isa<GemmOp>(op)) {
    float alpha = 1.0f;
    if (auto a = op->getAttrOfType<FloatAttr>("alpha"))
      alpha = a.getValueAsDouble();
    auto flag = [&](StringRef name) {
      auto a = op->getAttrOfType<IntegerAttr>(name);
      return a ? a.getInt() : 0;
    };
    // dB' = alpha op(A)^T G, transposed back when B was.
    Value dB =
        g.value("dsmp.gemm", {A, resultGrad, g.none()},
                {g.f32("alpha", alpha), g.i64("transA", 1 - flag("transA"))});
    return dB && flag("transB") ? g.transpose(dB, {1, 0}) : dB;
  }
  if (isa<MatMulOp>(op)) {
    // A [..., P, K] x B [K, N]: dB = sum over A's rows of A^T G.
    if (bType.getRank() != 2 || aType.getRank() < 1)
      return {};
    int64_t k = aType.getShape().back();
    int64_t rows = aType.getNumElements() / std::max<int64_t>(k, 1);
    Value a2 = g.reshape(A, {rows, k});
    Value g2 = g.reshape(resultGrad, {rows, bType.getDimSize(1)});
    return g.value("dsmp.gemm", {a2, g2, g.none()}, {g.i64("transA", 1)});
  }
  return {};
}

std::pair<Value, Value>
mlir::dsmp::biasGradient(OpBuilder &builder, Operation *op, Value resultGrad) {
  if (!isa<GemmOp, ConvOp>(op) || op->getNumOperands() < 3)
    return {};
  Value bias = op->getOperand(2);
  Operation *def = bias.getDefiningOp();
  auto biasType = dyn_cast<RankedTensorType>(bias.getType());
  auto gradType = dyn_cast<RankedTensorType>(resultGrad.getType());
  if (!def || !def->hasTrait<mlir::OpTrait::ConstantLike>() ||
      !isF32Tensor(bias.getType(), /*requireStaticShape=*/true) || !gradType ||
      !gradType.hasStaticShape())
    return {};
  GraphBuilder g(builder, op->getLoc());
  if (isa<ConvOp>(op)) {
    // B [M] is added along the channel dim of [N, M, spatial...].
    if (biasType.getRank() != 1 || gradType.getRank() < 2)
      return {};
    SmallVector<int64_t> dims(gradType.getRank(), 1);
    dims[1] = biasType.getDimSize(0);
    Value summed = g.unbroadcast(
        resultGrad, RankedTensorType::get(dims, gradType.getElementType()));
    return {bias, summed ? g.reshape(summed, biasType.getShape()) : Value()};
  }
  float beta = 1.0f;
  if (auto a = op->getAttrOfType<FloatAttr>("beta"))
    beta = a.getValueAsDouble();
  Value summed = g.unbroadcast(resultGrad, biasType);
  if (!summed)
    return {};
  return {bias, beta == 1.0f
                    ? summed
                    : g.mul(summed, g.scalar(beta, g.builder().getF32Type()))};
}
