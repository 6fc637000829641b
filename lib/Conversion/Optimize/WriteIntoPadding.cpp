//===- WriteIntoPadding.cpp - Pads without a full fill and copy -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_WRITEINTOPADDINGPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
/// The elementwise generic that computes `source` into a tensor.empty, used
/// by nothing else: it can write into the padded tensor directly.
linalg::GenericOp inPlaceProducer(Value source) {
  auto generic = source.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic->getNumResults() != 1 || !source.hasOneUse() ||
      generic.getNumReductionLoops() != 0 ||
      !generic.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>())
    return {};
  // Its body must not read the output it is given.
  if (generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)))
    return {};
  return generic;
}

/// tensor.pad with static sizes and a constant value as: a filled padded
/// tensor and the source inserted into its interior, computed there by its
/// producer when it can (no copy).
LogicalResult rewritePad(tensor::PadOp pad, IRRewriter &rewriter) {
  RankedTensorType type = pad.getResultType();
  Value source = pad.getSource();
  auto sourceType = cast<RankedTensorType>(source.getType());
  Value value = pad.getConstantPaddingValue();
  if (!type.hasStaticShape() || !sourceType.hasStaticShape() || !value ||
      !matchPattern(value, m_Constant()))
    return failure();
  SmallVector<int64_t> low(pad.getStaticLow()), high(pad.getStaticHigh());
  if (llvm::any_of(low, ShapedType::isDynamic) ||
      llvm::any_of(high, ShapedType::isDynamic) ||
      llvm::any_of(low, [](int64_t p) { return p < 0; }) ||
      llvm::any_of(high, [](int64_t p) { return p < 0; }))
    return failure();

  Location loc = pad.getLoc();
  rewriter.setInsertionPoint(pad);
  int64_t rank = type.getRank();
  Value result = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
  // One fill of the whole buffer: filling only the border strips measured
  // slower (a column strip touches one cache line per row).
  result = linalg::FillOp::create(rewriter, loc, ValueRange{value},
                                  ValueRange{result})
               .getResult(0);

  SmallVector<OpFoldResult> offsets, sizes,
      strides(rank, rewriter.getIndexAttr(1));
  for (int64_t d = 0; d < rank; ++d) {
    offsets.push_back(rewriter.getIndexAttr(low[d]));
    sizes.push_back(rewriter.getIndexAttr(sourceType.getDimSize(d)));
  }
  Value interior = source;
  if (linalg::GenericOp producer = inPlaceProducer(source)) {
    Value target = tensor::ExtractSliceOp::create(rewriter, loc, result,
                                                  offsets, sizes, strides);
    IRMapping mapping;
    mapping.map(producer.getDpsInitOperand(0)->get(), target);
    Operation *moved = rewriter.clone(*producer, mapping);
    interior = moved->getResult(0);
  }
  result = tensor::InsertSliceOp::create(rewriter, loc, interior, result,
                                         offsets, sizes, strides);
  rewriter.replaceOp(pad, result);
  if (interior != source)
    rewriter.eraseOp(source.getDefiningOp());
  return success();
}

struct WriteIntoPaddingPass final
    : mlir::dsmp::impl::WriteIntoPaddingPassBase<WriteIntoPaddingPass> {
  void runOnOperation() override {
    SmallVector<tensor::PadOp> pads;
    getOperation().walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    IRRewriter rewriter(&getContext());
    for (tensor::PadOp pad : pads)
      (void)rewritePad(pad, rewriter);
  }
};
} // namespace
