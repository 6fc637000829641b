//===- Normalization.cpp - Softmax, reductions, norms -----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Softmax, LogSoftmax, the Reduce family, BatchNormalization,
// LayerNormalization, InstanceNormalization, MeanVarianceNormalization.
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

/// Softmax along one axis, exp(x - max) / sum(exp(x - max)), and
/// LogSoftmax, (x - max) - log(sum(exp(x - max))).
template <typename OpTy, bool Log>
struct SoftmaxLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !isRanked(op.getInput()) || !isFloat(type))
      return rewriter.notifyMatchFailure(op, "needs a ranked float tensor");
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += type.getRank();
    Location loc = op.getLoc();
    Value max = reduceKeepDims(rewriter, loc, op.getInput(), {axis}, true);
    auto sub = [](OpBuilder &b, Location l, ValueRange a, Type,
                  Operation *) -> Value {
      return math::ExpOp::create(b, l, arith::SubFOp::create(b, l, a[0], a[1]));
    };
    Value e = buildElementwise(rewriter, loc, ValueRange{op.getInput(), max},
                               type, op, sub);
    Value sum = reduceKeepDims(rewriter, loc, e, {axis}, false);
    Value result;
    if constexpr (Log)
      result = buildElementwise(
          rewriter, loc, ValueRange{op.getInput(), max, sum}, type, op,
          [](OpBuilder &b, Location l, ValueRange a, Type,
             Operation *) -> Value {
            return arith::SubFOp::create(
                b, l, arith::SubFOp::create(b, l, a[0], a[1]),
                math::LogOp::create(b, l, a[2]));
          });
    else
      result =
          buildElementwise(rewriter, loc, ValueRange{e, sum}, type, op,
                           [](OpBuilder &b, Location l, ValueRange a, Type,
                              Operation *) -> Value {
                             return arith::DivFOp::create(b, l, a[0], a[1]);
                           });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The Reduce family over constant (or no) axes: each element mapped
/// first (x^2, |x|, exp x), combined, then the result mapped (mean, sqrt,
/// log), in the result's float type; Sum, Max, Min and Prod also on
/// integers.
enum class ReduceKind {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  SumSquare,
  L1,
  L2,
  LogSum,
  LogSumExp
};

template <typename ReduceOp, ReduceKind Kind>
struct ReduceLowering : OpRewritePattern<ReduceOp> {
  using OpRewritePattern<ReduceOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    auto inType = dyn_cast<RankedTensorType>(op.getData().getType());
    if (!resultType || !inType)
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    // Integer data: the kinds whose integer meaning is exact.
    constexpr bool integerKind =
        Kind == ReduceKind::Sum || Kind == ReduceKind::Max ||
        Kind == ReduceKind::Min || Kind == ReduceKind::Prod;
    if (!isFloat(resultType) &&
        !(integerKind && isa<IntegerType>(resultType.getElementType()) &&
          resultType.getElementType().getIntOrFloatBitWidth() > 1))
      return rewriter.notifyMatchFailure(
          op, "needs float data (integer data: Sum, Max, Min or Prod)");
    int64_t rank = inType.getRank();
    SmallVector<int64_t> axes;
    if (!isa<NoneType>(op.getAxes().getType())) {
      auto values = getConstantInts(op.getAxes());
      if (!values)
        return rewriter.notifyMatchFailure(op, "needs constant axes");
      for (int64_t a : *values)
        axes.push_back(a < 0 ? a + rank : a);
    }
    Location loc = op.getLoc();
    auto map = [&](Value v, auto fn) -> Value {
      return buildElementwise(
          rewriter, loc, ValueRange{v}, cast<RankedTensorType>(v.getType()), op,
          [fn](OpBuilder &b, Location l, ValueRange a, Type t,
               Operation *) -> Value { return fn(b, l, a[0], t); });
    };
    auto square = [](OpBuilder &b, Location l, Value x, Type) -> Value {
      return arith::MulFOp::create(b, l, x, x);
    };
    auto abs = [](OpBuilder &b, Location l, Value x, Type) -> Value {
      return math::AbsFOp::create(b, l, x);
    };
    auto exp = [](OpBuilder &b, Location l, Value x, Type) -> Value {
      return math::ExpOp::create(b, l, x);
    };
    auto sqrt = [](OpBuilder &b, Location l, Value x, Type) -> Value {
      return math::SqrtOp::create(b, l, x);
    };
    auto log = [](OpBuilder &b, Location l, Value x, Type) -> Value {
      return math::LogOp::create(b, l, x);
    };
    Value data = op.getData();
    if (Kind == ReduceKind::SumSquare || Kind == ReduceKind::L2)
      data = map(data, square);
    else if (Kind == ReduceKind::L1)
      data = map(data, abs);
    else if (Kind == ReduceKind::LogSumExp)
      data = map(data, exp);
    // The map applied to the combined values.
    auto finish = [&](Value v) -> Value {
      if (Kind == ReduceKind::L2)
        return map(v, sqrt);
      if (Kind == ReduceKind::LogSum || Kind == ReduceKind::LogSumExp)
        return map(v, log);
      return v;
    };
    if (axes.empty()) {
      // No axes: all of them, or none with noop_with_empty_axes (the
      // elementwise parts still apply, as in ONNX's reference).
      if (op.getNoopWithEmptyAxes()) {
        Value result = reshapeTo(rewriter, loc, finish(data), resultType);
        if (!result)
          return op.emitOpError("changes dims of dynamic size");
        rewriter.replaceOp(op, result);
        return success();
      }
      for (int64_t i = 0; i < rank; ++i)
        axes.push_back(i);
    }
    Combine combine = Kind == ReduceKind::Max    ? Combine::Max
                      : Kind == ReduceKind::Min  ? Combine::Min
                      : Kind == ReduceKind::Prod ? Combine::Mul
                                                 : Combine::Add;
    Value reduced = reduceKeepDims(rewriter, loc, data, axes, combine);
    if (Kind == ReduceKind::Mean) {
      Value count = elementCount(rewriter, loc, op.getData(), axes,
                                 rewriter.getF32Type());
      reduced = map(
          reduced, [count](OpBuilder &b, Location l, Value x, Type t) -> Value {
            return arith::DivFOp::create(b, l, x, convertFloat(b, l, count, t));
          });
    }
    Value result = reshapeTo(rewriter, loc, finish(reduced), resultType);
    if (!result)
      return op.emitOpError("drops dims of dynamic size");
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Inference BatchNormalization: (x - mean) * scale / sqrt(var + eps) + B,
/// the per-channel parameters read along dim 1. A 16-bit X (or result)
/// computes in f32 and rounds once, its parameters f32 or not.
struct BatchNormLowering : OpRewritePattern<BatchNormalizationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormalizationOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !isRanked(op.getX()) || !isFloat(type))
      return rewriter.notifyMatchFailure(op, "needs ranked float shapes");
    MLIRContext *ctx = getContext();
    int64_t rank = type.getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap channel =
        AffineMap::get(rank, 0, {getAffineDimExpr(1, ctx)}, ctx);
    double eps = op.getEpsilon().convertToDouble();
    Value init = emptyLike(rewriter, op.getLoc(), type.getShape(),
                           type.getElementType(), op.getX());
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type},
        ValueRange{op.getX(), op.getScale(), op.getB(), op.getInputMean(),
                   op.getInputVar()},
        ValueRange{init}, {id, channel, channel, channel, channel, id},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [eps, type](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> a(args.begin(), args.begin() + 5); // not Y
          Type t = a[0].getType();
          bool widen = llvm::any_of(
              a, [&](Value v) { return v.getType() != a[0].getType(); });
          widen |= isNarrowFloat(t);
          if (widen) {
            t = b.getF32Type();
            for (Value &v : a)
              if (v.getType() != t)
                v = arith::ExtFOp::create(b, l, t, v);
          }
          Value centered = arith::SubFOp::create(b, l, a[0], a[3]);
          Value std = math::SqrtOp::create(
              b, l,
              arith::AddFOp::create(b, l, a[4], floatConst(b, l, t, eps)));
          Value scaled = arith::DivFOp::create(
              b, l, arith::MulFOp::create(b, l, centered, a[1]), std);
          Value y = arith::AddFOp::create(b, l, scaled, a[2]);
          if (y.getType() != type.getElementType())
            y = arith::TruncFOp::create(b, l, type.getElementType(), y);
          linalg::YieldOp::create(b, l, y);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// The mean of x over `axes` (kept as size-1 dims), x - mean, and the
/// variance: the normalizations' shared part.
struct Moments {
  Value mean, centered, variance;
};
Moments moments(PatternRewriter &rewriter, Location loc, Value x,
                ArrayRef<int64_t> axes, Operation *op) {
  auto type = cast<RankedTensorType>(x.getType());
  Value count = elementCount(rewriter, loc, x, axes, rewriter.getF32Type());
  auto divide = [count](OpBuilder &b, Location l, ValueRange a, Type t,
                        Operation *) -> Value {
    return arith::DivFOp::create(b, l, a[0], convertFloat(b, l, count, t));
  };
  Value sum = reduceKeepDims(rewriter, loc, x, axes, false);
  auto keptType = cast<RankedTensorType>(sum.getType());
  Value mean =
      buildElementwise(rewriter, loc, ValueRange{sum}, keptType, op, divide);
  Value centered = buildElementwise(
      rewriter, loc, ValueRange{x, mean}, type, op,
      [](OpBuilder &b, Location l, ValueRange a, Type, Operation *) -> Value {
        return arith::SubFOp::create(b, l, a[0], a[1]);
      });
  Value squares = buildElementwise(
      rewriter, loc, ValueRange{centered}, type, op,
      [](OpBuilder &b, Location l, ValueRange a, Type, Operation *) -> Value {
        return arith::MulFOp::create(b, l, a[0], a[0]);
      });
  Value variance = buildElementwise(
      rewriter, loc,
      ValueRange{reduceKeepDims(rewriter, loc, squares, axes, false)}, keptType,
      op, divide);
  return {mean, centered, variance};
}

/// (centered / sqrt(variance + eps)) * scale + bias, elementwise with
/// broadcasting: the instance and group normalizations' last step.
Value scaleNormalized(PatternRewriter &rewriter, Location loc, Value centered,
                      Value variance, Value scale, Value bias, double eps,
                      RankedTensorType type, Operation *op) {
  return buildElementwise(
      rewriter, loc, ValueRange{centered, variance, scale, bias}, type, op,
      [eps](OpBuilder &b, Location l, ValueRange a, Type t,
            Operation *) -> Value {
        Value std = math::SqrtOp::create(
            b, l, arith::AddFOp::create(b, l, a[1], floatConst(b, l, t, eps)));
        Value n = arith::DivFOp::create(b, l, a[0], std);
        return arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, n, a[2]),
                                     a[3]);
      });
}

/// InstanceNormalization: each [N, C] plane normalized over its spatial
/// dims, then scale[c] * x + B[c].
struct InstanceNormLowering : OpRewritePattern<InstanceNormalizationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(InstanceNormalizationOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    // The batch and spatial dims may be sized at run time; the channels not.
    if (!type || type.getRank() < 3 || type.isDynamicDim(1) ||
        !isRanked(op.getInput()) || !isStatic(op.getScale()) ||
        !isStatic(op.getB()))
      return rewriter.notifyMatchFailure(op, "needs static channels");
    int64_t rank = type.getRank();
    SmallVector<int64_t> axes;
    for (int64_t i = 2; i < rank; ++i)
      axes.push_back(i);
    Location loc = op.getLoc();
    auto [mean, centered, variance] =
        moments(rewriter, loc, op.getInput(), axes, op);
    // scale and B are [C]: as [C, 1, ..] they broadcast from the right.
    SmallVector<int64_t> perChannel(rank - 1, 1);
    perChannel[0] = type.getDimSize(1);
    auto channelType = RankedTensorType::get(perChannel, type.getElementType());
    Value scale = reshapeTo(rewriter, loc, op.getScale(), channelType);
    Value bias = reshapeTo(rewriter, loc, op.getB(), channelType);
    double eps = op.getEpsilon().convertToDouble();
    rewriter.replaceOp(op, scaleNormalized(rewriter, loc, centered, variance,
                                           scale, bias, eps, type, op));
    return success();
  }
};

/// GroupNormalization: x [N, C, ...] viewed as [N, G, C/G, ...] (an
/// expand_shape), each group normalized over its channels and spatial dims,
/// then scale and bias: per channel (opset 21, [C], seen as [G, C/G, 1..])
/// or per group (opset 18, [G], seen as [G, 1, ..]); collapsed back.
struct GroupNormLowering : OpRewritePattern<GroupNormalizationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GroupNormalizationOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape() || type.getRank() < 2 ||
        !isStatic(op.getScale()) || !isStatic(op.getBias()))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t rank = type.getRank(), channels = type.getDimSize(1);
    int64_t groups = op.getNumGroups();
    if (groups < 1 || channels % groups)
      return rewriter.notifyMatchFailure(op, "channels not a multiple of "
                                             "num_groups");
    int64_t perGroup = channels / groups;
    int64_t scaleSize =
        cast<RankedTensorType>(op.getScale().getType()).getNumElements();
    if (scaleSize != channels && scaleSize != groups)
      return rewriter.notifyMatchFailure(op, "scale is neither [C] nor [G]");
    Location loc = op.getLoc();
    SmallVector<int64_t> grouped{type.getDimSize(0), groups, perGroup};
    SmallVector<ReassociationIndices> reassociation{{0}, {1, 2}};
    for (int64_t d = 2; d < rank; ++d) {
      grouped.push_back(type.getDimSize(d));
      reassociation.push_back({d + 1});
    }
    auto groupedType = RankedTensorType::get(grouped, type.getElementType());
    Value x = expand(rewriter, loc, op.getX(), groupedType, reassociation);
    SmallVector<int64_t> axes;
    for (int64_t d = 2; d < rank + 1; ++d)
      axes.push_back(d);
    auto [mean, centered, variance] = moments(rewriter, loc, x, axes, op);
    // scale and bias broadcast from the right over [N, G, C/G, ...].
    SmallVector<int64_t> affineShape(rank, 1);
    affineShape[0] = groups;
    if (scaleSize == channels)
      affineShape[1] = perGroup;
    auto affineType = RankedTensorType::get(affineShape, type.getElementType());
    Value scale = reshapeTo(rewriter, loc, op.getScale(), affineType);
    Value bias = reshapeTo(rewriter, loc, op.getBias(), affineType);
    double eps = op.getEpsilon().convertToDouble();
    Value y = scaleNormalized(rewriter, loc, centered, variance, scale, bias,
                              eps, groupedType, op);
    rewriter.replaceOp(
        op, collapse(rewriter, loc, y, type.getShape(), reassociation));
    return success();
  }
};

/// MeanVarianceNormalization: (x - mean) / sqrt(var + 1e-9) over `axes`
/// (default [0, 2, 3]), as ONNX's function body computes it.
struct MeanVarianceNormLowering
    : OpRewritePattern<MeanVarianceNormalizationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MeanVarianceNormalizationOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    int64_t rank = type.getRank();
    SmallVector<int64_t> axes;
    if (auto given = op.getAxes())
      for (int64_t a : *given)
        axes.push_back(a < 0 ? a + rank : a);
    else
      axes = {0, 2, 3};
    if (llvm::any_of(axes, [&](int64_t a) { return a < 0 || a >= rank; }))
      return rewriter.notifyMatchFailure(op, "axes outside the rank");
    Location loc = op.getLoc();
    auto [mean, centered, variance] =
        moments(rewriter, loc, op.getX(), axes, op);
    rewriter.replaceOp(
        op,
        buildElementwise(
            rewriter, loc, ValueRange{centered, variance}, type, op,
            [](OpBuilder &b, Location l, ValueRange a, Type t,
               Operation *) -> Value {
              Value std = math::SqrtOp::create(
                  b, l,
                  arith::AddFOp::create(b, l, a[1], floatConst(b, l, t, 1e-9)));
              return arith::DivFOp::create(b, l, a[0], std);
            }));
    return success();
  }
};

/// LayerNormalization (Y only): normalize over the dims from `axis` on.
struct LayerNormLowering : OpRewritePattern<LayerNormalizationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LayerNormalizationOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getY().getType());
    if (!type || !isRanked(op.getX()) || !isFloat(type))
      return rewriter.notifyMatchFailure(op, "needs ranked shapes");
    // Mean and InvStdDev, when asked for, have the keepdims shape.
    for (Value extra : {op.getMean(), op.getInvStdDev()})
      if (!isa<NoneType>(extra.getType()) && !isRanked(extra))
        return rewriter.notifyMatchFailure(op, "needs ranked Mean/InvStdDev");
    int64_t rank = type.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis()); // I64Attr: uint64_t
    if (axis < 0)
      axis += rank;
    SmallVector<int64_t> axes;
    for (int64_t i = axis; i < rank; ++i)
      axes.push_back(i);
    Location loc = op.getLoc();
    auto [mean, centered, variance] =
        moments(rewriter, loc, op.getX(), axes, op);
    double eps = op.getEpsilon().convertToDouble();
    SmallVector<Value> inputs{centered, variance, op.getScale()};
    bool hasBias = !isa<NoneType>(op.getB().getType());
    if (hasBias)
      inputs.push_back(op.getB());
    Value y = buildElementwise(
        rewriter, loc, inputs, type, op,
        [eps, hasBias](OpBuilder &b, Location l, ValueRange a, Type t,
                       Operation *) -> Value {
          Value std = math::SqrtOp::create(
              b, l,
              arith::AddFOp::create(b, l, a[1], floatConst(b, l, t, eps)));
          Value v = arith::MulFOp::create(
              b, l, arith::DivFOp::create(b, l, a[0], std), a[2]);
          return hasBias ? Value(arith::AddFOp::create(b, l, v, a[3])) : v;
        });
    // Mean and InvStdDev: the statistics (in the stats' type), or fresh
    // `none` values where they are absent.
    SmallVector<Value> results{y};
    Value none;
    for (auto [extra, value] : {std::make_pair(op.getMean(), mean),
                                std::make_pair(op.getInvStdDev(), variance)}) {
      if (isa<NoneType>(extra.getType())) {
        if (!none)
          none = NoneOp::create(rewriter, loc);
        results.push_back(none);
        continue;
      }
      auto statType = cast<RankedTensorType>(extra.getType());
      bool invStd = extra == op.getInvStdDev();
      Value stat = buildElementwise(
          rewriter, loc, ValueRange{value}, statType, op,
          [eps, invStd](OpBuilder &b, Location l, ValueRange a, Type t,
                        Operation *) -> Value {
            Value x = a[0];
            if (x.getType() != t)
              x = convertFloat(b, l, x, t);
            if (!invStd)
              return x;
            Value std = math::SqrtOp::create(
                b, l, arith::AddFOp::create(b, l, x, floatConst(b, l, t, eps)));
            return arith::DivFOp::create(b, l, floatConst(b, l, t, 1.0), std);
          });
      results.push_back(stat);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// LRN: one generic over the result; its body sums the squares of the
/// `size` channels around its own (reads outside [0, C) count 0), in f32,
/// and divides: x / (bias + alpha / size * sum)^beta.
struct LRNLowering : OpRewritePattern<LRNOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LRNOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape() || type.getRank() < 2 || !isFloat(type))
      return rewriter.notifyMatchFailure(op, "needs a static float tensor");
    int64_t size = op.getSize();
    if (size < 1)
      return rewriter.notifyMatchFailure(op, "size below 1");
    int64_t rank = type.getRank(), channels = type.getDimSize(1);
    int64_t back = (size - 1) / 2;
    double alpha = op.getAlpha().convertToFloat(),
           beta = op.getBeta().convertToFloat(),
           bias = op.getBias().convertToFloat();
    Value x = op.getX();
    Type f32 = rewriter.getF32Type();
    Type element = type.getElementType();
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                         element);
    auto identity = AffineMap::getMultiDimIdentityMap(rank, getContext());
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type}, ValueRange{x}, ValueRange{init},
        SmallVector<AffineMap>{identity, identity},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < rank; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d));
          Value c = coords[1];
          Value zero = floatConst(b, l, f32, 0);
          Value sum = zero;
          Value first = arith::ConstantIndexOp::create(b, l, 0);
          Value last = arith::ConstantIndexOp::create(b, l, channels - 1);
          for (int64_t w = 0; w < size; ++w) {
            Value channel = arith::AddIOp::create(
                b, l, c, arith::ConstantIndexOp::create(b, l, w - back));
            Value inside = arith::AndIOp::create(
                b, l,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, channel,
                                      first),
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle, channel,
                                      last));
            SmallVector<Value> at(coords);
            at[1] = arith::MinSIOp::create(
                b, l, arith::MaxSIOp::create(b, l, channel, first), last);
            Value v =
                convertFloat(b, l, tensor::ExtractOp::create(b, l, x, at), f32);
            Value square = arith::MulFOp::create(b, l, v, v);
            sum = arith::AddFOp::create(
                b, l, sum, arith::SelectOp::create(b, l, inside, square, zero));
          }
          Value scale = arith::AddFOp::create(
              b, l, floatConst(b, l, f32, bias),
              arith::MulFOp::create(b, l, floatConst(b, l, f32, alpha / size),
                                    sum));
          Value y = arith::DivFOp::create(
              b, l, convertFloat(b, l, args[0], f32),
              math::PowFOp::create(b, l, scale, floatConst(b, l, f32, beta)));
          linalg::YieldOp::create(b, l, convertFloat(b, l, y, element));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::dsmp::lowering::populateNormalizationPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<LRNLowering, GroupNormLowering, SoftmaxLowering<SoftmaxOp, false>,
           SoftmaxLowering<LogSoftmaxOp, true>,
           ReduceLowering<ReduceSumOp, ReduceKind::Sum>,
           ReduceLowering<ReduceMeanOp, ReduceKind::Mean>,
           ReduceLowering<ReduceMaxOp, ReduceKind::Max>,
           ReduceLowering<ReduceMinOp, ReduceKind::Min>,
           ReduceLowering<ReduceProdOp, ReduceKind::Prod>,
           ReduceLowering<ReduceSumSquareOp, ReduceKind::SumSquare>,
           ReduceLowering<ReduceL1Op, ReduceKind::L1>,
           ReduceLowering<ReduceL2Op, ReduceKind::L2>,
           ReduceLowering<ReduceLogSumOp, ReduceKind::LogSum>,
           ReduceLowering<ReduceLogSumExpOp, ReduceKind::LogSumExp>,
           BatchNormLowering, LayerNormLowering, InstanceNormLowering,
           MeanVarianceNormLowering>(patterns.getContext());
}
