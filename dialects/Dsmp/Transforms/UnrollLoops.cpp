//===- UnrollLoops.cpp - Unroll Loops of a known trip count --- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ONNX Loop(M, cond, v...) runs its body while i < M and cond holds; the
// body yields the next cond, the next v... and one scan value per scan
// output, stacked along a new leading dim. Where M and cond are known once
// shapes are (tf2onnx's Keras GRU/SimpleRNN: M = the sequence length, cond
// = i < length), the body is cloned once per iteration into the enclosing
// block, the iteration number a constant, so that each copy's shape and
// condition arithmetic folds; the condition each copy yields must fold to
// a constant. The scan outputs become a Concat of the per-iteration values.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/GraphBuilder.h"
#include "dialects/Dsmp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "dsmp-unroll-loops"

namespace mlir::dsmp {
#define GEN_PASS_DEF_UNROLLLOOPSPASS
#include "dialects/Dsmp/Transforms/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

/// The one element of a constant integer or bool operand, if it is one.
std::optional<int64_t> constantScalar(Value v) {
  DenseElementsAttr elements;
  if (!matchPattern(v, m_Constant(&elements)) ||
      elements.getNumElements() != 1 ||
      !isa<IntegerType>(elements.getElementType()))
    return std::nullopt;
  APInt value = *elements.getValues<APInt>().begin();
  return value.getBitWidth() == 1 ? int64_t(value.getBoolValue())
                                  : value.getSExtValue();
}

/// Clones `op` before the builder's point, then folds the copy where its
/// operands let it (the iteration's shape and condition arithmetic),
/// mapping `op`'s results to the folded values.
void cloneAndFold(OpBuilder &b, Operation &op, IRMapping &mapping,
                  int64_t iteration) {
  Operation *copy = b.clone(op, mapping);
  // Each copy keeps its node's name with the iteration's, so that the
  // report tells the copies apart ("h_next/iteration_3").
  if (auto name = dyn_cast<NameLoc>(op.getLoc()))
    copy->setLoc(
        NameLoc::get(b.getStringAttr(name.getName().getValue() + "/iteration_" +
                                     llvm::Twine(iteration)),
                     name.getChildLoc()));
  SmallVector<Attribute> operands;
  for (Value operand : copy->getOperands()) {
    Attribute attr;
    matchPattern(operand, m_Constant(&attr));
    operands.push_back(attr);
  }
  SmallVector<OpFoldResult> folded;
  if (failed(copy->fold(operands, folded)) || folded.empty())
    return;
  SmallVector<Value> values;
  for (auto [result, fold] : llvm::zip(copy->getResults(), folded)) {
    if (auto value = dyn_cast<Value>(fold)) {
      values.push_back(value);
      continue;
    }
    Operation *constant = copy->getDialect()->materializeConstant(
        b, cast<Attribute>(fold), result.getType(), copy->getLoc());
    if (!constant)
      return;
    values.push_back(constant->getResult(0));
  }
  for (auto [original, result, value] :
       llvm::zip(op.getResults(), copy->getResults(), values)) {
    result.replaceAllUsesWith(value);
    mapping.map(original, value);
  }
  copy->erase();
}

struct UnrollLoopsPass
    : mlir::dsmp::impl::UnrollLoopsPassBase<UnrollLoopsPass> {
  using Base::Base;

  /// Unrolls `loop` in place; on failure leaves what it built for the
  /// caller to drop.
  LogicalResult unroll(LoopOp loop) {
    Operation *before = loop->getPrevNode();
    std::optional<int64_t> trips;
    if (!isa<NoneType>(loop.getM().getType()) &&
        !(trips = constantScalar(loop.getM())))
      return failure();
    std::optional<int64_t> running = int64_t(1);
    if (!isa<NoneType>(loop.getCond().getType()) &&
        !(running = constantScalar(loop.getCond())))
      return failure();
    Block &body = loop.getBody().front();
    Operation *yield = body.getTerminator();
    size_t numCarried = loop.getVInitial().size();
    size_t numScans = loop.getNumResults() - numCarried;
    int64_t bodyOps = std::distance(body.begin(), body.end());
    int64_t limit =
        std::min<int64_t>(trips.value_or(maxIterations), maxIterations);
    // Each iteration's copy of the body; a Loop past either bound stays.
    if (trips && *trips > maxIterations)
      return failure();

    OpBuilder b(loop);
    Location loc = loop.getLoc();
    auto scalarType = [&](Type element) {
      return RankedTensorType::get({}, element);
    };
    SmallVector<Value> carried(loop.getVInitial());
    SmallVector<SmallVector<Value>> scans(numScans);
    int64_t iteration = 0;
    for (; *running && iteration < limit; ++iteration) {
      if ((iteration + 1) * bodyOps > maxClonedOps)
        return failure();
      IRMapping mapping;
      auto iterType = scalarType(b.getI64Type());
      mapping.map(body.getArgument(0),
                  ConstantOp::create(
                      b, loc, iterType,
                      DenseElementsAttr::get(iterType, APInt(64, iteration))));
      auto condType = scalarType(b.getI1Type());
      mapping.map(body.getArgument(1),
                  ConstantOp::create(b, loc, condType,
                                     DenseElementsAttr::get(condType, true)));
      for (auto [arg, value] :
           llvm::zip(body.getArguments().drop_front(2), carried))
        mapping.map(arg, value);
      for (Operation &op : body.without_terminator())
        cloneAndFold(b, op, mapping, iteration);
      running = constantScalar(mapping.lookupOrDefault(yield->getOperand(0)));
      if (!running)
        return failure(); // the condition depends on the data
      for (size_t k = 0; k < numCarried; ++k)
        carried[k] = mapping.lookupOrDefault(yield->getOperand(1 + k));
      for (size_t k = 0; k < numScans; ++k)
        scans[k].push_back(
            mapping.lookupOrDefault(yield->getOperand(1 + numCarried + k)));
    }
    if (*running && !trips)
      return failure(); // no trip count and still running at the bound
    if (iteration == 0 && numScans > 0)
      return failure(); // empty scan outputs: nothing to concatenate
    GraphBuilder g(b, loc);
    SmallVector<Value> results(carried);
    for (SmallVector<Value> &perIteration : scans) {
      SmallVector<Value> stacked;
      for (Value v : perIteration) {
        Value one = g.value("dsmp.unsqueeze", {v, g.i64s({0})});
        if (!one)
          return failure();
        stacked.push_back(one);
      }
      Value all = stacked.size() == 1
                      ? stacked.front()
                      : g.value("dsmp.concat", stacked, {g.i64("axis", 0)});
      if (!all)
        return failure();
      results.push_back(all);
    }
    loop->replaceAllUsesWith(results);
    // What the copies' folding left unused (the iteration number's casts,
    // the conditions) goes with the Loop.
    Block *block = loop->getBlock();
    SmallVector<Operation *> built;
    for (Operation *it = before ? before->getNextNode() : &block->front();
         it && it != loop.getOperation(); it = it->getNextNode())
      built.push_back(it);
    loop->erase();
    for (Operation *op : llvm::reverse(built))
      if (op->use_empty() && isMemoryEffectFree(op))
        op->erase();
    return success();
  }

  void runOnOperation() override {
    // Post-order: a Loop inside a Loop's body unrolls first.
    SmallVector<LoopOp> loops;
    getOperation().walk([&](LoopOp loop) { loops.push_back(loop); });
    int64_t unrolled = 0;
    for (LoopOp loop : loops) {
      Block *block = loop->getBlock();
      Operation *before = loop->getPrevNode();
      if (succeeded(unroll(loop))) {
        ++numUnrolled;
        ++unrolled;
        continue;
      }
      SmallVector<Operation *> built;
      for (Operation *it = before ? before->getNextNode() : &block->front();
           it && it != loop.getOperation(); it = it->getNextNode())
        built.push_back(it);
      for (Operation *dead : llvm::reverse(built))
        if (dead->use_empty())
          dead->erase();
    }
    // An unrolled Loop's values may be more static than its result types:
    // keep the signature in step with what the function returns (a Loop in
    // an If or Loop body unrolls where its region's yield takes any type).
    func::FuncOp func = getOperation();
    if (unrolled > 0 && !func.getBody().empty()) {
      Operation *ret = func.getBody().front().getTerminator();
      func.setFunctionType(FunctionType::get(
          &getContext(), func.getArgumentTypes(), ret->getOperandTypes()));
    }
  }
};

} // namespace
