//===- OrderLoopsForLocality.cpp - Contiguous innermost loops ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_ORDERLOOPSFORLOCALITYPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
/// Whether `value` is computed from `linalg.index dim` (in the body).
bool dependsOnIndex(Value value, unsigned dim) {
  SmallVector<Value> worklist{value};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || !seen.insert(def).second)
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(def)) {
      if (index.getDim() == dim)
        return true;
      continue;
    }
    llvm::append_range(worklist, def->getOperands());
  }
  return false;
}

/// An all-parallel generic over [n, c, rows.., cols] (output identity)
/// whose body reads a window of another tensor at indices independent of
/// c (an unrolled 1x1 convolution: every output channel reads the same
/// input rows): c goes inside the rows, (n, rows.., c, cols), so one
/// output row's input rows stay in L1 while every channel reads them.
SmallVector<unsigned> channelsInsideRows(linalg::GenericOp op) {
  unsigned rank = op.getNumLoops();
  if (rank < 4 || op.getNumReductionLoops() != 0 || op.getNumDpsInits() != 1 ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return {};
  // Reads at indices independent of c (the input window; the weights
  // depend on c).
  int64_t windowReads = 0;
  op.getBody()->walk([&](tensor::ExtractOp extract) {
    if (extract.getTensor().getType().getRank() == rank &&
        llvm::none_of(extract.getIndices(),
                      [](Value index) { return dependsOnIndex(index, 1); }))
      ++windowReads;
  });
  if (windowReads < 2)
    return {};
  SmallVector<unsigned> order{0};
  for (unsigned d = 2; d + 1 < rank; ++d)
    order.push_back(d);
  order.push_back(1);
  order.push_back(rank - 1);
  return order;
}

/// The loop order: channelsInsideRows where it applies; else parallel
/// loops but the output's innermost dimension, then reductions, then that
/// dimension. Empty when nothing changes.
SmallVector<unsigned> localityOrder(linalg::GenericOp op) {
  if (SmallVector<unsigned> order = channelsInsideRows(op); !order.empty())
    return order;
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0)
    return {};
  AffineMap output = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (output.getNumResults() == 0)
    return {};
  auto innermost = dyn_cast<AffineDimExpr>(output.getResults().back());
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (!innermost ||
      iterators[innermost.getPosition()] != utils::IteratorType::parallel)
    return {};
  unsigned last = innermost.getPosition();
  SmallVector<unsigned> order;
  for (unsigned d = 0; d < iterators.size(); ++d)
    if (d != last && iterators[d] == utils::IteratorType::parallel)
      order.push_back(d);
  for (unsigned d = 0; d < iterators.size(); ++d)
    if (iterators[d] == utils::IteratorType::reduction)
      order.push_back(d);
  order.push_back(last);
  for (unsigned d = 0; d < order.size(); ++d)
    if (order[d] != d)
      return order;
  return {};
}

struct OrderLoopsForLocalityPass final
    : mlir::dsmp::impl::OrderLoopsForLocalityPassBase<
          OrderLoopsForLocalityPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) {
      SmallVector<unsigned> order = localityOrder(op);
      if (order.empty())
        continue;
      rewriter.setInsertionPoint(op);
      if (failed(linalg::interchangeGenericOp(rewriter, op, order)))
        return signalPassFailure();
    }
  }
};
} // namespace
