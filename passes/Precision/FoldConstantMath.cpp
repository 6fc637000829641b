//===- FoldConstantMath.cpp - Evaluate float math on weights --- -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Float ops that read only constants (weight standardisation, weight norm,
// a mask multiplied into a kernel) are computed once, in f32, by the
// reference evaluator, and their results become the constants that the
// graph reads, as onnxruntime's constant folding does. The precision
// passes then see a plain weight: it is stored once, in the format its
// reader takes, instead of an f32 original beside a 16-bit copy.
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Passes.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/MainGraph.h"
#include "dsmp/Execution/Evaluator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "dsmp-fold-constant-math"

namespace mlir::dsmp {
#define GEN_PASS_DEF_FOLDCONSTANTMATHPASS
#include "passes/Precision/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

bool isF32Tensor(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  return ranked && ranked.hasStaticShape() && ranked.getElementType().isF32();
}

int64_t bytesOf(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !ranked.hasStaticShape() ||
      !ranked.getElementType().isIntOrFloat())
    return 0;
  return ranked.getNumElements() *
         ((ranked.getElementType().getIntOrFloatBitWidth() + 7) / 8);
}

/// The one f32 result of `op` when `op` is float math (not data movement)
/// that reads constants only, some of them f32, and that result takes no
/// more bytes than the constants only `op` reads; else null.
Value foldableFirstStep(Operation *op,
                        const llvm::SetVector<Operation *> &computed) {
  auto precision = dyn_cast<PrecisionOpInterface>(op);
  if (!computed.contains(op) || !precision ||
      precision.getOpClass() == OpClass::data_movement)
    return {};
  int64_t ownBytes = 0;
  bool readsF32 = false;
  for (Value operand : op->getOperands()) {
    Operation *def = operand.getDefiningOp();
    if (!def || !isa<ConstantOp, NoneOp>(def))
      return {};
    readsF32 |= isF32Tensor(operand.getType());
    if (isa<ConstantOp>(def) && def->hasOneUse())
      ownBytes += bytesOf(operand.getType());
  }
  Value result;
  for (Value r : op->getResults()) {
    if (isa<NoneType>(r.getType()))
      continue;
    if (result || !isF32Tensor(r.getType()))
      return {};
    result = r;
  }
  if (!readsF32 || !result || bytesOf(result.getType()) > ownBytes)
    return {};
  return result;
}

struct FoldConstantMathPass final
    : mlir::dsmp::impl::FoldConstantMathPassBase<FoldConstantMathPass> {
  void runOnOperation() override {
    func::FuncOp graph = lookupMainGraph(getOperation());
    if (!graph)
      return;
    Block &body = graph.getBody().front();
    Dialect *dsmp = getContext().getLoadedDialect<DsmpDialect>();

    // Ops whose every operand is a constant or another such op's result.
    llvm::SetVector<Operation *> computed;
    auto fromConstants = [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && (isa<ConstantOp, NoneOp>(def) || computed.contains(def));
    };
    for (Operation &op : body.without_terminator())
      if (op.getDialect() == dsmp && !isa<ConstantOp, NoneOp>(op) &&
          op.getNumRegions() == 0 && op.getNumOperands() > 0 && isPure(&op) &&
          llvm::all_of(op.getOperands(), fromConstants) &&
          llvm::all_of(op.getResultTypes(), [](Type t) {
            auto r = dyn_cast<RankedTensorType>(t);
            return isa<NoneType>(t) || (r && r.hasStaticShape());
          }))
        computed.insert(&op);

    // The f32 values read outside that set, that some float math made,
    // each with the constants it alone frees (a constant something else
    // reads stays: folding would add a copy, as for a tied embedding read
    // by a Gather and, transposed, by the output MatMul).
    struct Candidate {
      Value result;
      llvm::SetVector<Operation *> cone, leaves;
    };
    SmallVector<Candidate> candidates;
    for (Operation *op : computed)
      for (Value result : op->getResults()) {
        if (!isF32Tensor(result.getType()) ||
            llvm::all_of(result.getUsers(), [&](Operation *user) {
              return computed.contains(user);
            }))
          continue;
        Candidate c{result, {}, {}};
        bool floatMath = false;
        SmallVector<Operation *> work{op};
        while (!work.empty()) {
          Operation *o = work.pop_back_val();
          if (!c.cone.insert(o))
            continue;
          if (isa<ConstantOp>(o)) {
            if (llvm::all_of(o->getUsers(), [&](Operation *user) {
                  return computed.contains(user);
                }))
              c.leaves.insert(o);
            continue;
          }
          floatMath |= llvm::any_of(o->getOperandTypes(), isF32Tensor);
          for (Value v : o->getOperands())
            if (Operation *def = v.getDefiningOp())
              work.push_back(def);
        }
        if (floatMath)
          candidates.push_back(std::move(c));
      }

    // Candidates that share constants are judged together: folded when
    // all of them take no more bytes than the constants they free (a
    // causal mask made from a few integers stays computed). Otherwise the
    // values repeat what the math made (SEW-D's relative position keys and
    // queries, four projections of one table, expanded per head): their
    // first steps, math on constants that nothing else reads (LayerNorm of
    // the table), are folded instead, and the table is stored once, in the
    // format of the contractions that read it.
    llvm::EquivalenceClasses<Operation *> sharing;
    for (const Candidate &c : candidates) {
      sharing.insert(c.result.getDefiningOp());
      for (Operation *leaf : c.leaves)
        sharing.unionSets(c.result.getDefiningOp(), leaf);
    }
    llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> groupBytes;
    llvm::DenseMap<Operation *, llvm::SmallPtrSet<Operation *, 8>> groupLeaves;
    for (const Candidate &c : candidates) {
      Operation *group = sharing.getLeaderValue(c.result.getDefiningOp());
      groupBytes[group].first += bytesOf(c.result.getType());
      for (Operation *leaf : c.leaves)
        if (groupLeaves[group].insert(leaf).second)
          groupBytes[group].second += bytesOf(leaf->getResult(0).getType());
    }
    llvm::SetVector<Value> folds;
    for (const Candidate &c : candidates) {
      auto [resultBytes, leafBytes] =
          groupBytes[sharing.getLeaderValue(c.result.getDefiningOp())];
      if (resultBytes <= leafBytes) {
        folds.insert(c.result);
        continue;
      }
      for (Operation *first : c.cone)
        if (Value folded = foldableFirstStep(first, computed))
          folds.insert(folded);
    }
    if (folds.empty())
      return;

    // One evaluation of a function that returns them.
    OpBuilder b(&getContext());
    Location loc = graph.getLoc();
    OwningOpRef<ModuleOp> scratch(ModuleOp::create(loc));
    b.setInsertionPointToEnd(scratch->getBody());
    SmallVector<Type> types;
    for (Value v : folds)
      types.push_back(v.getType());
    auto fn = func::FuncOp::create(b, loc, "main_graph",
                                   b.getFunctionType({}, types));
    b.setInsertionPointToEnd(fn.addEntryBlock());
    IRMapping mapping;
    for (Operation &op : body.without_terminator())
      if (isa<ConstantOp, NoneOp>(op) || computed.contains(&op))
        b.clone(op, mapping);
    SmallVector<Value> returned;
    for (Value v : folds)
      returned.push_back(mapping.lookup(v));
    func::ReturnOp::create(b, loc, returned);
    auto evaluator = GraphEvaluator::create(fn);
    if (!evaluator) {
      // An op without a kernel: leave the math for the compiled code.
      llvm::consumeError(evaluator.takeError());
      return;
    }
    auto values = (*evaluator)->run({});
    if (!values) {
      llvm::consumeError(values.takeError());
      return;
    }

    b.setInsertionPointToStart(&body);
    for (auto [folded, tensor] : llvm::zip(folds, *values)) {
      Value v = folded;
      auto type = cast<RankedTensorType>(v.getType());
      if (tensor.dtype != 1 ||
          tensor.data.size() != static_cast<size_t>(bytesOf(type)))
        continue;
      auto attr = DenseElementsAttr::getFromRawBuffer(
          type,
          ArrayRef<char>(reinterpret_cast<const char *>(tensor.data.data()),
                         tensor.data.size()));
      Value constant =
          ConstantOp::create(b, v.getLoc(), type, cast<ElementsAttr>(attr));
      v.replaceAllUsesWith(constant);
      ++numFolded;
    }
    // The math nothing reads any more, and the constants only it read.
    llvm::SetVector<Operation *> leaves;
    for (Operation *op : llvm::reverse(computed)) {
      if (!op->use_empty())
        continue;
      for (Value v : op->getOperands())
        if (auto constant = v.getDefiningOp<ConstantOp>())
          leaves.insert(constant);
      op->erase();
    }
    for (Operation *leaf : leaves)
      if (leaf->use_empty())
        leaf->erase();
  }
};

} // namespace
