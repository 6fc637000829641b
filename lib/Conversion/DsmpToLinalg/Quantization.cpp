//===- Quantization.cpp - QuantizeLinear and DequantizeLinear ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The per-tensor f8 Q/DQ pairs the precision passes put around an f8
// contraction's operands. LLVM has no f8 arithmetic (f8 tensors lower to
// i8 storage), so the codes are computed with integer ops, exactly as
// dsmp::formats::encode with saturation (round to nearest even, beyond the
// largest finite value -> that value), and decoded through a 256-entry
// table of their f32 values. Integer Q/DQ (u8, i8, u16, i16, i32; per
// tensor or per axis) compute in f64 and integers, exactly as ONNX's
// reference does.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/DsmpToLinalg/Common.h"

#include "dsmp/Support/SmallFloatTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dsmp;
using namespace mlir::dsmp::lowering;
namespace formats = ::dsmp::formats;

namespace {

/// Per-tensor quantization with a zero zero point (the form dsmp inserts).
LogicalResult checkPerTensor(Operation *op, Value scale, Value zp,
                             PatternRewriter &rewriter) {
  auto scaleType = dyn_cast<RankedTensorType>(scale.getType());
  if (!scaleType || !scaleType.hasStaticShape() ||
      scaleType.getNumElements() != 1 || !scaleType.getElementType().isF32())
    return rewriter.notifyMatchFailure(op, "needs one f32 scale");
  if (!isNoneOrZero(zp))
    return rewriter.notifyMatchFailure(op, "needs a zero zero point");
  if (op->getAttrOfType<IntegerAttr>("block_size") &&
      op->getAttrOfType<IntegerAttr>("block_size").getInt() != 0)
    return rewriter.notifyMatchFailure(op, "blocked quantization");
  return success();
}

/// The f8 code (in an i32) of the f32 `v`, saturating.
Value encode(OpBuilder &b, Location loc, Value v,
             const formats::SmallFloat &f) {
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto c = [&](int64_t x) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(x));
  };
  auto fc = [&](double x) -> Value { return floatConst(b, loc, f32, x); };
  int m = f.mantissaBits, width = 1 + f.exponentBits + f.mantissaBits;
  double largest = formats::decode(f, f.maxFinite);
  Value sign = arith::ShRUIOp::create(
      b, loc, arith::BitcastOp::create(b, loc, i32, v), c(31));
  Value a = arith::MinimumFOp::create(b, loc, math::AbsFOp::create(b, loc, v),
                                      fc(largest));
  Value bits = arith::BitcastOp::create(b, loc, i32, a);
  // Normal in f8: round the f32 mantissa to m bits, ties to even (a carry
  // moves into the exponent), then rebias the exponent.
  int shift = 23 - m;
  Value odd = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, c(shift)), c(1));
  Value rounded = arith::AddIOp::create(
      b, loc, bits,
      arith::AddIOp::create(b, loc, c((1 << (shift - 1)) - 1), odd));
  Value normal = arith::SubIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, rounded, c(shift)),
      c(int64_t(127 - f.bias) << m));
  // Subnormal in f8: a multiple of the smallest subnormal, exact in f32.
  Value scaled =
      arith::MulFOp::create(b, loc, a, fc(std::ldexp(1.0, f.bias - 1 + m)));
  Value subnormal = arith::FPToUIOp::create(
      b, loc, i32, math::RoundEvenOp::create(b, loc, scaled));
  Value isNormal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, a,
                                         fc(std::ldexp(1.0, 1 - f.bias)));
  Value code = arith::SelectOp::create(b, loc, isNormal, normal, subnormal);
  Value signBit = arith::ShLIOp::create(b, loc, sign, c(width - 1));
  Value signedCode = arith::OrIOp::create(b, loc, code, signBit);
  if (!f.hasNegZero) { // fnuz: zero has no sign (0x80 is NaN)
    Value isZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, code, c(0));
    signedCode = arith::SelectOp::create(b, loc, isZero, c(0), signedCode);
  }
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
  Value nan = arith::SelectOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, sign, c(0)),
      c(formats::nanCode(f, 1)), c(formats::nanCode(f, 0)));
  return arith::SelectOp::create(b, loc, isNaN, nan, signedCode);
}

/// y = f8(x / scale), saturating, per tensor.
struct QuantizeToF8 : OpRewritePattern<QuantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeLinearOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !resultType.hasStaticShape() || !isStatic(op.getX()))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    const formats::SmallFloat *f = smallFloatOf(resultType.getElementType());
    if (!f || !op.getSaturate())
      return rewriter.notifyMatchFailure(op, "only saturating f8 results");
    if (failed(
            checkPerTensor(op, op.getYScale(), op.getYZeroPoint(), rewriter)))
      return failure();
    Type element = resultType.getElementType();
    Value result = buildElementwise(
        rewriter, op.getLoc(), ValueRange{op.getX(), op.getYScale()},
        resultType, op,
        [&](OpBuilder &b, Location loc, ValueRange a, Type, Operation *) {
          Value q = arith::DivFOp::create(b, loc, a[0], a[1]);
          Value code = arith::TruncIOp::create(b, loc, b.getI8Type(),
                                               encode(b, loc, q, *f));
          return Value(arith::BitcastOp::create(b, loc, element, code));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// y = value(x) * scale, per tensor, the f8 values read from a table.
struct DequantizeFromF8 : OpRewritePattern<DequantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeLinearOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !resultType.hasStaticShape() || !isStatic(op.getX()) ||
        !resultType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs static f32 results");
    const formats::SmallFloat *f =
        smallFloatOf(getElementTypeOrSelf(op.getX().getType()));
    if (!f)
      return rewriter.notifyMatchFailure(op, "only f8 inputs");
    if (failed(
            checkPerTensor(op, op.getXScale(), op.getXZeroPoint(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    SmallVector<float> values;
    for (uint32_t code = 0; code < 256; ++code)
      values.push_back(formats::decode(*f, code));
    auto tableType = RankedTensorType::get({256}, rewriter.getF32Type());
    Value table = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(tableType, ArrayRef<float>(values)));
    Value result = buildElementwise(
        rewriter, loc, ValueRange{op.getX(), op.getXScale()}, resultType, op,
        [&](OpBuilder &b, Location l, ValueRange a, Type, Operation *) {
          Value code = arith::BitcastOp::create(b, l, b.getI8Type(), a[0]);
          Value index = arith::IndexCastUIOp::create(
              b, l, b.getIndexType(),
              arith::ExtUIOp::create(b, l, b.getI32Type(), code));
          Value x = tensor::ExtractOp::create(b, l, table, ValueRange{index});
          return Value(arith::MulFOp::create(b, l, x, a[1]));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};
/// A float scalar as f32 (a 16-bit one widened exactly).
Value toF32(OpBuilder &b, Location loc, Value v) {
  Type f32 = b.getF32Type();
  if (v.getType() == f32)
    return v;
  if (v.getType().getIntOrFloatBitWidth() < 32)
    return arith::ExtFOp::create(b, loc, f32, v);
  return arith::TruncFOp::create(b, loc, f32, v);
}

/// An f32 scalar as `type`, rounded once where that is narrower.
Value fromF32(OpBuilder &b, Location loc, Value v, Type type) {
  if (type == v.getType())
    return v;
  if (type.getIntOrFloatBitWidth() < 32)
    return arith::TruncFOp::create(b, loc, type, v);
  return arith::ExtFOp::create(b, loc, type, v);
}

/// A scale or zero point shaped to broadcast against `x` (rank `rank`):
/// per tensor as it is, per axis ([C]) as [1, .., C, .., 1].
FailureOr<Value> perAxisParameter(PatternRewriter &rewriter, Location loc,
                                  Value parameter, int64_t rank, int64_t axis) {
  auto type = dyn_cast<RankedTensorType>(parameter.getType());
  if (!type || !type.hasStaticShape())
    return failure();
  if (type.getNumElements() == 1 || type.getRank() == 0)
    return parameter;
  if (type.getRank() != 1)
    return failure();
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = type.getDimSize(0);
  return reshapeTo(rewriter, loc, parameter,
                   RankedTensorType::get(shape, type.getElementType()));
}

/// The scale and zero point (where there is one) of integer Q/DQ, shaped to
/// broadcast; fails on blocked quantization.
template <typename OpTy>
FailureOr<SmallVector<Value>> integerParameters(OpTy op, Value x, Value scale,
                                                Value zero,
                                                PatternRewriter &rewriter) {
  if (op.getBlockSize() != 0)
    return failure();
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t rank = xType.getRank();
  // The I64Attr getter is unsigned: a negative axis reads as a huge one.
  auto axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += rank;
  SmallVector<Value> params{x};
  for (Value v : {scale, zero}) {
    if (isa<NoneType>(v.getType()))
      continue;
    auto shaped = perAxisParameter(rewriter, op.getLoc(), v, rank, axis);
    if (failed(shaped))
      return failure();
    params.push_back(*shaped);
  }
  return params;
}

/// y = saturate(round_half_even(x / scale) + zero_point) into u8/i8/u16/
/// i16/i32, per tensor or per axis.
struct QuantizeToInteger : OpRewritePattern<QuantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeLinearOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    auto element = resultType
                       ? dyn_cast<IntegerType>(resultType.getElementType())
                       : IntegerType();
    if (!resultType || !resultType.hasStaticShape() || !isStatic(op.getX()) ||
        !element || element.getWidth() > 32)
      return rewriter.notifyMatchFailure(op, "needs a static small integer");
    auto params = integerParameters(op, op.getX(), op.getYScale(),
                                    op.getYZeroPoint(), rewriter);
    if (failed(params))
      return rewriter.notifyMatchFailure(op, "unsupported scale or zero point");
    bool isUnsigned = element.isUnsigned();
    unsigned bits = element.getWidth();
    double lo = isUnsigned ? 0 : -std::ldexp(1.0, bits - 1);
    double hi =
        isUnsigned ? std::ldexp(1.0, bits) - 1 : std::ldexp(1.0, bits - 1) - 1;
    bool zeroUnsigned =
        !isa<NoneType>(op.getYZeroPoint().getType()) &&
        getElementTypeOrSelf(op.getYZeroPoint().getType()).isUnsignedInteger();
    Value result = buildElementwise(
        rewriter, op.getLoc(), *params, resultType, op,
        [&](OpBuilder &b, Location l, ValueRange a, Type t, Operation *) {
          Type f64 = b.getF64Type();
          // x / scale in f32 (as ONNX's reference; a 16-bit x or scale
          // widened to it), then in f64: the rounding, the zero point and
          // the clamp are exact there.
          Value ratio =
              arith::DivFOp::create(b, l, toF32(b, l, a[0]), toF32(b, l, a[1]));
          Value q = arith::ExtFOp::create(b, l, f64, ratio);
          q = math::RoundEvenOp::create(b, l, q);
          if (a.size() > 2) {
            Value z = zeroUnsigned
                          ? Value(arith::UIToFPOp::create(b, l, f64, a[2]))
                          : Value(arith::SIToFPOp::create(b, l, f64, a[2]));
            q = arith::AddFOp::create(b, l, q, z);
          }
          q = arith::MaximumFOp::create(b, l, q, floatConst(b, l, f64, lo));
          q = arith::MinimumFOp::create(b, l, q, floatConst(b, l, f64, hi));
          Value wide = arith::FPToSIOp::create(b, l, b.getI64Type(), q);
          return Value(arith::TruncIOp::create(b, l, t, wide));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// y = (x - zero_point) * scale from integers, the difference exact.
struct DequantizeFromInteger : OpRewritePattern<DequantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeLinearOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    auto element =
        dyn_cast<IntegerType>(getElementTypeOrSelf(op.getX().getType()));
    if (!resultType || !resultType.hasStaticShape() || !isStatic(op.getX()) ||
        !element || element.getWidth() > 32 ||
        !isa<FloatType>(resultType.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs static integer inputs");
    auto params = integerParameters(op, op.getX(), op.getXScale(),
                                    op.getXZeroPoint(), rewriter);
    if (failed(params))
      return rewriter.notifyMatchFailure(op, "unsupported scale or zero point");
    bool isUnsigned = element.isUnsigned();
    Value result = buildElementwise(
        rewriter, op.getLoc(), *params, resultType, op,
        [&](OpBuilder &b, Location l, ValueRange a, Type t, Operation *) {
          Type i64 = b.getI64Type();
          auto widen = [&](Value v) -> Value {
            return isUnsigned ? Value(arith::ExtUIOp::create(b, l, i64, v))
                              : Value(arith::ExtSIOp::create(b, l, i64, v));
          };
          Value x = widen(a[0]);
          if (a.size() > 2)
            x = arith::SubIOp::create(b, l, x, widen(a[2]));
          // In f32, rounded once to a 16-bit result (a format assigned
          // to the op).
          Value f = arith::SIToFPOp::create(b, l, b.getF32Type(), x);
          Value y = arith::MulFOp::create(b, l, f, toF32(b, l, a[1]));
          return fromF32(b, l, y, t);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void mlir::dsmp::lowering::populateQuantizationPatterns(
    RewritePatternSet &patterns) {
  patterns.add<QuantizeToF8, DequantizeFromF8, QuantizeToInteger,
               DequantizeFromInteger>(patterns.getContext());
}
