//===- ControlFlow.cpp - If to scf.if ---------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// If with static result shapes.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/DsmpToLinalg/Common.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/ShapeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::dsmp;
using namespace mlir::dsmp::lowering;

namespace {

/// If with static result shapes: scf.if on the condition's one element,
/// the branches moved over (their dsmp ops are lowered in place by the
/// other patterns), dsmp.yield becoming scf.yield.
struct IfLowering : OpRewritePattern<IfOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(IfOp op,
                                PatternRewriter &rewriter) const override {
    for (Type t : op.getResultTypes()) {
      auto ranked = dyn_cast<RankedTensorType>(t);
      if (!ranked || !ranked.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "needs static result shapes");
    }
    auto condType = dyn_cast<RankedTensorType>(op.getCond().getType());
    if (!condType || !condType.hasStaticShape() ||
        condType.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "needs a one-element condition");
    Location loc = op.getLoc();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value cond =
        tensor::ExtractOp::create(rewriter, loc, op.getCond(),
                                  SmallVector<Value>(condType.getRank(), zero));
    auto ifOp = scf::IfOp::create(rewriter, loc, op.getResultTypes(), cond,
                                  /*addThenBlock=*/false,
                                  /*addElseBlock=*/false);
    for (auto [from, to] :
         {std::make_pair(&op.getThenBranch(), &ifOp.getThenRegion()),
          std::make_pair(&op.getElseBranch(), &ifOp.getElseRegion())}) {
      rewriter.inlineRegionBefore(*from, *to, to->end());
      Operation *yield = to->front().getTerminator();
      rewriter.setInsertionPoint(yield);
      scf::YieldOp::create(rewriter, yield->getLoc(), yield->getOperands());
      rewriter.eraseOp(yield);
    }
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

} // namespace

void mlir::dsmp::lowering::populateControlFlowPatterns(
    RewritePatternSet &patterns) {
  patterns.add<IfLowering>(patterns.getContext());
}
