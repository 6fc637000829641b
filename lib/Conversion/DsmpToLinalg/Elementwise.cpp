//===- Elementwise.cpp - Elementwise dsmp ops to linalg.generic -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Arithmetic, activations, comparisons, Where, Clip, Cast: one
// linalg.generic each, with ONNX broadcasting.
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

/// Lowers any elementwise dsmp op named `opName` with `body`. `none`
/// operands (absent optional inputs) are dropped before the body sees them.
struct ElementwiseLowering : RewritePattern {
  ElementwiseLowering(StringRef opName, BodyFn body, MLIRContext *ctx)
      : RewritePattern(opName, /*benefit=*/1, ctx), body(std::move(body)) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a ranked result");
    SmallVector<Value> inputs;
    for (Value operand : op->getOperands()) {
      if (isa<NoneType>(operand.getType()))
        continue;
      if (!isRanked(operand))
        return rewriter.notifyMatchFailure(op, "needs ranked operands");
      inputs.push_back(operand);
    }
    Value result =
        buildElementwise(rewriter, op->getLoc(), inputs, resultType, op, body);
    rewriter.replaceOp(op, result);
    return success();
  }

  BodyFn body;
};

/// A binary float/integer op body; UIntOp for unsigned operands.
template <typename FloatOp, typename IntOp, typename UIntOp = IntOp>
BodyFn binary() {
  return [](OpBuilder &b, Location loc, ValueRange args, Type t,
            Operation *op) -> Value {
    if (isa<FloatType>(t))
      return FloatOp::create(b, loc, args[0], args[1]);
    if (hasUnsignedOperand(op))
      return UIntOp::create(b, loc, args[0], args[1]);
    return IntOp::create(b, loc, args[0], args[1]);
  };
}

/// A left fold of a binary op over all args (Max, Min, Sum).
template <typename FloatOp, typename IntOp, typename UIntOp = IntOp>
BodyFn fold() {
  return [](OpBuilder &b, Location loc, ValueRange args, Type t,
            Operation *op) -> Value {
    bool isUnsigned = hasUnsignedOperand(op);
    Value acc = args[0];
    for (Value v : args.drop_front())
      acc = isa<FloatType>(t) ? Value(FloatOp::create(b, loc, acc, v))
            : isUnsigned      ? Value(UIntOp::create(b, loc, acc, v))
                              : Value(IntOp::create(b, loc, acc, v));
    return acc;
  };
}

template <typename MathOp> BodyFn unary() {
  return [](OpBuilder &b, Location loc, ValueRange args, Type,
            Operation *) -> Value { return MathOp::create(b, loc, args[0]); };
}

template <arith::CmpFPredicate FP, arith::CmpIPredicate IP,
          arith::CmpIPredicate UP = IP>
BodyFn compare() {
  return [](OpBuilder &b, Location loc, ValueRange args, Type,
            Operation *op) -> Value {
    if (isa<FloatType>(args[0].getType()))
      return arith::CmpFOp::create(b, loc, FP, args[0], args[1]);
    return arith::CmpIOp::create(b, loc, hasUnsignedOperand(op) ? UP : IP,
                                 args[0], args[1]);
  };
}

void addElementwisePatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  auto add = [&](StringRef name, BodyFn fn) {
    patterns.add<ElementwiseLowering>(name, std::move(fn), ctx);
  };
  add("dsmp.add", binary<arith::AddFOp, arith::AddIOp>());
  add("dsmp.sub", binary<arith::SubFOp, arith::SubIOp>());
  add("dsmp.mul", binary<arith::MulFOp, arith::MulIOp>());
  add("dsmp.div", binary<arith::DivFOp, arith::DivSIOp, arith::DivUIOp>());
  add("dsmp.max", fold<arith::MaximumFOp, arith::MaxSIOp, arith::MaxUIOp>());
  add("dsmp.min", fold<arith::MinimumFOp, arith::MinSIOp, arith::MinUIOp>());
  add("dsmp.sum", fold<arith::AddFOp, arith::AddIOp>());
  add("dsmp.exp", unary<math::ExpOp>());
  add("dsmp.log", unary<math::LogOp>());
  add("dsmp.sqrt", unary<math::SqrtOp>());
  add("dsmp.tanh", unary<math::TanhOp>());
  add("dsmp.erf", unary<math::ErfOp>());
  add("dsmp.sin", unary<math::SinOp>());
  add("dsmp.cos", unary<math::CosOp>());
  add("dsmp.floor", unary<math::FloorOp>());
  add("dsmp.ceil", unary<math::CeilOp>());
  add("dsmp.abs",
      [](OpBuilder &b, Location loc, ValueRange a, Type t,
         Operation *) -> Value {
        if (isa<FloatType>(t))
          return math::AbsFOp::create(b, loc, a[0]);
        return math::AbsIOp::create(b, loc, a[0]);
      });
  add("dsmp.neg",
      [](OpBuilder &b, Location loc, ValueRange a, Type t,
         Operation *) -> Value {
        if (isa<FloatType>(t))
          return arith::NegFOp::create(b, loc, a[0]);
        Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 0));
        return arith::SubIOp::create(b, loc, zero, a[0]);
      });
  add("dsmp.relu",
      [](OpBuilder &b, Location loc, ValueRange a, Type t,
         Operation *) -> Value {
        if (isa<FloatType>(t))
          return arith::MaximumFOp::create(b, loc, a[0],
                                           floatConst(b, loc, t, 0));
        Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 0));
        return arith::MaxSIOp::create(b, loc, a[0], zero);
      });
  add("dsmp.reciprocal",
      [](OpBuilder &b, Location loc, ValueRange a, Type t,
         Operation *) -> Value {
        return arith::DivFOp::create(b, loc, floatConst(b, loc, t, 1), a[0]);
      });
  add("dsmp.sigmoid",
      [](OpBuilder &b, Location loc, ValueRange a, Type t,
         Operation *) -> Value {
        Value one = floatConst(b, loc, t, 1);
        Value e =
            math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, a[0]));
        return arith::DivFOp::create(b, loc, one,
                                     arith::AddFOp::create(b, loc, one, e));
      });
  add("dsmp.leaky_relu",
      [](OpBuilder &b, Location loc, ValueRange a, Type t,
         Operation *op) -> Value {
        Value alpha = floatConst(b, loc, t, floatAttr(op, "alpha", 0.01));
        Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                          a[0], floatConst(b, loc, t, 0));
        return arith::SelectOp::create(
            b, loc, neg, arith::MulFOp::create(b, loc, alpha, a[0]), a[0]);
      });
  add("dsmp.hard_sigmoid",
      [](OpBuilder &b, Location loc, ValueRange a, Type t,
         Operation *op) -> Value {
        Value alpha = floatConst(b, loc, t, floatAttr(op, "alpha", 0.2));
        Value beta = floatConst(b, loc, t, floatAttr(op, "beta", 0.5));
        Value y = arith::AddFOp::create(
            b, loc, arith::MulFOp::create(b, loc, alpha, a[0]), beta);
        y = arith::MinimumFOp::create(b, loc, y, floatConst(b, loc, t, 1));
        return arith::MaximumFOp::create(b, loc, y, floatConst(b, loc, t, 0));
      });
  // Pow's base and exponent may differ in type (ONNX allows any mix of
  // float and integer): a float result raises to the exponent converted to
  // that float type; an integer result computes in double and truncates,
  // as the ONNX reference (numpy) does.
  add("dsmp.pow",
      [](OpBuilder &b, Location loc, ValueRange a, Type t,
         Operation *op) -> Value {
        auto toFloat = [&](Value v, Type ft, Type original) -> Value {
          if (isa<FloatType>(v.getType()))
            return convertFloat(b, loc, v, ft);
          if (getElementTypeOrSelf(original).isUnsignedInteger())
            return arith::UIToFPOp::create(b, loc, ft, v);
          return arith::SIToFPOp::create(b, loc, ft, v);
        };
        Type base = op->getOperand(0).getType(),
             exponent = op->getOperand(1).getType();
        if (isa<FloatType>(t))
          return math::PowFOp::create(b, loc, toFloat(a[0], t, base),
                                      toFloat(a[1], t, exponent));
        Type f64 = b.getF64Type();
        Value r = math::PowFOp::create(b, loc, toFloat(a[0], f64, base),
                                       toFloat(a[1], f64, exponent));
        return arith::FPToSIOp::create(b, loc, t, r);
      });
  add("dsmp.where",
      [](OpBuilder &b, Location loc, ValueRange a, Type, Operation *) -> Value {
        return arith::SelectOp::create(b, loc, a[0], a[1], a[2]);
      });
  add("dsmp.clip",
      [](OpBuilder &b, Location loc, ValueRange a, Type t,
         Operation *op) -> Value {
        // Absent bounds were dropped; which of min/max remain tells the op.
        auto clip = cast<ClipOp>(op);
        Value y = a[0];
        unsigned next = 1;
        if (!isa<NoneType>(clip.getMin().getType()))
          y = isa<FloatType>(t)
                  ? Value(arith::MaximumFOp::create(b, loc, y, a[next++]))
                  : Value(arith::MaxSIOp::create(b, loc, y, a[next++]));
        if (!isa<NoneType>(clip.getMax().getType()))
          y = isa<FloatType>(t)
                  ? Value(arith::MinimumFOp::create(b, loc, y, a[next++]))
                  : Value(arith::MinSIOp::create(b, loc, y, a[next++]));
        return y;
      });
  add("dsmp.equal",
      compare<arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq>());
  add("dsmp.greater",
      compare<arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt,
              arith::CmpIPredicate::ugt>());
  add("dsmp.greater_or_equal",
      compare<arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge,
              arith::CmpIPredicate::uge>());
  add("dsmp.less", compare<arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt,
                           arith::CmpIPredicate::ult>());
  add("dsmp.less_or_equal",
      compare<arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle,
              arith::CmpIPredicate::ule>());
  add("dsmp.and", binary<arith::AndIOp, arith::AndIOp>());
  add("dsmp.or", binary<arith::OrIOp, arith::OrIOp>());
  add("dsmp.xor", binary<arith::XOrIOp, arith::XOrIOp>());
  add("dsmp.not",
      [](OpBuilder &b, Location loc, ValueRange a, Type t,
         Operation *) -> Value {
        Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 1));
        return arith::XOrIOp::create(b, loc, a[0], one);
      });
  add("dsmp.cast",
      [](OpBuilder &b, Location loc, ValueRange a, Type to,
         Operation *op) -> Value {
        Value x = a[0];
        Type from = x.getType();
        if (from == to)
          return x;
        // The values are signless; the op's types say what they mean.
        bool fromUnsigned = getElementTypeOrSelf(op->getOperand(0).getType())
                                .isUnsignedInteger();
        bool toUnsigned = getElementTypeOrSelf(op->getResult(0).getType())
                              .isUnsignedInteger();
        auto fromFloat = dyn_cast<FloatType>(from);
        auto toFloat = dyn_cast<FloatType>(to);
        if (fromFloat && toFloat)
          return convertFloat(b, loc, x, to);
        // To bool: nonzero is true (2 and 0.5 too; NaN as well, as numpy
        // and onnxruntime have it), not the low bit or an out-of-range
        // conversion.
        if (to.isInteger(1)) {
          if (fromFloat)
            return arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::UNE, x,
                arith::ConstantOp::create(b, loc, b.getFloatAttr(from, 0.0)));
          return arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ne, x,
              arith::ConstantOp::create(b, loc, b.getIntegerAttr(from, 0)));
        }
        if (toFloat) // booleans are 0 and 1, not 0 and -1
          return fromUnsigned || from.isInteger(1)
                     ? Value(arith::UIToFPOp::create(b, loc, to, x))
                     : Value(arith::SIToFPOp::create(b, loc, to, x));
        if (fromFloat)
          return toUnsigned ? Value(arith::FPToUIOp::create(b, loc, to, x))
                            : Value(arith::FPToSIOp::create(b, loc, to, x));
        unsigned fw = from.getIntOrFloatBitWidth(),
                 tw = to.getIntOrFloatBitWidth();
        if (fw > tw)
          return arith::TruncIOp::create(b, loc, to, x);
        return fromUnsigned || fw == 1
                   ? Value(arith::ExtUIOp::create(b, loc, to, x))
                   : Value(arith::ExtSIOp::create(b, loc, to, x));
      });
}

} // namespace

void mlir::dsmp::lowering::populateElementwisePatterns(
    RewritePatternSet &patterns) {
  addElementwisePatterns(patterns);
}
