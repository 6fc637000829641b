//===- Indexing.cpp - Ops that work by element position ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ArgMax/ArgMin, Hardmax, CumSum, Tile, DepthToSpace, SpaceToDepth,
// GatherElements and Range: each a linalg.generic that reads linalg.index,
// or a reshape-transpose-reshape.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/DsmpToLinalg/Common.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/ShapeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

using namespace mlir;
using namespace mlir::dsmp;
using namespace mlir::dsmp::lowering;

namespace {

int64_t normalized(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// The index (i64) of the largest (or smallest) element of `x` along
/// `axis`, kept as a size-1 dim: the first of ties, or the last with
/// `last`. Floats and integers.
Value argReduce(OpBuilder &b, Location loc, Value x, int64_t axis, bool max,
                bool last) {
  auto type = cast<RankedTensorType>(x.getType());
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  Type element = type.getElementType();
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = 1;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t i = 0; i < rank; ++i) {
    outExprs.push_back(i == axis ? getAffineConstantExpr(0, ctx)
                                 : getAffineDimExpr(i, ctx));
    iterators.push_back(i == axis ? utils::IteratorType::reduction
                                  : utils::IteratorType::parallel);
  }
  // The running best starts at the first element's value, index 0.
  TypedAttr start;
  if (auto f = dyn_cast<FloatType>(element))
    start = b.getFloatAttr(f, max ? -std::numeric_limits<double>::infinity()
                                  : std::numeric_limits<double>::infinity());
  else {
    unsigned width = element.getIntOrFloatBitWidth();
    start = b.getIntegerAttr(element, max ? APInt::getSignedMinValue(width)
                                          : APInt::getSignedMaxValue(width));
  }
  Value bestInit =
      linalg::FillOp::create(
          b, loc, ValueRange{arith::ConstantOp::create(b, loc, start)},
          ValueRange{tensor::EmptyOp::create(b, loc, shape, element)})
          .getResult(0);
  Value indexInit =
      linalg::FillOp::create(
          b, loc,
          ValueRange{
              arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(-1))},
          ValueRange{tensor::EmptyOp::create(b, loc, shape, b.getI64Type())})
          .getResult(0);
  AffineMap outMap = AffineMap::get(rank, 0, outExprs, ctx);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{bestInit.getType(), indexInit.getType()}, ValueRange{x},
      ValueRange{bestInit, indexInit},
      SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx),
                             outMap, outMap},
      iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value v = args[0], best = args[1], bestIndex = args[2];
        Value index = arith::IndexCastOp::create(
            nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, axis));
        Value better;
        if (isa<FloatType>(element))
          better =
              arith::CmpFOp::create(nb, l,
                                    max ? (last ? arith::CmpFPredicate::OGE
                                                : arith::CmpFPredicate::OGT)
                                        : (last ? arith::CmpFPredicate::OLE
                                                : arith::CmpFPredicate::OLT),
                                    v, best);
        else
          better =
              arith::CmpIOp::create(nb, l,
                                    max ? (last ? arith::CmpIPredicate::sge
                                                : arith::CmpIPredicate::sgt)
                                        : (last ? arith::CmpIPredicate::sle
                                                : arith::CmpIPredicate::slt),
                                    v, best);
        // The first element is taken whatever it is (a row of -inf or NaN).
        Value first = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::slt, bestIndex,
            arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0)));
        better = arith::OrIOp::create(nb, l, better, first);
        linalg::YieldOp::create(
            nb, l,
            ValueRange{
                arith::SelectOp::create(nb, l, better, v, best),
                arith::SelectOp::create(nb, l, better, index, bestIndex)});
      });
  return generic.getResult(1);
}

template <typename OpTy, bool Max> struct ArgLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getData().getType());
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape() || !resultType ||
        !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t axis = normalized(op.getAxis(), type.getRank());
    Value index = argReduce(rewriter, op.getLoc(), op.getData(), axis, Max,
                            op.getSelectLastIndex() != 0);
    rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), index, resultType));
    return success();
  }
};

/// Hardmax: 1 where the (first) largest element along the axis is, else 0.
struct HardmaxLowering : OpRewritePattern<HardmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(HardmaxOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape() || !isFloat(type))
      return rewriter.notifyMatchFailure(op, "needs a static float shape");
    int64_t axis = normalized(op.getAxis(), type.getRank());
    Value index = argReduce(rewriter, op.getLoc(), op.getInput(), axis,
                            /*max=*/true, /*last=*/false);
    Value result = buildElementwise(
        rewriter, op.getLoc(), ValueRange{index}, type, op,
        [axis](OpBuilder &b, Location l, ValueRange a, Type t,
               Operation *) -> Value {
          Value here = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, axis));
          Value hit =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, here, a[0]);
          return arith::SelectOp::create(b, l, hit, floatConst(b, l, t, 1),
                                         floatConst(b, l, t, 0));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// CumSum with a constant axis: y[.., k, ..] = sum of x[.., j, ..] over
/// j <= k (j < k exclusive; j >= k, j > k reversed), as a reduction over a
/// second copy of the axis.
struct CumSumLowering : OpRewritePattern<CumSumOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CumSumOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !isRanked(op.getX()))
      return rewriter.notifyMatchFailure(op, "needs a ranked shape");
    auto axisValues = getConstantInts(op.getAxis());
    if (!axisValues || axisValues->size() != 1)
      return rewriter.notifyMatchFailure(op, "needs a constant axis");
    int64_t rank = type.getRank();
    int64_t axis = normalized(axisValues->front(), rank);
    MLIRContext *ctx = rewriter.getContext();
    Location loc = op.getLoc();
    // Dims 0..rank-1 are the output's; dim `rank` walks the summed axis.
    SmallVector<AffineExpr> inExprs, outExprs;
    for (int64_t i = 0; i < rank; ++i) {
      inExprs.push_back(getAffineDimExpr(i == axis ? rank : i, ctx));
      outExprs.push_back(getAffineDimExpr(i, ctx));
    }
    SmallVector<utils::IteratorType> iterators(rank + 1,
                                               utils::IteratorType::parallel);
    iterators[rank] = utils::IteratorType::reduction;
    Type element = type.getElementType();
    Value zero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(element));
    Value init = linalg::FillOp::create(
                     rewriter, loc, ValueRange{zero},
                     ValueRange{emptyLike(rewriter, loc, type.getShape(),
                                          element, op.getX())})
                     .getResult(0);
    bool exclusive = op.getExclusive() != 0, reverse = op.getReverse() != 0;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{op.getX()}, ValueRange{init},
        SmallVector<AffineMap>{AffineMap::get(rank + 1, 0, inExprs, ctx),
                               AffineMap::get(rank + 1, 0, outExprs, ctx)},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value k = linalg::IndexOp::create(b, l, axis);
          Value j = linalg::IndexOp::create(b, l, rank);
          auto predicate = reverse ? (exclusive ? arith::CmpIPredicate::ugt
                                                : arith::CmpIPredicate::uge)
                                   : (exclusive ? arith::CmpIPredicate::ult
                                                : arith::CmpIPredicate::ule);
          Value in = arith::CmpIOp::create(b, l, predicate, j, k);
          Value sum =
              isa<FloatType>(element)
                  ? Value(arith::AddFOp::create(b, l, args[1], args[0]))
                  : Value(arith::AddIOp::create(b, l, args[1], args[0]));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, in, sum, args[1])});
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Tile: each output element reads the input at its position modulo the
/// input's dims. With run-time sizes (a dynamic variant) the result's dims
/// are the input's times the repeats (read at run time where not constant)
/// and the body reads the input at those remainders.
struct TileLowering : OpRewritePattern<TileOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TileOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto inType = dyn_cast<RankedTensorType>(op.getInput().getType());
    if (!type || !inType || inType.getRank() != type.getRank())
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = type.getRank();
    Location loc = op.getLoc();
    Value input = op.getInput();
    if (type.hasStaticShape() && inType.hasStaticShape()) {
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < rank; ++i)
        exprs.push_back(inType.getDimSize(i) == type.getDimSize(i)
                            ? getAffineDimExpr(i, ctx)
                            : getAffineDimExpr(i, ctx) % inType.getDimSize(i));
      rewriter.replaceOp(op, copyThroughMap(rewriter, loc, input,
                                            AffineMap::get(rank, 0, exprs, ctx),
                                            type.getShape()));
      return success();
    }
    auto repeats = getConstantInts(op.getRepeats());
    SmallVector<OpFoldResult> sizes;
    SmallVector<Value> inSizes;
    SmallVector<bool> wraps;
    for (int64_t d = 0; d < rank; ++d) {
      inSizes.push_back(dimSize(rewriter, loc, input, d));
      bool once = repeats && (*repeats)[d] == 1;
      wraps.push_back(!once);
      if (!type.isDynamicDim(d)) {
        sizes.push_back(rewriter.getIndexAttr(type.getDimSize(d)));
        continue;
      }
      Value times = repeats ? Value(arith::ConstantIndexOp::create(
                                  rewriter, loc, (*repeats)[d]))
                            : Value(arith::IndexCastOp::create(
                                  rewriter, loc, rewriter.getIndexType(),
                                  tensor::ExtractOp::create(
                                      rewriter, loc, op.getRepeats(),
                                      ValueRange{arith::ConstantIndexOp::create(
                                          rewriter, loc, d)})));
      sizes.push_back(
          Value(arith::MulIOp::create(rewriter, loc, inSizes[d], times)));
    }
    Value init = emptyOfSizes(rewriter, loc, type, sizes);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < rank; ++d) {
            Value i = linalg::IndexOp::create(b, l, d);
            coords.push_back(
                wraps[d] ? Value(arith::RemUIOp::create(b, l, i, inSizes[d]))
                         : i);
          }
          linalg::YieldOp::create(
              b, l, Value(tensor::ExtractOp::create(b, l, input, coords)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// `x` reshaped to `shape`, transposed by `perm`, reshaped to `type`.
Value reshapeTransposeReshape(OpBuilder &b, Location loc, Value x,
                              ArrayRef<int64_t> shape, ArrayRef<int64_t> perm,
                              RankedTensorType type) {
  Type element = type.getElementType();
  Value middle = reshapeTo(b, loc, x, RankedTensorType::get(shape, element));
  SmallVector<int64_t> permuted;
  for (int64_t p : perm)
    permuted.push_back(shape[p]);
  Value init = tensor::EmptyOp::create(b, loc, permuted, element);
  Value t =
      linalg::TransposeOp::create(b, loc, middle, init, perm)->getResult(0);
  return reshapeTo(b, loc, t, type);
}

/// DepthToSpace (DCR or CRD) and SpaceToDepth on [N, C, H, W].
struct DepthToSpaceLowering : OpRewritePattern<DepthToSpaceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DepthToSpaceOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto inType = dyn_cast<RankedTensorType>(op.getInput().getType());
    if (!type || !type.hasStaticShape() || !inType ||
        !inType.hasStaticShape() || inType.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "needs static 4-d shapes");
    int64_t b = op.getBlocksize();
    ArrayRef<int64_t> s = inType.getShape();
    int64_t n = s[0], c = s[1], h = s[2], w = s[3];
    Value y =
        op.getMode() == "CRD"
            ? reshapeTransposeReshape(rewriter, op.getLoc(), op.getInput(),
                                      {n, c / (b * b), b, b, h, w},
                                      {0, 1, 4, 2, 5, 3}, type)
            : reshapeTransposeReshape(rewriter, op.getLoc(), op.getInput(),
                                      {n, b, b, c / (b * b), h, w},
                                      {0, 3, 4, 1, 5, 2}, type);
    rewriter.replaceOp(op, y);
    return success();
  }
};

struct SpaceToDepthLowering : OpRewritePattern<SpaceToDepthOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SpaceToDepthOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto inType = dyn_cast<RankedTensorType>(op.getInput().getType());
    if (!type || !type.hasStaticShape() || !inType ||
        !inType.hasStaticShape() || inType.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "needs static 4-d shapes");
    int64_t b = op.getBlocksize();
    ArrayRef<int64_t> s = inType.getShape();
    int64_t n = s[0], c = s[1], h = s[2], w = s[3];
    rewriter.replaceOp(op, reshapeTransposeReshape(rewriter, op.getLoc(),
                                                   op.getInput(),
                                                   {n, c, h / b, b, w / b, b},
                                                   {0, 3, 5, 1, 2, 4}, type));
    return success();
  }
};

/// An integer index as an `index`, negative ones counted from the back of
/// a dim of `size`.
Value wrapIndex(OpBuilder &b, Location l, Value integer, Value size) {
  Value index = arith::IndexCastOp::create(b, l, b.getIndexType(), integer);
  Value negative =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, index,
                            arith::ConstantIndexOp::create(b, l, 0));
  return arith::SelectOp::create(
      b, l, negative, arith::AddIOp::create(b, l, index, size), index);
}

Value wrapIndex(OpBuilder &b, Location l, Value integer, int64_t size) {
  return wrapIndex(b, l, integer, arith::ConstantIndexOp::create(b, l, size));
}

/// GatherElements: y[.., i, ..] = data[.., indices[.., i, ..], ..] along
/// the axis (negative indices count from the end).
struct GatherElementsLowering : OpRewritePattern<GatherElementsOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherElementsOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto dataType = dyn_cast<RankedTensorType>(op.getData().getType());
    if (!type || !dataType || !isRanked(op.getIndices()))
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    int64_t rank = type.getRank();
    int64_t axis = normalized(op.getAxis(), rank);
    Value data = op.getData();
    Value axisSize = dimSize(rewriter, op.getLoc(), data, axis);
    MLIRContext *ctx = rewriter.getContext();
    Value init = emptyLike(rewriter, op.getLoc(), type.getShape(),
                           type.getElementType(), op.getIndices());
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type}, ValueRange{op.getIndices()},
        ValueRange{init},
        SmallVector<AffineMap>(2, AffineMap::getMultiDimIdentityMap(rank, ctx)),
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value index = wrapIndex(b, l, args[0], axisSize);
          SmallVector<Value> coords;
          for (int64_t i = 0; i < rank; ++i)
            coords.push_back(
                i == axis ? index : Value(linalg::IndexOp::create(b, l, i)));
          linalg::YieldOp::create(
              b, l, Value(tensor::ExtractOp::create(b, l, data, coords)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Range with a static length (its inputs constant, or fixed at compile
/// time): y[i] = start + i * delta, start and delta read at run time.
struct RangeLowering : OpRewritePattern<RangeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(RangeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape() || type.getRank() != 1 ||
        !isStatic(op.getStart()) || !isStatic(op.getDelta()))
      return rewriter.notifyMatchFailure(op, "needs a static length");
    Value result = buildElementwise(
        rewriter, op.getLoc(), ValueRange{op.getStart(), op.getDelta()}, type,
        op,
        [](OpBuilder &b, Location l, ValueRange a, Type t,
           Operation *) -> Value {
          Value i = linalg::IndexOp::create(b, l, 0);
          if (isa<FloatType>(t)) {
            Value fi = arith::UIToFPOp::create(
                b, l, t, arith::IndexCastOp::create(b, l, b.getI64Type(), i));
            return arith::AddFOp::create(b, l, a[0],
                                         arith::MulFOp::create(b, l, fi, a[1]));
          }
          Value ii = arith::IndexCastOp::create(b, l, t, i);
          return arith::AddIOp::create(b, l, a[0],
                                       arith::MulIOp::create(b, l, ii, a[1]));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// GatherND: a generic over the result; its body reads the index tuple at
/// the result's leading coordinates (negative from the back) and then the
/// data element it names.
struct GatherNDLowering : OpRewritePattern<GatherNDOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherNDOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto dataType = dyn_cast<RankedTensorType>(op.getData().getType());
    auto indicesType = dyn_cast<RankedTensorType>(op.getIndices().getType());
    if (!type || !type.hasStaticShape() || !dataType ||
        !dataType.hasStaticShape() || !indicesType ||
        !indicesType.hasStaticShape() || indicesType.getRank() < 1)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t batch = op.getBatchDims();
    int64_t tupleRank = indicesType.getRank() - 1;
    int64_t m = indicesType.getShape().back();
    if (batch < 0 || batch + m > dataType.getRank() || batch > tupleRank)
      return rewriter.notifyMatchFailure(op, "index tuples do not fit data");
    int64_t rank = type.getRank();
    Value data = op.getData(), indices = op.getIndices();
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                         type.getElementType());
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{
            AffineMap::getMultiDimIdentityMap(rank, getContext())},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> tuple;
          for (int64_t d = 0; d < tupleRank; ++d)
            tuple.push_back(linalg::IndexOp::create(b, l, d));
          SmallVector<Value> coords(tuple.begin(), tuple.begin() + batch);
          for (int64_t k = 0; k < m; ++k) {
            SmallVector<Value> at(tuple);
            at.push_back(arith::ConstantIndexOp::create(b, l, k));
            coords.push_back(
                wrapIndex(b, l, tensor::ExtractOp::create(b, l, indices, at),
                          dataType.getDimSize(batch + k)));
          }
          for (int64_t d = tupleRank; d < rank; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d));
          linalg::YieldOp::create(
              b, l, Value(tensor::ExtractOp::create(b, l, data, coords)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// TopK by ranks, in two generics: the rank of each element in its slice
/// (how many others come before it: larger (smaller) values, equal values
/// at lower indices), then for each of the k output positions the element
/// whose rank it is, with its index. n^2 compares per slice: no sort, all
/// linalg.
struct TopKLowering : OpRewritePattern<TopKOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TopKOp op,
                                PatternRewriter &rewriter) const override {
    auto xType = dyn_cast<RankedTensorType>(op.getX().getType());
    auto valuesType = dyn_cast<RankedTensorType>(op.getValues().getType());
    auto indicesType = dyn_cast<RankedTensorType>(op.getIndices().getType());
    if (!xType || !xType.hasStaticShape() || !valuesType ||
        !valuesType.hasStaticShape() || !indicesType ||
        !indicesType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t rank = xType.getRank();
    int64_t axis = normalized(op.getAxis(), rank);
    int64_t n = xType.getDimSize(axis);
    if (valuesType.getDimSize(axis) > n)
      return rewriter.notifyMatchFailure(op, "k larger than the axis");
    bool largest = op.getLargest() != 0;
    bool isFloatX = isa<FloatType>(xType.getElementType());
    MLIRContext *ctx = getContext();
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    // Loops: the tensor's dims, then j (the other element of the slice).
    SmallVector<AffineExpr> self, other;
    for (int64_t d = 0; d < rank; ++d) {
      self.push_back(getAffineDimExpr(d, ctx));
      other.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
    }
    auto ranksType = RankedTensorType::get(xType.getShape(), i64);
    Value zeros = linalg::FillOp::create(
                      rewriter, loc,
                      ValueRange{arith::ConstantOp::create(
                          rewriter, loc, rewriter.getI64IntegerAttr(0))},
                      ValueRange{tensor::EmptyOp::create(
                          rewriter, loc, xType.getShape(), i64)})
                      .getResult(0);
    SmallVector<utils::IteratorType> iterators(rank + 1,
                                               utils::IteratorType::parallel);
    iterators.back() = utils::IteratorType::reduction;
    Value ranks =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{ranksType},
            ValueRange{op.getX(), op.getX()}, ValueRange{zeros},
            SmallVector<AffineMap>{AffineMap::get(rank + 1, 0, self, ctx),
                                   AffineMap::get(rank + 1, 0, other, ctx),
                                   AffineMap::get(rank + 1, 0, self, ctx)},
            iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value mine = args[0], theirs = args[1];
              Value ahead, equal;
              if (isFloatX) {
                ahead =
                    arith::CmpFOp::create(b, l,
                                          largest ? arith::CmpFPredicate::OGT
                                                  : arith::CmpFPredicate::OLT,
                                          theirs, mine);
                equal = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                              theirs, mine);
              } else {
                ahead =
                    arith::CmpIOp::create(b, l,
                                          largest ? arith::CmpIPredicate::sgt
                                                  : arith::CmpIPredicate::slt,
                                          theirs, mine);
                equal = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                              theirs, mine);
              }
              Value before =
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                        linalg::IndexOp::create(b, l, rank),
                                        linalg::IndexOp::create(b, l, axis));
              Value counts = arith::OrIOp::create(
                  b, l, ahead, arith::AndIOp::create(b, l, equal, before));
              linalg::YieldOp::create(
                  b, l,
                  Value(arith::AddIOp::create(
                      b, l, args[2],
                      arith::ExtUIOp::create(b, l, i64, counts))));
            })
            .getResult(0);
    // Output position p along the axis takes the element of rank p.
    Value values = tensor::EmptyOp::create(rewriter, loc, valuesType.getShape(),
                                           valuesType.getElementType());
    Value indices = linalg::FillOp::create(
                        rewriter, loc,
                        ValueRange{arith::ConstantOp::create(
                            rewriter, loc, rewriter.getI64IntegerAttr(0))},
                        ValueRange{tensor::EmptyOp::create(
                            rewriter, loc, indicesType.getShape(), i64)})
                        .getResult(0);
    SmallVector<AffineExpr> output;
    for (int64_t d = 0; d < rank; ++d)
      output.push_back(getAffineDimExpr(d, ctx));
    auto picked = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valuesType, indicesType},
        ValueRange{op.getX(), ranks}, ValueRange{values, indices},
        SmallVector<AffineMap>{AffineMap::get(rank + 1, 0, other, ctx),
                               AffineMap::get(rank + 1, 0, other, ctx),
                               AffineMap::get(rank + 1, 0, output, ctx),
                               AffineMap::get(rank + 1, 0, output, ctx)},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value position = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value match = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                              args[1], position);
          Value from = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, rank));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, match, args[0], args[2]),
                         arith::SelectOp::create(b, l, match, from, args[3])});
        });
    rewriter.replaceOp(op, picked.getResults());
    return success();
  }
};

} // namespace

void mlir::dsmp::lowering::populateIndexingPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<ArgLowering<ArgMaxOp, true>, ArgLowering<ArgMinOp, false>,
           HardmaxLowering, CumSumLowering, TileLowering, DepthToSpaceLowering,
           SpaceToDepthLowering, GatherElementsLowering, RangeLowering,
           GatherNDLowering, TopKLowering>(patterns.getContext());
}
