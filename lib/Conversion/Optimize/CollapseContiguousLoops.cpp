//===- CollapseContiguousLoops.cpp - Longer innermost loops -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_COLLAPSECONTIGUOUSLOOPSPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
/// Maximal runs of consecutive loops that every indexing map keeps together
/// (contiguous and in order, or absent), for all-parallel generics on
/// static tensors.
SmallVector<ReassociationIndices> contiguousRuns(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumReductionLoops() != 0 || generic.hasIndexSemantics() ||
      generic.getNumLoops() < 2)
    return {};
  // A result that is padded next is written into the padded buffer
  // (dsmp-write-into-padding), whose interior is not contiguous.
  for (Operation *user : generic->getUsers())
    if (isa<tensor::PadOp>(user))
      return {};
  for (Value operand : generic->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (type && !type.hasStaticShape())
      return {};
  }
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  // Broadcasts by a constant index (d0, 0) are left alone.
  if (!llvm::all_of(maps,
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return {};
  SmallVector<ReassociationIndices> runs;
  unsigned loops = generic.getNumLoops();
  for (unsigned start = 0; start < loops;) {
    ReassociationIndices run{static_cast<int64_t>(start)};
    unsigned end = start + 1;
    for (; end < loops; ++end) {
      ReassociationIndices longer = run;
      longer.push_back(end);
      if (!linalg::areDimSequencesPreserved(maps, {longer}))
        break;
      run = longer;
    }
    if (run.size() > 1)
      runs.push_back(run);
    start = end;
  }
  return runs;
}

struct CollapseContiguousLoopsPass final
    : mlir::dsmp::impl::CollapseContiguousLoopsPassBase<
          CollapseContiguousLoopsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateCollapseDimensions(patterns, contiguousRuns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
