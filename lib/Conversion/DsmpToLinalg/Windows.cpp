//===- Windows.cpp - Pooling and Resize -------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// MaxPool (with or without its Indices), AveragePool, GlobalAveragePool,
// GlobalMaxPool and Resize (nearest, linear, cubic).
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

/// Resize with mode "nearest" and static shapes: each output index maps to
/// an input index per axis, computed here from the scales (or sizes), the
/// coordinate transformation and the nearest rounding mode, exactly as the
/// ONNX reference does; the body reads the input there.
struct ResizeLowering : OpRewritePattern<ResizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ResizeOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    auto xType = dyn_cast<RankedTensorType>(op.getX().getType());
    if (!resultType || !resultType.hasStaticShape() || !xType ||
        !xType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    if (op.getMode() != "nearest" || op.getAxes())
      return rewriter.notifyMatchFailure(op, "only nearest without axes");
    StringRef transform = op.getCoordinateTransformationMode();
    StringRef rounding = op.getNearestMode();
    int64_t rank = xType.getRank();
    SmallVector<double> scales;
    DenseFPElementsAttr scaleAttr;
    if (matchPattern(op.getScales(), m_Constant(&scaleAttr))) {
      for (const APFloat &v : scaleAttr.getValues<APFloat>())
        scales.push_back(v.convertToDouble());
    } else {
      for (int64_t i = 0; i < rank; ++i)
        scales.push_back(double(resultType.getDimSize(i)) /
                         double(xType.getDimSize(i)));
    }
    if (static_cast<int64_t>(scales.size()) != rank)
      return rewriter.notifyMatchFailure(op, "needs constant scales or sizes");

    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    SmallVector<Value> tables;
    SmallVector<AffineMap> maps;
    for (int64_t axis = 0; axis < rank; ++axis) {
      int64_t in = xType.getDimSize(axis), out = resultType.getDimSize(axis);
      double scale = scales[axis];
      SmallVector<int64_t> index(out);
      for (int64_t o = 0; o < out; ++o) {
        double x;
        if (transform == "asymmetric")
          x = o / scale;
        else if (transform == "half_pixel")
          x = (o + 0.5) / scale - 0.5;
        else if (transform == "pytorch_half_pixel")
          x = out > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
        else if (transform == "align_corners")
          x = out == 1 ? 0.0 : o * double(in - 1) / double(out - 1);
        else if (transform == "tf_half_pixel_for_nn")
          x = (o + 0.5) / scale;
        else
          return rewriter.notifyMatchFailure(op, "coordinate mode");
        double i;
        if (rounding == "floor")
          i = std::floor(x);
        else if (rounding == "ceil")
          i = std::ceil(x);
        else if (rounding == "round_prefer_ceil")
          i = x == std::floor(x) + 0.5 ? std::ceil(x) : std::round(x);
        else
          i = x == std::floor(x) + 0.5 ? std::floor(x) : std::round(x);
        index[o] = std::clamp<int64_t>(static_cast<int64_t>(i), 0, in - 1);
      }
      auto tableType = RankedTensorType::get({out}, rewriter.getIndexType());
      tables.push_back(arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(tableType, ArrayRef<int64_t>(index))));
      maps.push_back(
          AffineMap::get(rank, 0, {getAffineDimExpr(axis, ctx)}, ctx));
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         resultType.getElementType());
    Value x = op.getX();
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{resultType}, tables, ValueRange{init},
            maps,
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value v = tensor::ExtractOp::create(b, l, x, args.drop_back());
              linalg::YieldOp::create(b, l, v);
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The input index that output index `o` of a nearest Resize reads along
/// an axis of `in` -> `out` elements at `scale` (f64): ResizeLowering's
/// arithmetic, in f64 with the same operations in the same order, clamped
/// to the input.
Value nearestIndex(OpBuilder &b, Location l, Value o, Value in, Value out,
                   Value scale, StringRef transform, StringRef rounding) {
  Type f64 = b.getF64Type();
  auto toF64 = [&](Value index) -> Value {
    return arith::SIToFPOp::create(
        b, l, f64, arith::IndexCastOp::create(b, l, b.getI64Type(), index));
  };
  auto constant = [&](double v) -> Value {
    return arith::ConstantOp::create(b, l, b.getF64FloatAttr(v));
  };
  auto add = [&](Value p, Value q) -> Value {
    return arith::AddFOp::create(b, l, p, q);
  };
  auto sub = [&](Value p, Value q) -> Value {
    return arith::SubFOp::create(b, l, p, q);
  };
  auto div = [&](Value p, Value q) -> Value {
    return arith::DivFOp::create(b, l, p, q);
  };
  Value x = toF64(o), half = constant(0.5);
  Value moreThanOne =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, out,
                            arith::ConstantIndexOp::create(b, l, 1));
  Value c;
  if (transform == "asymmetric") {
    c = div(x, scale);
  } else if (transform == "half_pixel") {
    c = sub(div(add(x, half), scale), half);
  } else if (transform == "pytorch_half_pixel") {
    c = arith::SelectOp::create(
        b, l, moreThanOne, sub(div(add(x, half), scale), half), constant(0));
  } else if (transform == "align_corners") {
    c = arith::SelectOp::create(
        b, l, moreThanOne,
        div(arith::MulFOp::create(b, l, x, sub(toF64(in), constant(1))),
            sub(toF64(out), constant(1))),
        constant(0));
  } else { // tf_half_pixel_for_nn
    c = div(add(x, half), scale);
  }
  Value lower = math::FloorOp::create(b, l, c);
  Value i;
  if (rounding == "floor") {
    i = lower;
  } else if (rounding == "ceil") {
    i = math::CeilOp::create(b, l, c);
  } else {
    Value tie = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, c,
                                      add(lower, half));
    Value broken = rounding == "round_prefer_ceil"
                       ? Value(math::CeilOp::create(b, l, c))
                       : lower;
    i = arith::SelectOp::create(b, l, tie, broken,
                                math::RoundOp::create(b, l, c));
  }
  Value at = arith::IndexCastOp::create(
      b, l, b.getIndexType(), arith::FPToSIOp::create(b, l, b.getI64Type(), i));
  Value last =
      arith::SubIOp::create(b, l, in, arith::ConstantIndexOp::create(b, l, 1));
  return arith::MinSIOp::create(
      b, l,
      arith::MaxSIOp::create(b, l, at, arith::ConstantIndexOp::create(b, l, 0)),
      last);
}

/// Resize with mode "nearest" over dims sized at run time (a dynamic
/// variant): ResizeLowering's index per axis, computed in the body in f64
/// with the same operations in the same order. Each output dim is
/// floor(input * scale) with constant scales, else read from `sizes`; an
/// axis with scale 1 reads through.
struct DynamicNearestResizeLowering : OpRewritePattern<ResizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ResizeOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    auto xType = dyn_cast<RankedTensorType>(op.getX().getType());
    if (!resultType || !xType || xType.getRank() != resultType.getRank())
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    if (resultType.hasStaticShape() && xType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "static: the static pattern");
    if (op.getMode() != "nearest" || op.getAxes() ||
        op.getKeepAspectRatioPolicy() != "stretch")
      return rewriter.notifyMatchFailure(op, "only nearest without axes");
    StringRef transform = op.getCoordinateTransformationMode();
    StringRef rounding = op.getNearestMode();
    if (!llvm::is_contained({"asymmetric", "half_pixel", "pytorch_half_pixel",
                             "align_corners", "tf_half_pixel_for_nn"},
                            transform))
      return rewriter.notifyMatchFailure(op, "coordinate mode");
    int64_t rank = xType.getRank();
    SmallVector<double> scales;
    DenseFPElementsAttr scaleAttr;
    bool hasSizes = !isa<NoneType>(op.getSizes().getType());
    if (matchPattern(op.getScales(), m_Constant(&scaleAttr)))
      for (const APFloat &v : scaleAttr.getValues<APFloat>())
        scales.push_back(v.convertToDouble());
    if (static_cast<int64_t>(scales.size()) != rank && !hasSizes)
      return rewriter.notifyMatchFailure(op, "needs constant scales or sizes");
    bool fromScales = static_cast<int64_t>(scales.size()) == rank;

    Location loc = op.getLoc();
    Type f64 = rewriter.getF64Type();
    auto toF64 = [&](OpBuilder &b, Location l, Value index) -> Value {
      return arith::SIToFPOp::create(
          b, l, f64, arith::IndexCastOp::create(b, l, b.getI64Type(), index));
    };
    auto constF64 = [&](OpBuilder &b, Location l, double v) -> Value {
      return arith::ConstantOp::create(b, l, b.getF64FloatAttr(v));
    };
    // Per axis: the input and output sizes, and the scale (f64).
    SmallVector<Value> inSizes, outSizes, scaleValues;
    SmallVector<OpFoldResult> sizes;
    SmallVector<bool> through;
    for (int64_t axis = 0; axis < rank; ++axis) {
      Value in = dimSize(rewriter, loc, op.getX(), axis);
      Value out;
      if (!resultType.isDynamicDim(axis))
        out = arith::ConstantIndexOp::create(rewriter, loc,
                                             resultType.getDimSize(axis));
      else if (fromScales)
        out = arith::FPToSIOp::create(
            rewriter, loc, rewriter.getI64Type(),
            math::FloorOp::create(
                rewriter, loc,
                arith::MulFOp::create(rewriter, loc, toF64(rewriter, loc, in),
                                      constF64(rewriter, loc, scales[axis]))));
      else
        out = tensor::ExtractOp::create(
            rewriter, loc, op.getSizes(),
            ValueRange{arith::ConstantIndexOp::create(rewriter, loc, axis)});
      if (!out.getType().isIndex())
        out = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(),
                                         out);
      inSizes.push_back(in);
      outSizes.push_back(out);
      sizes.push_back(out);
      scaleValues.push_back(
          fromScales ? constF64(rewriter, loc, scales[axis])
                     : Value(arith::DivFOp::create(rewriter, loc,
                                                   toF64(rewriter, loc, out),
                                                   toF64(rewriter, loc, in))));
      through.push_back(fromScales && scales[axis] == 1.0 &&
                        transform != "tf_half_pixel_for_nn");
    }
    // Per axis that does not read through, a table of the input index of
    // each output index (as ResizeLowering's constant ones), computed once.
    MLIRContext *ctx = getContext();
    SmallVector<Value> tables;
    SmallVector<AffineMap> maps;
    for (int64_t axis = 0; axis < rank; ++axis) {
      if (through[axis])
        continue;
      auto tableType = RankedTensorType::get({resultType.getDimSize(axis)},
                                             rewriter.getIndexType());
      tables.push_back(generateElements(
          rewriter, loc, tableType,
          [&](OpBuilder &b, Location l) -> Value {
            return nearestIndex(b, l, linalg::IndexOp::create(b, l, 0),
                                inSizes[axis], outSizes[axis],
                                scaleValues[axis], transform, rounding);
          },
          {sizes[axis]}));
      maps.push_back(
          AffineMap::get(rank, 0, {getAffineDimExpr(axis, ctx)}, ctx));
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    Value x = op.getX();
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{resultType}, tables,
            ValueRange{emptyOfSizes(rewriter, loc, resultType, sizes)}, maps,
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [&](OpBuilder &b, Location l, ValueRange args) {
              SmallVector<Value> coords;
              unsigned next = 0;
              for (int64_t axis = 0; axis < rank; ++axis)
                coords.push_back(
                    through[axis] ? Value(linalg::IndexOp::create(b, l, axis))
                                  : args[next++]);
              linalg::YieldOp::create(
                  b, l, Value(tensor::ExtractOp::create(b, l, x, coords)));
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A pooling generic's indexing over N, C, the output's spatial dims and
/// the window's: the padded input at o * stride + k * dilation, the kernel
/// window (an operand whose shape gives the loop bounds) and the output;
/// N, C and the output dims parallel, the window dims reductions.
struct PoolIndexing {
  AffineMap input, kernel, output;
  SmallVector<utils::IteratorType> iterators;
};

PoolIndexing poolIndexing(MLIRContext *ctx, const Window &window,
                          int64_t spatial) {
  unsigned loops = 2 + 2 * spatial;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> inExprs{d(0), d(1)}, outExprs{d(0), d(1)},
      kernelExprs;
  for (int64_t i = 0; i < spatial; ++i) {
    AffineExpr o = d(2 + i), k = d(2 + spatial + i);
    inExprs.push_back(o * window.strides[i] + k * window.dilations[i]);
    outExprs.push_back(o);
    kernelExprs.push_back(k);
  }
  PoolIndexing indexing{AffineMap::get(loops, 0, inExprs, ctx),
                        AffineMap::get(loops, 0, kernelExprs, ctx),
                        AffineMap::get(loops, 0, outExprs, ctx),
                        {loops, utils::IteratorType::reduction}};
  for (unsigned i = 0; i < 2 + spatial; ++i)
    indexing.iterators[i] = utils::IteratorType::parallel;
  return indexing;
}

/// A windowed reduction over the spatial dims: MaxPool (pads with -inf) and
/// AveragePool (zero pads counted only with count_include_pad, so pads need
/// it or must be zero). A dynamic variant's batch may be sized at run time,
/// and its window dims too where every window is whole (floor mode, and
/// an average that counts the pads or has none).
template <typename PoolOp, bool IsMax>
struct PoolLowering : OpRewritePattern<PoolOp> {
  using OpRewritePattern<PoolOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(PoolOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || !isRanked(op.getX()) || !isFloat(resultType))
      return rewriter.notifyMatchFailure(op, "needs ranked float shapes");
    if (op->getNumResults() > 1 && !isa<NoneType>(op->getResult(1).getType()))
      return rewriter.notifyMatchFailure(op, "MaxPool indices not lowered");
    int64_t spatial = resultType.getRank() - 2;
    auto xType = cast<RankedTensorType>(op.getX().getType());
    auto window = windowOf(op, spatial, {}, xType.getShape().drop_front(2),
                           resultType.getShape().drop_front(2));
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "unknown auto_pad");
    bool padded = llvm::any_of(window->pads, [](int64_t p) { return p; });
    bool dynamicWindow = false;
    for (int64_t i = 0; i < spatial; ++i)
      dynamicWindow |= resultType.isDynamicDim(2 + i) ||
                       xType.isDynamicDim(2 + i) || resultType.isDynamicDim(1);
    auto ceilMode = op->template getAttrOfType<IntegerAttr>("ceil_mode");
    if (dynamicWindow && ceilMode && ceilMode.getInt() != 0)
      return rewriter.notifyMatchFailure(op, "ceil_mode of run-time sizes");
    // ceil_mode: the last windows reach past the end padding; pad further
    // with the neutral value (they are not counted for the average).
    SmallVector<int64_t> padEnds(window->pads.begin() + spatial,
                                 window->pads.end());
    SmallVector<int64_t> inputPads = window->pads;
    bool ceilExtra = false;
    for (int64_t i = 0; i < spatial && !dynamicWindow; ++i) {
      int64_t reach = (resultType.getDimSize(2 + i) - 1) * window->strides[i] +
                      (window->kernel[i] - 1) * window->dilations[i] + 1;
      int64_t have = xType.getDimSize(2 + i) + window->pads[i] + padEnds[i];
      if (reach > have) {
        inputPads[spatial + i] += reach - have;
        ceilExtra = true;
      }
    }
    // AveragePool divides by the taps inside the input unless
    // count_include_pad is set (then by the whole window).
    bool countPads = false;
    if constexpr (!IsMax) {
      auto attr = op->template getAttrOfType<IntegerAttr>("count_include_pad");
      countPads = attr && attr.getInt() != 0;
      if (dynamicWindow && padded && !countPads)
        return rewriter.notifyMatchFailure(
            op, "taps per position of run-time sizes");
    }
    Location loc = op.getLoc();
    MLIRContext *ctx = this->getContext();
    Type element = resultType.getElementType();
    double padValue = IsMax ? -std::numeric_limits<double>::infinity() : 0.0;
    Value input = padSpatial(rewriter, loc, op.getX(), inputPads, padValue);
    SmallVector<OpFoldResult> sizes =
        windowResultSizes(rewriter, loc, input, resultType, window->kernel,
                          window->strides, window->dilations);
    PoolIndexing indexing = poolIndexing(ctx, *window, spatial);
    Value kernel =
        tensor::EmptyOp::create(rewriter, loc, window->kernel, element);
    SmallVector<AffineMap> maps = {indexing.input, indexing.kernel,
                                   indexing.output};
    SmallVector<utils::IteratorType> iterators = indexing.iterators;
    Value init = emptyOfSizes(rewriter, loc, resultType, sizes);
    init = linalg::FillOp::create(
               rewriter, loc,
               ValueRange{floatConst(rewriter, loc, element, padValue)},
               ValueRange{init})
               .getResult(0);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{resultType}, ValueRange{input, kernel},
            ValueRange{init}, maps, iterators,
            [](OpBuilder &b, Location l, ValueRange args) {
              Value v =
                  IsMax
                      ? Value(arith::MaximumFOp::create(b, l, args[2], args[0]))
                      : Value(arith::AddFOp::create(b, l, args[2], args[0]));
              linalg::YieldOp::create(b, l, v);
            })
            .getResult(0);
    if constexpr (!IsMax) {
      int64_t count = 1;
      for (int64_t k : window->kernel)
        count *= k;
      if ((padded && !countPads) || ceilExtra) {
        // Taps inside the input (or, with count_include_pad, inside the
        // padded input), per output position (spatial dims only), known at
        // compile time.
        ArrayRef<int64_t> outShape = resultType.getShape().drop_front(2);
        int64_t positions = 1;
        for (int64_t o : outShape)
          positions *= o;
        SmallVector<float> counts(positions);
        for (int64_t flat = 0; flat < positions; ++flat) {
          int64_t rest = flat, taps = 1;
          for (int64_t i = spatial - 1; i >= 0; --i) {
            int64_t o = rest % outShape[i];
            rest /= outShape[i];
            int64_t inside = 0;
            for (int64_t k = 0; k < window->kernel[i]; ++k) {
              int64_t at = o * window->strides[i] + k * window->dilations[i] -
                           window->pads[i];
              int64_t lo = countPads ? -window->pads[i] : 0;
              int64_t hi =
                  xType.getDimSize(2 + i) + (countPads ? padEnds[i] : 0);
              inside += at >= lo && at < hi;
            }
            taps *= inside;
          }
          counts[flat] = static_cast<float>(taps);
        }
        auto countType = RankedTensorType::get(outShape, element);
        // The counts (small integers) in the element type: exact in f16,
        // bf16 and f64 too.
        auto floatElement = dyn_cast<FloatType>(element);
        if (!floatElement)
          return rewriter.notifyMatchFailure(op, "non-float average");
        SmallVector<APFloat> countValues;
        for (float c : counts) {
          APFloat value(c);
          bool lost;
          value.convert(floatElement.getFloatSemantics(),
                        APFloat::rmNearestTiesToEven, &lost);
          countValues.push_back(value);
        }
        Value countTensor = arith::ConstantOp::create(
            rewriter, loc, DenseElementsAttr::get(countType, countValues));
        result = buildElementwise(
            rewriter, loc, ValueRange{result, countTensor}, resultType, op,
            [](OpBuilder &b, Location l, ValueRange a, Type, Operation *)
                -> Value { return arith::DivFOp::create(b, l, a[0], a[1]); });
      } else {
        result = buildElementwise(
            rewriter, loc, ValueRange{result}, resultType, op,
            [count](OpBuilder &b, Location l, ValueRange a, Type t,
                    Operation *) -> Value {
              return arith::DivFOp::create(b, l, a[0],
                                           floatConst(b, l, t, double(count)));
            });
      }
    }
    SmallVector<Value> replacements{result};
    if (op->getNumResults() > 1) // Indices is absent (`none`)
      replacements.push_back(NoneOp::create(rewriter, loc));
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

/// MaxPool with its Indices result, static shapes: one reduction that
/// carries the maximum and where it is, X flattened whole (N and C
/// included), row-major over the spatial dims or, with storage_order 1,
/// column-major; the first of tied maxima in window order wins, as
/// onnxruntime's kernel and the reference evaluator pick.
struct MaxPoolWithIndicesLowering : OpRewritePattern<MaxPoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaxPoolOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getY().getType());
    if (!resultType || !isRanked(op.getX()) || !isFloat(resultType))
      return rewriter.notifyMatchFailure(op, "needs ranked float shapes");
    if (isa<NoneType>(op.getIndices().getType()))
      return rewriter.notifyMatchFailure(op, "no indices (PoolLowering)");
    auto indexType = dyn_cast<RankedTensorType>(op.getIndices().getType());
    auto xType = cast<RankedTensorType>(op.getX().getType());
    if (!indexType || !resultType.hasStaticShape() || !xType.hasStaticShape() ||
        !indexType.getElementType().isInteger(64))
      return rewriter.notifyMatchFailure(op, "MaxPool indices of run-time "
                                             "sizes");
    int64_t spatial = resultType.getRank() - 2;
    auto window = windowOf(op, spatial, {}, xType.getShape().drop_front(2),
                           resultType.getShape().drop_front(2));
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "unknown auto_pad");
    // Pad so that every window, ceil_mode's last ones included, lies inside.
    SmallVector<int64_t> inputPads = window->pads;
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t reach = (resultType.getDimSize(2 + i) - 1) * window->strides[i] +
                      (window->kernel[i] - 1) * window->dilations[i] + 1;
      int64_t have =
          xType.getDimSize(2 + i) + inputPads[i] + inputPads[spatial + i];
      if (reach > have)
        inputPads[spatial + i] += reach - have;
    }
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Type element = resultType.getElementType();
    double lowest = -std::numeric_limits<double>::infinity();
    Value input = padSpatial(rewriter, loc, op.getX(), inputPads, lowest);
    PoolIndexing indexing = poolIndexing(ctx, *window, spatial);
    Value kernel =
        tensor::EmptyOp::create(rewriter, loc, window->kernel, element);
    SmallVector<AffineMap> maps = {indexing.input, indexing.kernel,
                                   indexing.output, indexing.output};
    Value values = linalg::FillOp::create(
                       rewriter, loc,
                       ValueRange{floatConst(rewriter, loc, element, lowest)},
                       ValueRange{tensor::EmptyOp::create(
                           rewriter, loc, resultType.getShape(), element)})
                       .getResult(0);
    Type i64 = indexType.getElementType();
    Value positions = linalg::FillOp::create(
                          rewriter, loc,
                          ValueRange{arith::ConstantOp::create(
                              rewriter, loc, rewriter.getIntegerAttr(i64, -1))},
                          ValueRange{tensor::EmptyOp::create(
                              rewriter, loc, indexType.getShape(), i64)})
                          .getResult(0);
    // Position strides of X's dims, the plane's in storage order.
    ArrayRef<int64_t> xShape = xType.getShape();
    bool columnMajor = op.getStorageOrder() != 0;
    SmallVector<int64_t> stride(2 + spatial, 1);
    for (int64_t i = spatial - 1, run = 1; i >= 0; --i) {
      int64_t at = columnMajor ? 2 + (spatial - 1 - i) : 2 + i;
      stride[at] = run;
      run *= xShape[at];
    }
    int64_t plane = 1;
    for (int64_t i = 0; i < spatial; ++i)
      plane *= xShape[2 + i];
    stride[1] = plane;
    stride[0] = plane * xShape[1];
    SmallVector<int64_t> padBegin(window->pads.begin(),
                                  window->pads.begin() + spatial);
    SmallVector<int64_t> strides = window->strides,
                         dilations = window->dilations;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType, indexType},
        ValueRange{input, kernel}, ValueRange{values, positions}, maps,
        indexing.iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          auto index = [&](int64_t dim) -> Value {
            return arith::IndexCastOp::create(
                b, l, i64, linalg::IndexOp::create(b, l, dim));
          };
          auto constant = [&](int64_t v) -> Value {
            return arith::ConstantOp::create(b, l, b.getIntegerAttr(i64, v));
          };
          // The tap's place in X: o * stride + k * dilation - pad per dim.
          Value flat = arith::AddIOp::create(
              b, l, arith::MulIOp::create(b, l, index(0), constant(stride[0])),
              arith::MulIOp::create(b, l, index(1), constant(stride[1])));
          for (int64_t i = 0; i < spatial; ++i) {
            Value coord = arith::AddIOp::create(
                b, l,
                arith::MulIOp::create(b, l, index(2 + i), constant(strides[i])),
                arith::MulIOp::create(b, l, index(2 + spatial + i),
                                      constant(dilations[i])));
            coord = arith::SubIOp::create(b, l, coord, constant(padBegin[i]));
            flat = arith::AddIOp::create(
                b, l, flat,
                arith::MulIOp::create(b, l, coord, constant(stride[2 + i])));
          }
          Value first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                              args[3], constant(0));
          Value larger = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT,
                                               args[0], args[2]);
          Value take = arith::OrIOp::create(b, l, first, larger);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, take, args[0], args[2]),
                         arith::SelectOp::create(b, l, take, flat, args[3])});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct GlobalAveragePoolLowering : OpRewritePattern<GlobalAveragePoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GlobalAveragePoolOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !isRanked(op.getX()) || !isFloat(resultType))
      return rewriter.notifyMatchFailure(op, "needs ranked float shapes");
    auto inType = cast<RankedTensorType>(op.getX().getType());
    SmallVector<int64_t> axes;
    for (int64_t i = 2; i < inType.getRank(); ++i)
      axes.push_back(i);
    Value sum = reduceKeepDims(rewriter, op.getLoc(), op.getX(), axes, false);
    // The count: a constant in the compute type, or computed at run time in
    // f32 (exact up to 2^24 elements) where a dim is dynamic.
    int64_t staticCount = 1;
    for (int64_t i : axes)
      staticCount *= inType.isDynamicDim(i) ? 1 : inType.getDimSize(i);
    Value count;
    if (llvm::any_of(axes, [&](int64_t i) { return inType.isDynamicDim(i); }))
      count = elementCount(rewriter, op.getLoc(), op.getX(), axes,
                           rewriter.getF32Type());
    Value mean = buildElementwise(
        rewriter, op.getLoc(), ValueRange{sum}, resultType, op,
        [count, staticCount](OpBuilder &b, Location l, ValueRange a, Type t,
                             Operation *) -> Value {
          Value divisor = count ? convertFloat(b, l, count, t)
                                : floatConst(b, l, t, double(staticCount));
          return arith::DivFOp::create(b, l, a[0], divisor);
        });
    rewriter.replaceOp(op, mean);
    return success();
  }
};
/// Resize with mode "linear" or "cubic" and static shapes, separable as in
/// ONNX's reference: for each output element and each axis whose size
/// changes, the source coordinate (from the scale, constant or read at run
/// time), its 2 or 4 taps (edges repeated) and their weights are computed in
/// f64, and the body sums the weight products times the input over every
/// combination of taps. An integral source coordinate takes the pixel on
/// its left with ratio 1, as the reference does; exclude_outside drops taps
/// outside the input and renormalizes.
struct ResizeInterpolateLowering : OpRewritePattern<ResizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ResizeOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    auto xType = dyn_cast<RankedTensorType>(op.getX().getType());
    if (!resultType || !resultType.hasStaticShape() || !xType ||
        !xType.hasStaticShape() || !isFloat(resultType))
      return rewriter.notifyMatchFailure(op, "needs static float shapes");
    StringRef mode = op.getMode();
    if ((mode != "linear" && mode != "cubic") || op.getAxes() ||
        op.getAntialias())
      return rewriter.notifyMatchFailure(op, "only linear/cubic, no axes");
    StringRef transform = op.getCoordinateTransformationMode();
    if (!llvm::is_contained(
            {"asymmetric", "half_pixel", "pytorch_half_pixel", "align_corners"},
            transform))
      return rewriter.notifyMatchFailure(op, "coordinate mode");
    int64_t rank = xType.getRank();
    Value scales = op.getScales();
    bool runtimeScales = !isa<NoneType>(scales.getType());
    SmallVector<double> constantScales;
    DenseFPElementsAttr scaleAttr;
    if (runtimeScales && matchPattern(scales, m_Constant(&scaleAttr))) {
      for (const APFloat &v : scaleAttr.getValues<APFloat>())
        constantScales.push_back(v.convertToDouble());
      runtimeScales = false;
    } else if (!runtimeScales) { // sizes: scale = size / input size
      for (int64_t i = 0; i < rank; ++i)
        constantScales.push_back(double(resultType.getDimSize(i)) /
                                 double(xType.getDimSize(i)));
    }
    if (!runtimeScales && static_cast<int64_t>(constantScales.size()) != rank)
      return rewriter.notifyMatchFailure(op, "scales of another rank");
    SmallVector<int64_t> axes;
    for (int64_t axis = 0; axis < rank; ++axis)
      if (xType.getDimSize(axis) != resultType.getDimSize(axis) ||
          (!runtimeScales && constantScales[axis] != 1.0))
        axes.push_back(axis);
    double a = op.getCubicCoeffA().convertToDouble();
    bool exclude = op.getExcludeOutside() != 0;
    int taps = mode == "linear" ? 2 : 4;

    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         resultType.getElementType());
    Value x = op.getX();
    Type element = resultType.getElementType();
    auto body = [&](OpBuilder &b, Location l, ValueRange) {
      Type f64 = b.getF64Type(), f32 = b.getF32Type();
      auto cst = [&](double v) { return floatConst(b, l, f64, v); };
      auto add = [&](Value p, Value q) -> Value {
        return arith::AddFOp::create(b, l, p, q);
      };
      auto sub = [&](Value p, Value q) -> Value {
        return arith::SubFOp::create(b, l, p, q);
      };
      auto mul = [&](Value p, Value q) -> Value {
        return arith::MulFOp::create(b, l, p, q);
      };
      SmallVector<Value> position;
      for (int64_t d = 0; d < rank; ++d)
        position.push_back(linalg::IndexOp::create(b, l, d));
      // Per interpolated axis: the taps' indices and weights.
      SmallVector<SmallVector<Value, 4>> tapIndex, tapWeight;
      for (int64_t axis : axes) {
        int64_t in = xType.getDimSize(axis);
        Value scale;
        if (runtimeScales) {
          Value at = arith::ConstantIndexOp::create(b, l, axis);
          Value given = tensor::ExtractOp::create(b, l, scales, ValueRange{at});
          scale = arith::ExtFOp::create(b, l, f64, given);
        } else {
          scale = cst(constantScales[axis]);
        }
        Value o = arith::UIToFPOp::create(
            b, l, f64,
            arith::IndexCastOp::create(b, l, b.getI64Type(), position[axis]));
        Value outWidth = mul(scale, cst(double(in)));
        Value coord;
        if (transform == "asymmetric")
          coord = arith::DivFOp::create(b, l, o, scale);
        else if (transform == "align_corners") {
          Value one = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                            outWidth, cst(1));
          Value general = arith::DivFOp::create(
              b, l, mul(o, cst(double(in - 1))), sub(outWidth, cst(1)));
          coord = arith::SelectOp::create(b, l, one, cst(0), general);
        } else {
          coord = sub(arith::DivFOp::create(b, l, add(o, cst(0.5)), scale),
                      cst(0.5));
          if (transform == "pytorch_half_pixel") {
            Value one = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                              outWidth, cst(1));
            coord = arith::SelectOp::create(b, l, one, cst(0), coord);
          }
        }
        Value f = math::FloorOp::create(b, l, coord);
        Value r = sub(coord, f);
        Value integral =
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, r, cst(0));
        f = arith::SelectOp::create(b, l, integral, sub(f, cst(1)), f);
        r = arith::SelectOp::create(b, l, integral, cst(1), r);
        SmallVector<Value, 4> c;
        if (taps == 2) {
          c = {sub(cst(1), r), r};
        } else {
          auto farCoeff = [&](Value t) -> Value { // |t| in [1, 2)
            return sub(
                mul(add(mul(sub(mul(cst(a), t), cst(5 * a)), t), cst(8 * a)),
                    t),
                cst(4 * a));
          };
          auto nearCoeff = [&](Value t) -> Value { // |t| in [0, 1]
            return add(mul(mul(sub(mul(cst(a + 2), t), cst(a + 3)), t), t),
                       cst(1));
          };
          Value s = sub(cst(1), r);
          c = {farCoeff(add(r, cst(1))), nearCoeff(r), nearCoeff(s),
               farCoeff(add(s, cst(1)))};
        }
        Value first = sub(f, cst(taps == 4 ? 1 : 0));
        SmallVector<Value, 4> indices;
        Value kept = cst(0);
        for (int t = 0; t < taps; ++t) {
          Value k = add(first, cst(t));
          if (exclude) {
            Value inside = arith::AndIOp::create(
                b, l,
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, k,
                                      cst(0)),
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, k,
                                      cst(double(in - 1))));
            c[t] = arith::SelectOp::create(b, l, inside, c[t], cst(0));
          }
          kept = add(kept, c[t]);
          Value clamped = arith::MinimumFOp::create(
              b, l, arith::MaximumFOp::create(b, l, k, cst(0)),
              cst(double(in - 1)));
          indices.push_back(arith::IndexCastOp::create(
              b, l, b.getIndexType(),
              arith::FPToSIOp::create(b, l, b.getI64Type(), clamped)));
        }
        if (exclude)
          for (Value &w : c)
            w = arith::DivFOp::create(b, l, w, kept);
        tapIndex.push_back(indices);
        tapWeight.push_back(c);
      }
      int64_t combinations = 1;
      for (size_t k = 0; k < axes.size(); ++k)
        combinations *= taps;
      Value sum = cst(0);
      for (int64_t combo = 0; combo < combinations; ++combo) {
        SmallVector<Value> coords(position);
        Value w = cst(1);
        int64_t rest = combo;
        for (size_t k = 0; k < axes.size(); ++k) {
          coords[axes[k]] = tapIndex[k][rest % taps];
          w = mul(w, tapWeight[k][rest % taps]);
          rest /= taps;
        }
        Value v = tensor::ExtractOp::create(b, l, x, coords);
        v = v.getType() == f64 ? v : Value(arith::ExtFOp::create(b, l, f64, v));
        sum = add(sum, mul(w, v));
      }
      Value y = arith::TruncFOp::create(b, l, f32, sum);
      if (element != f32)
        y = convertFloat(b, l, y, element);
      linalg::YieldOp::create(b, l, y);
    };
    Value result = linalg::GenericOp::create(
                       rewriter, loc, TypeRange{resultType}, ValueRange{},
                       ValueRange{init},
                       SmallVector<AffineMap>{
                           AffineMap::getMultiDimIdentityMap(rank, ctx)},
                       SmallVector<utils::IteratorType>(
                           rank, utils::IteratorType::parallel),
                       body)
                       .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// GlobalMaxPool: the maximum over the spatial dims.
struct GlobalMaxPoolLowering : OpRewritePattern<GlobalMaxPoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GlobalMaxPoolOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !isRanked(op.getX()) || !isFloat(resultType))
      return rewriter.notifyMatchFailure(op, "needs ranked float shapes");
    auto inType = cast<RankedTensorType>(op.getX().getType());
    SmallVector<int64_t> axes;
    for (int64_t i = 2; i < inType.getRank(); ++i)
      axes.push_back(i);
    rewriter.replaceOp(op, reduceKeepDims(rewriter, op.getLoc(), op.getX(),
                                          axes, Combine::Max));
    return success();
  }
};

} // namespace

void mlir::dsmp::lowering::populateWindowPatterns(RewritePatternSet &patterns) {
  patterns.add<PoolLowering<MaxPoolOp, true>,
               PoolLowering<AveragePoolOp, false>, MaxPoolWithIndicesLowering,
               GlobalAveragePoolLowering, GlobalMaxPoolLowering, ResizeLowering,
               DynamicNearestResizeLowering, ResizeInterpolateLowering>(
      patterns.getContext());
}
