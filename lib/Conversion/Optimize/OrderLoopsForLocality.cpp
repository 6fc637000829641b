//===- OrderLoopsForLocality.cpp - Contiguous innermost loops ------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_ORDERLOOPSFORLOCALITYPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
/// The loop order: parallel loops but the output's innermost dimension,
/// then reductions, then that dimension. Empty when nothing changes.
SmallVector<unsigned> localityOrder(linalg::GenericOp op) {
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
