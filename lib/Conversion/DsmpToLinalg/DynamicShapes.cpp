//===- DynamicShapes.cpp - Shape ops sized at run time ----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The ops whose result sizes are values, not types, once a model keeps its
// dynamic dims (dsmp-specialize-shapes{keep-dynamic}, the dynamic variant of
// an artifact): Shape reads dims, Reshape, Expand, ConstantOfShape and Range
// size their results from tensors computed at run time, Slice takes its
// bounds from them, Squeeze, Unsqueeze and Flatten regroup dynamic dims.
// Each pattern here matches only what the static patterns decline
// (docs/dynamic-shapes.md).
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/DsmpToLinalg/Common.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/ShapeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::dsmp;
using namespace mlir::dsmp::lowering;

namespace {

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Element `k` of the 1-D integer tensor `values` as an index.
Value elementAsIndex(OpBuilder &b, Location loc, Value values, int64_t k) {
  Value element = tensor::ExtractOp::create(b, loc, values,
                                            ValueRange{indexConst(b, loc, k)});
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), element);
}

/// The index values `sizes` as a 1-D i64 tensor (tensor.reshape's shape).
Value shapeTensor(OpBuilder &b, Location loc, ArrayRef<Value> sizes) {
  SmallVector<Value> elements;
  for (Value size : sizes)
    elements.push_back(
        arith::IndexCastOp::create(b, loc, b.getI64Type(), size));
  return tensor::FromElementsOp::create(b, loc, elements);
}

Value maxIndex(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MaxSIOp::create(b, loc, x, y);
}

Value minIndex(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MinSIOp::create(b, loc, x, y);
}

/// Shape of a tensor with dynamic dims: its dims [start, end) read at run
/// time.
struct DynamicShapeLowering : OpRewritePattern<ShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getData().getType());
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !resultType || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    int64_t rank = type.getRank();
    auto clampDim = [&](int64_t d) {
      return std::clamp<int64_t>(d < 0 ? d + rank : d, 0, rank);
    };
    int64_t start = clampDim(op.getStart());
    int64_t end = op.getEnd() ? clampDim(*op.getEnd()) : rank;
    if (resultType.getDimSize(0) != std::max<int64_t>(end - start, 0))
      return rewriter.notifyMatchFailure(op, "result length differs");
    Location loc = op.getLoc();
    SmallVector<Value> sizes;
    for (int64_t d = start; d < end; ++d)
      sizes.push_back(dimSize(rewriter, loc, op.getData(), d));
    if (sizes.empty()) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, DenseIntElementsAttr::get(resultType, ArrayRef<int64_t>{}));
      return success();
    }
    rewriter.replaceOp(op, shapeTensor(rewriter, loc, sizes));
    return success();
  }
};

/// Reshape to a shape computed at run time (or to a dynamic result): each
/// dim read from the shape tensor, 0 copying the input's dim (unless
/// allowzero) and -1 taking what the others leave.
struct DynamicReshapeLowering : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto inType = dyn_cast<RankedTensorType>(op.getData().getType());
    auto shapeType = dyn_cast<RankedTensorType>(op.getShape().getType());
    if (!type || !inType || !shapeType || !shapeType.hasStaticShape() ||
        shapeType.getRank() != 1 || shapeType.getDimSize(0) != type.getRank())
      return rewriter.notifyMatchFailure(op, "needs a ranked result");
    if (type.hasStaticShape() && inType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "static: the static pattern");
    Location loc = op.getLoc();
    Value zero = indexConst(rewriter, loc, 0);
    Value one = indexConst(rewriter, loc, 1);
    Value minusOne = indexConst(rewriter, loc, -1);
    Value count = one;
    for (int64_t d = 0; d < inType.getRank(); ++d)
      count = arith::MulIOp::create(rewriter, loc, count,
                                    dimSize(rewriter, loc, op.getData(), d));
    // The given dims (0 resolved), and the product of those that are not -1.
    SmallVector<Value> given;
    Value known = one;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value size = elementAsIndex(rewriter, loc, op.getShape(), d);
      if (!op.getAllowzero() && d < inType.getRank()) {
        Value isZero = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq, size, zero);
        size = arith::SelectOp::create(rewriter, loc, isZero,
                                       dimSize(rewriter, loc, op.getData(), d),
                                       size);
      }
      Value inferred = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, size, minusOne);
      known = arith::MulIOp::create(
          rewriter, loc, known,
          arith::SelectOp::create(rewriter, loc, inferred, one, size));
      given.push_back(size);
    }
    // -1: the count over the others (max 1 divisor: an empty tensor).
    Value rest = arith::DivSIOp::create(rewriter, loc, count,
                                        maxIndex(rewriter, loc, known, one));
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d)) {
        sizes.push_back(indexConst(rewriter, loc, type.getDimSize(d)));
        continue;
      }
      Value inferred = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, given[d], minusOne);
      sizes.push_back(
          arith::SelectOp::create(rewriter, loc, inferred, rest, given[d]));
    }
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(
        op, type, op.getData(), shapeTensor(rewriter, loc, sizes));
    return success();
  }
};

/// Squeeze, Unsqueeze and Flatten of a tensor with dynamic dims: the
/// result's dims from the input's (Squeeze and Unsqueeze drop or add unit
/// dims; Flatten multiplies the dims before and after its axis).
struct DynamicRegroupLowering : RewritePattern {
  DynamicRegroupLowering(StringRef opName, MLIRContext *ctx)
      : RewritePattern(opName, 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    Value input = op->getOperand(0);
    auto inType = dyn_cast<RankedTensorType>(input.getType());
    if (!type || !inType)
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    if (type.hasStaticShape() && inType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "static: the static pattern");
    Location loc = op->getLoc();
    if (auto flatten = dyn_cast<FlattenOp>(op)) {
      int64_t axis = flatten.getAxis();
      if (axis < 0)
        axis += inType.getRank();
      Value outer = indexConst(rewriter, loc, 1),
            inner = indexConst(rewriter, loc, 1);
      for (int64_t d = 0; d < inType.getRank(); ++d) {
        Value &product = d < axis ? outer : inner;
        product = arith::MulIOp::create(rewriter, loc, product,
                                        dimSize(rewriter, loc, input, d));
      }
      rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(
          op, type, input, shapeTensor(rewriter, loc, {outer, inner}));
      return success();
    }
    // Squeeze and Unsqueeze: the non-unit dims in order, unit dims between.
    SmallVector<Value> kept;
    for (int64_t d = 0; d < inType.getRank(); ++d)
      if (inType.getDimSize(d) != 1)
        kept.push_back(dimSize(rewriter, loc, input, d));
    SmallVector<Value> sizes;
    size_t next = 0;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (type.getDimSize(d) == 1) {
        sizes.push_back(indexConst(rewriter, loc, 1));
        continue;
      }
      if (next >= kept.size())
        return rewriter.notifyMatchFailure(op, "dims do not line up");
      sizes.push_back(kept[next++]);
    }
    if (next != kept.size())
      return rewriter.notifyMatchFailure(op, "dims do not line up");
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(
        op, type, input, shapeTensor(rewriter, loc, sizes));
    return success();
  }
};

/// Slice whose bounds or data are sized at run time, positive constant
/// steps and constant axes: the bounds read, made positive and clamped as
/// ONNX says, then one tensor.extract_slice.
struct DynamicSliceLowering : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto inType = dyn_cast<RankedTensorType>(op.getData().getType());
    auto startsType = dyn_cast<RankedTensorType>(op.getStarts().getType());
    if (!type || !inType || !startsType || !startsType.hasStaticShape() ||
        startsType.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    bool constantBounds =
        getConstantInts(op.getStarts()) && getConstantInts(op.getEnds());
    if (constantBounds && type.hasStaticShape() && inType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "static: the static pattern");
    int64_t count = startsType.getDimSize(0);
    std::optional<SmallVector<int64_t>> axes, steps;
    if (!isa<NoneType>(op.getAxes().getType()) &&
        !(axes = getConstantInts(op.getAxes())))
      return rewriter.notifyMatchFailure(op, "needs constant axes");
    if (!isa<NoneType>(op.getSteps().getType()) &&
        !(steps = getConstantInts(op.getSteps())))
      return rewriter.notifyMatchFailure(op, "needs constant steps");
    int64_t rank = inType.getRank();
    Location loc = op.getLoc();
    Value zero = indexConst(rewriter, loc, 0);
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (int64_t d = 0; d < rank; ++d) {
      offsets.push_back(rewriter.getIndexAttr(0));
      sizes.push_back(tensor::getMixedSize(rewriter, loc, op.getData(), d));
      strides.push_back(rewriter.getIndexAttr(1));
    }
    for (int64_t i = 0; i < count; ++i) {
      int64_t axis = axes ? (*axes)[i] : i;
      if (axis < 0)
        axis += rank;
      int64_t step = steps ? (*steps)[i] : 1;
      if (axis < 0 || axis >= rank || step <= 0)
        return rewriter.notifyMatchFailure(
            op, "needs axes in range and positive steps");
      Value size = dimSize(rewriter, loc, op.getData(), axis);
      auto bound = [&](Value given) {
        Value negative = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::slt, given, zero);
        Value positive = arith::SelectOp::create(
            rewriter, loc, negative,
            arith::AddIOp::create(rewriter, loc, given, size), given);
        return minIndex(rewriter, loc, maxIndex(rewriter, loc, positive, zero),
                        size);
      };
      Value start = bound(elementAsIndex(rewriter, loc, op.getStarts(), i));
      Value end = bound(elementAsIndex(rewriter, loc, op.getEnds(), i));
      // ceil((end - start) / step), at least 0.
      Value span =
          maxIndex(rewriter, loc,
                   arith::SubIOp::create(rewriter, loc, end, start), zero);
      Value length = arith::CeilDivSIOp::create(
          rewriter, loc, span, indexConst(rewriter, loc, step));
      offsets[axis] = start;
      sizes[axis] = length;
      strides[axis] = rewriter.getIndexAttr(step);
    }
    auto slice = tensor::ExtractSliceOp::create(rewriter, loc, op.getData(),
                                                offsets, sizes, strides);
    Value result = slice.getResult();
    if (result.getType() != type)
      result = tensor::CastOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Expand to a shape computed at run time, or from an input whose dims are
/// sized at run time: each result dim is the shape's unless the input's is
/// larger than 1 (ONNX broadcasting, decided at run time), and each element
/// reads the input at 0 along the dims of size 1.
struct DynamicExpandLowering : OpRewritePattern<ExpandOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ExpandOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto inType = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto shapeType = dyn_cast<RankedTensorType>(op.getShape().getType());
    if (!type || !inType || !shapeType || !shapeType.hasStaticShape() ||
        shapeType.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    if (type.hasStaticShape() && inType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "static: the static pattern");
    int64_t rank = type.getRank(), inRank = inType.getRank();
    int64_t given = shapeType.getDimSize(0);
    if (inRank > rank || given > rank)
      return rewriter.notifyMatchFailure(op, "ranks do not line up");
    Location loc = op.getLoc();
    Value one = indexConst(rewriter, loc, 1);
    Value input = op.getInput();
    // Right-aligned: result dim d meets input dim d - (rank - inRank) and
    // shape element d - (rank - given).
    SmallVector<Value> sizes, broadcast(rank);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t i = d - (rank - inRank), s = d - (rank - given);
      Value fromShape =
          s >= 0 ? elementAsIndex(rewriter, loc, op.getShape(), s) : one;
      if (i < 0) {
        sizes.push_back(type.isDynamicDim(d)
                            ? fromShape
                            : indexConst(rewriter, loc, type.getDimSize(d)));
        continue;
      }
      Value inSize = dimSize(rewriter, loc, input, i);
      broadcast[d] = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, inSize, one);
      sizes.push_back(type.isDynamicDim(d)
                          ? Value(arith::SelectOp::create(
                                rewriter, loc, broadcast[d], fromShape, inSize))
                          : indexConst(rewriter, loc, type.getDimSize(d)));
    }
    Value init =
        emptyOfSizes(rewriter, loc, type, getAsOpFoldResult(ValueRange(sizes)));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{
            AffineMap::getMultiDimIdentityMap(rank, getContext())},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> coords;
          Value zero = indexConst(b, l, 0);
          for (int64_t d = rank - inRank; d < rank; ++d)
            coords.push_back(arith::SelectOp::create(
                b, l, broadcast[d], zero, linalg::IndexOp::create(b, l, d)));
          linalg::YieldOp::create(
              b, l, Value(tensor::ExtractOp::create(b, l, input, coords)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// ConstantOfShape of a shape computed at run time: a filled tensor.
struct DynamicConstantOfShapeLowering : OpRewritePattern<ConstantOfShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConstantOfShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "static: the static pattern");
    TypedAttr fill;
    if (auto value = op.getValue())
      fill = cast<TypedAttr>(
          cast<DenseElementsAttr>(*value).getSplatValue<Attribute>());
    else
      fill = rewriter.getZeroAttr(type.getElementType());
    if (fill.getType() != type.getElementType())
      return rewriter.notifyMatchFailure(op, "value type mismatch");
    Location loc = op.getLoc();
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      sizes.push_back(elementAsIndex(rewriter, loc, op.getInput(), d));
    Value init =
        emptyOfSizes(rewriter, loc, type, getAsOpFoldResult(ValueRange(sizes)));
    Value value = arith::ConstantOp::create(rewriter, loc, fill);
    rewriter.replaceOp(
        op, linalg::FillOp::create(rewriter, loc, value, init).getResult(0));
    return success();
  }
};

/// Range whose length is known at run time only: max(ceil((limit - start)
/// / delta), 0) elements start + i * delta.
struct DynamicRangeLowering : OpRewritePattern<RangeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(RangeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || type.hasStaticShape() || type.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "static: the static pattern");
    Location loc = op.getLoc();
    Type element = type.getElementType();
    auto scalar = [&](Value v) {
      return tensor::ExtractOp::create(rewriter, loc, v, ValueRange{});
    };
    Value start = scalar(op.getStart()), limit = scalar(op.getLimit()),
          delta = scalar(op.getDelta());
    Value length;
    if (isa<FloatType>(element)) {
      Value steps = math::CeilOp::create(
          rewriter, loc,
          arith::DivFOp::create(
              rewriter, loc, arith::SubFOp::create(rewriter, loc, limit, start),
              delta));
      length = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getIndexType(),
          arith::FPToSIOp::create(rewriter, loc, rewriter.getI64Type(), steps));
    } else {
      Value steps = arith::CeilDivSIOp::create(
          rewriter, loc, arith::SubIOp::create(rewriter, loc, limit, start),
          delta);
      length = arith::IndexCastOp::create(rewriter, loc,
                                          rewriter.getIndexType(), steps);
    }
    length = maxIndex(rewriter, loc, length, indexConst(rewriter, loc, 0));
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         element, ValueRange{length});
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{
            AffineMap::getMultiDimIdentityMap(1, getContext())},
        SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
        [&](OpBuilder &b, Location l, ValueRange) {
          Value i = linalg::IndexOp::create(b, l, 0);
          Value y;
          if (isa<FloatType>(element)) {
            Value fi = arith::SIToFPOp::create(
                b, l, element,
                arith::IndexCastOp::create(b, l, b.getI64Type(), i));
            y = arith::AddFOp::create(b, l, start,
                                      arith::MulFOp::create(b, l, fi, delta));
          } else {
            Value ii = arith::IndexCastOp::create(b, l, element, i);
            y = arith::AddIOp::create(b, l, start,
                                      arith::MulIOp::create(b, l, ii, delta));
          }
          linalg::YieldOp::create(b, l, y);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// A DFT's table for a length known at run time only (FNet's sequence in a
/// dynamic variant): element [n * parts + q][2k + p] is cos or -+sin of
/// 2 pi ((k n) mod N) / N (times 1 / N for the inverse), computed in f64 as
/// buildDftTable computes the constant (dialects/Dsmp/IR/DftTable.h).
struct DynamicDftTableLowering : OpRewritePattern<DftTableOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DftTableOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !isa<Float32Type, Float16Type, BFloat16Type, Float64Type>(
                     type.getElementType()))
      return rewriter.notifyMatchFailure(op, "tables of f64, f32, f16 or bf16");
    Location loc = op.getLoc();
    auto lengthType = cast<RankedTensorType>(op.getLength().getType());
    SmallVector<Value> zeros(lengthType.getRank(),
                             indexConst(rewriter, loc, 0));
    Value length = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getIndexType(),
        tensor::ExtractOp::create(rewriter, loc, op.getLength(), zeros));
    int64_t parts = static_cast<int64_t>(op.getParts());
    Value rows = arith::MulIOp::create(rewriter, loc, length,
                                       indexConst(rewriter, loc, parts));
    // Bins 0..N/2 of a onesided table, else N; two parts each.
    Value bins = op.getOnesided()
                     ? arith::AddIOp::create(
                           rewriter, loc,
                           arith::DivUIOp::create(rewriter, loc, length,
                                                  indexConst(rewriter, loc, 2)),
                           indexConst(rewriter, loc, 1))
                     : length;
    Value columns = arith::MulIOp::create(rewriter, loc, bins,
                                          indexConst(rewriter, loc, 2));
    SmallVector<Value> sizes;
    if (type.isDynamicDim(0))
      sizes.push_back(rows);
    if (type.isDynamicDim(1))
      sizes.push_back(columns);
    Type element = type.getElementType();
    Value init =
        tensor::EmptyOp::create(rewriter, loc, type.getShape(), element, sizes);
    bool inverse = op.getInverse();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{
            AffineMap::getMultiDimIdentityMap(2, getContext())},
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          auto index = [&](int64_t v) { return indexConst(b, l, v); };
          Value i = linalg::IndexOp::create(b, l, 0);
          Value j = linalg::IndexOp::create(b, l, 1);
          Value n = arith::DivUIOp::create(b, l, i, index(parts));
          Value q = arith::RemUIOp::create(b, l, i, index(parts));
          Value k = arith::DivUIOp::create(b, l, j, index(2));
          Value p = arith::RemUIOp::create(b, l, j, index(2));
          Value m = arith::RemUIOp::create(
              b, l, arith::MulIOp::create(b, l, k, n), length);
          auto toF64 = [&](Value v) {
            return arith::UIToFPOp::create(
                b, l, b.getF64Type(),
                arith::IndexCastUIOp::create(b, l, b.getI64Type(), v));
          };
          Value size = toF64(length);
          Value angle = arith::DivFOp::create(
              b, l,
              arith::MulFOp::create(
                  b, l, toF64(m),
                  arith::ConstantOp::create(
                      b, l, b.getF64FloatAttr(2.0 * llvm::numbers::pi))),
              size);
          Value c = math::CosOp::create(b, l, angle);
          Value s = math::SinOp::create(b, l, angle);
          if (inverse) {
            c = arith::DivFOp::create(b, l, c, size);
            s = arith::NegFOp::create(b, l,
                                      arith::DivFOp::create(b, l, s, size));
          }
          // q == p: cos; q = 0, p = 1: -sin; q = 1, p = 0: sin.
          Value same =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, q, p);
          Value realIn = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                               q, index(0));
          Value sine = arith::SelectOp::create(
              b, l, realIn, arith::NegFOp::create(b, l, s), s);
          Value v = arith::SelectOp::create(b, l, same, c, sine);
          if (!element.isF64())
            v = arith::TruncFOp::create(b, l, element, v);
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::dsmp::lowering::populateDynamicShapePatterns(
    RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns
      .add<DynamicShapeLowering, DynamicReshapeLowering, DynamicSliceLowering,
           DynamicExpandLowering, DynamicConstantOfShapeLowering,
           DynamicRangeLowering, DynamicDftTableLowering>(ctx);
  for (StringRef name : {"dsmp.flatten", "dsmp.squeeze", "dsmp.unsqueeze"})
    patterns.add<DynamicRegroupLowering>(name, ctx);
}
