//===- Scatter.cpp - Lowering ScatterND and ScatterElements ---- -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A scatter writes where its indices say, which no linalg.generic can: an
// scf.for over the updates carries the result tensor and inserts one
// update (a row of the slice size for ScatterND, one element for
// ScatterElements) per iteration, in order, so the last of duplicate
// indices wins, as in the evaluator. Indices are wrapped once (negative
// ones count from the end) and clamped into the dim: an index from the
// data never writes outside the tensor. A reduction (add, mul, max, min)
// combines each update with the element already there.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/DsmpToLinalg/Common.h"

#include "dialects/Dsmp/IR/DsmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::dsmp;
using namespace mlir::dsmp::lowering;

namespace {

bool allStatic(ValueRange values) {
  return llvm::all_of(values, [](Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    return type && type.hasStaticShape();
  });
}

/// An i64 index read at run time, wrapped and clamped into [0, dim).
Value wrapIndex(OpBuilder &b, Location loc, Value index, int64_t dim) {
  Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  Value size = arith::ConstantIndexOp::create(b, loc, dim);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value last = arith::ConstantIndexOp::create(b, loc, dim - 1);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(b, loc, negative,
                              arith::AddIOp::create(b, loc, i, size), i);
  i = arith::MaxSIOp::create(b, loc, i, zero);
  return arith::MinSIOp::create(b, loc, i, last);
}

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

bool knownReduction(StringRef reduction) {
  return llvm::is_contained({"none", "add", "mul", "max", "min"}, reduction);
}

/// What ends up at a target element: the update, or its combination with
/// the element already there.
Value combine(OpBuilder &b, Location loc, StringRef reduction, Value old,
              Value update) {
  bool isFloat = isa<FloatType>(update.getType());
  if (reduction == "add")
    return isFloat ? Value(arith::AddFOp::create(b, loc, old, update))
                   : Value(arith::AddIOp::create(b, loc, old, update));
  if (reduction == "mul")
    return isFloat ? Value(arith::MulFOp::create(b, loc, old, update))
                   : Value(arith::MulIOp::create(b, loc, old, update));
  if (reduction == "max")
    return isFloat ? Value(arith::MaximumFOp::create(b, loc, old, update))
                   : Value(arith::MaxSIOp::create(b, loc, old, update));
  if (reduction == "min")
    return isFloat ? Value(arith::MinimumFOp::create(b, loc, old, update))
                   : Value(arith::MinSIOp::create(b, loc, old, update));
  return update;
}

/// Static shapes and a reduction this lowering knows.
template <typename ScatterOp> bool lowerable(ScatterOp op) {
  return allStatic({op.getData(), op.getIndices(), op.getUpdates()}) &&
         knownReduction(op.getReduction());
}

/// Writes `update` at `coords` of `into`, combined by `reduction`.
Value store(OpBuilder &b, Location loc, StringRef reduction, Value update,
            Value into, ValueRange coords) {
  if (reduction != "none")
    update = combine(b, loc, reduction,
                     tensor::ExtractOp::create(b, loc, into, coords), update);
  return tensor::InsertOp::create(b, loc, update, into, coords);
}

/// ScatterND: data as [P, S] (P index tuples of q dims, S the slice), the
/// updates as [T, S], the indices as [T, q].
struct ScatterNDLowering : OpRewritePattern<ScatterNDOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScatterNDOp op,
                                PatternRewriter &rewriter) const override {
    StringRef reduction = op.getReduction();
    if (!lowerable(op))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    auto type = cast<RankedTensorType>(op.getType());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    ArrayRef<int64_t> shape = type.getShape();
    int64_t q = indicesType.getRank() ? indicesType.getShape().back() : 0;
    if (q < 1 || q > type.getRank())
      return rewriter.notifyMatchFailure(op, "index tuples do not fit");
    int64_t rows = 1, slice = 1;
    for (int64_t d : shape.take_front(q))
      rows *= d;
    for (int64_t d : shape.drop_front(q))
      slice *= d;
    int64_t tuples = indicesType.getNumElements() / q;
    Location loc = op.getLoc();
    Type element = type.getElementType();
    Value data = reshapeTo(rewriter, loc, op.getData(),
                           RankedTensorType::get({rows, slice}, element));
    Value updates = reshapeTo(rewriter, loc, op.getUpdates(),
                              RankedTensorType::get({tuples, slice}, element));
    Value indices = reshapeTo(
        rewriter, loc, op.getIndices(),
        RankedTensorType::get({tuples, q}, indicesType.getElementType()));
    auto loop = scf::ForOp::create(
        rewriter, loc, index(rewriter, loc, 0), index(rewriter, loc, tuples),
        index(rewriter, loc, 1), ValueRange{data},
        [&](OpBuilder &b, Location l, Value t, ValueRange carried) {
          Value row = index(b, l, 0);
          for (int64_t k = 0; k < q; ++k) {
            Value raw = tensor::ExtractOp::create(
                b, l, indices, ValueRange{t, index(b, l, k)});
            row = arith::AddIOp::create(
                b, l, arith::MulIOp::create(b, l, row, index(b, l, shape[k])),
                wrapIndex(b, l, raw, shape[k]));
          }
          if (reduction == "none") {
            SmallVector<OpFoldResult> sizes{b.getIndexAttr(1),
                                            b.getIndexAttr(slice)};
            SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
            Value update = tensor::ExtractSliceOp::create(
                b, l, updates, ArrayRef<OpFoldResult>{t, b.getIndexAttr(0)},
                sizes, strides);
            Value next = tensor::InsertSliceOp::create(
                b, l, update, carried[0],
                ArrayRef<OpFoldResult>{row, b.getIndexAttr(0)}, sizes, strides);
            scf::YieldOp::create(b, l, next);
            return;
          }
          // A reduction combines element by element.
          auto inner = scf::ForOp::create(
              b, l, index(b, l, 0), index(b, l, slice), index(b, l, 1),
              ValueRange{carried[0]},
              [&](OpBuilder &ib, Location il, Value e, ValueRange into) {
                Value update = tensor::ExtractOp::create(ib, il, updates,
                                                         ValueRange{t, e});
                scf::YieldOp::create(ib, il,
                                     store(ib, il, reduction, update, into[0],
                                           ValueRange{row, e}));
              });
          scf::YieldOp::create(b, l, inner.getResult(0));
        });
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, loop.getResult(0), type));
    return success();
  }
};

/// ScatterElements: one element per update, at the update's own position
/// with the axis coordinate read from the indices.
struct ScatterElementsLowering : OpRewritePattern<ScatterElementsOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScatterElementsOp op,
                                PatternRewriter &rewriter) const override {
    StringRef reduction = op.getReduction();
    if (!lowerable(op))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    auto type = cast<RankedTensorType>(op.getType());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    int64_t rank = type.getRank();
    // The I64Attr getter is unsigned: a negative axis reads as a huge one.
    auto axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Location loc = op.getLoc();
    int64_t count = indicesType.getNumElements();
    Value indices =
        reshapeTo(rewriter, loc, op.getIndices(),
                  RankedTensorType::get({count}, indicesType.getElementType()));
    Value updates =
        reshapeTo(rewriter, loc, op.getUpdates(),
                  RankedTensorType::get({count}, type.getElementType()));
    ArrayRef<int64_t> updateShape = indicesType.getShape();
    auto loop = scf::ForOp::create(
        rewriter, loc, index(rewriter, loc, 0), index(rewriter, loc, count),
        index(rewriter, loc, 1), ValueRange{op.getData()},
        [&](OpBuilder &b, Location l, Value e, ValueRange carried) {
          SmallVector<Value> coords(rank);
          Value rest = e;
          for (int64_t d = rank - 1; d >= 0; --d) {
            Value size = index(b, l, updateShape[d]);
            coords[d] = arith::RemUIOp::create(b, l, rest, size);
            rest = arith::DivUIOp::create(b, l, rest, size);
          }
          Value raw = tensor::ExtractOp::create(b, l, indices, ValueRange{e});
          coords[axis] = wrapIndex(b, l, raw, type.getDimSize(axis));
          Value value = tensor::ExtractOp::create(b, l, updates, ValueRange{e});
          scf::YieldOp::create(
              b, l, store(b, l, reduction, value, carried[0], coords));
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

} // namespace

void mlir::dsmp::lowering::populateScatterPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ScatterNDLowering, ScatterElementsLowering>(
      patterns.getContext());
}
