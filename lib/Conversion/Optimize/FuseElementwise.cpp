//===- FuseElementwise.cpp - Fuse elementwise chains ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
/// Fuse only where the consumer reads each produced element once.
bool readsOnce(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
  if (!producer || !consumer || !producer->hasOneUse() ||
      consumer.getNumReductionLoops() > 0 || !consumer.isDpsInput(fused))
    return false;
  if (!consumer.getMatchingIndexingMap(fused).isPermutation())
    return false;
  // The fused op takes the consumer's location: it names the producer too,
  // so that a profile (dsmp-time-calls) counts the fused loop for both.
  consumer->setLoc(FusedLoc::get(consumer.getContext(),
                                 {consumer.getLoc(), producer->getLoc()}));
  return true;
}

struct FuseElementwisePass final
    : mlir::dsmp::impl::FuseElementwisePassBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, readsOnce);
    // Sizes read from a result (tensor.dim, where the lowering sized a later
    // tensor at run time) are read from the size it was made with instead,
    // so the result keeps one use and its producer fuses.
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
