//===- Activations.cpp - More elementwise ops to linalg.generic -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The inverse trigonometric and hyperbolic functions, the parametrised
// activations (Celu, Elu, Selu, Gelu, Mish, Softplus, Softsign, HardSwish,
// Shrink, ThresholdedRelu, PRelu), Round, Sign, IsNaN, IsInf, Mod and Mean:
// one linalg.generic each, like Elementwise.cpp's. Attributes are read
// through the ops' accessors, which carry the ODS defaults.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/DsmpToLinalg/Common.h"

#include "dialects/Dsmp/IR/DsmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dsmp;
using namespace mlir::dsmp::lowering;

namespace {

/// Lowers every op of type OpTy with `body`, its none operands dropped.
template <typename OpTy> struct Lowering : OpRewritePattern<OpTy> {
  Lowering(MLIRContext *ctx, BodyFn body)
      : OpRewritePattern<OpTy>(ctx), body(std::move(body)) {}

  LogicalResult matchAndRewrite(OpTy op,
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
    rewriter.replaceOp(op, buildElementwise(rewriter, op->getLoc(), inputs,
                                            resultType, op, body));
    return success();
  }

  BodyFn body;
};

/// A float constant of `t` (a float type).
Value c(OpBuilder &b, Location l, Type t, double v) {
  return floatConst(b, l, t, v);
}

template <typename MathOp> BodyFn unaryMath() {
  return [](OpBuilder &b, Location l, ValueRange a, Type,
            Operation *) -> Value { return MathOp::create(b, l, a[0]); };
}

/// Float attributes through the op's accessor (ODS default included).
template <typename OpTy, typename Getter>
double attr(Operation *op, Getter getter) {
  return (cast<OpTy>(op).*getter)().convertToDouble();
}

/// An integer element computed through f64 and truncated back (Shrink on
/// integer tensors, whose bias and lambd are floats).
Value throughF64(OpBuilder &b, Location l, Value x, Type t,
                 function_ref<Value(Value)> f) {
  if (isa<FloatType>(t))
    return f(x);
  Type f64 = b.getF64Type();
  Value y = f(arith::SIToFPOp::create(b, l, f64, x));
  return arith::FPToSIOp::create(b, l, t, y);
}

template <typename OpTy> void add(RewritePatternSet &patterns, BodyFn body) {
  patterns.add<Lowering<OpTy>>(patterns.getContext(), std::move(body));
}

} // namespace

void mlir::dsmp::lowering::populateActivationPatterns(
    RewritePatternSet &patterns) {
  add<AcosOp>(patterns, unaryMath<math::AcosOp>());
  add<AcoshOp>(patterns, unaryMath<math::AcoshOp>());
  add<AsinOp>(patterns, unaryMath<math::AsinOp>());
  add<AsinhOp>(patterns, unaryMath<math::AsinhOp>());
  add<AtanOp>(patterns, unaryMath<math::AtanOp>());
  add<AtanhOp>(patterns, unaryMath<math::AtanhOp>());
  add<CoshOp>(patterns, unaryMath<math::CoshOp>());
  add<SinhOp>(patterns, unaryMath<math::SinhOp>());
  add<TanOp>(patterns, unaryMath<math::TanOp>());
  // ONNX Round: half to even.
  add<RoundOp>(patterns, unaryMath<math::RoundEvenOp>());
  add<SoftsignOp>(
      patterns,
      [](OpBuilder &b, Location l, ValueRange a, Type t, Operation *) -> Value {
        Value d = arith::AddFOp::create(b, l, c(b, l, t, 1),
                                        math::AbsFOp::create(b, l, a[0]));
        return arith::DivFOp::create(b, l, a[0], d);
      });
  // log(1 + exp(x)), x itself past 20 where exp would overflow to no gain.
  add<SoftplusOp>(
      patterns,
      [](OpBuilder &b, Location l, ValueRange a, Type t, Operation *) -> Value {
        Value soft =
            math::Log1pOp::create(b, l, math::ExpOp::create(b, l, a[0]));
        Value big = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, a[0],
                                          c(b, l, t, 20));
        return arith::SelectOp::create(b, l, big, a[0], soft);
      });
  add<CeluOp>(patterns,
              [](OpBuilder &b, Location l, ValueRange a, Type t,
                 Operation *op) -> Value {
                Value alpha = c(b, l, t, attr<CeluOp>(op, &CeluOp::getAlpha));
                Value e = math::ExpOp::create(
                    b, l, arith::DivFOp::create(b, l, a[0], alpha));
                Value neg = arith::MulFOp::create(
                    b, l, alpha, arith::SubFOp::create(b, l, e, c(b, l, t, 1)));
                return arith::AddFOp::create(
                    b, l, arith::MaximumFOp::create(b, l, c(b, l, t, 0), a[0]),
                    arith::MinimumFOp::create(b, l, c(b, l, t, 0), neg));
              });
  add<EluOp>(patterns,
             [](OpBuilder &b, Location l, ValueRange a, Type t,
                Operation *op) -> Value {
               Value alpha = c(b, l, t, attr<EluOp>(op, &EluOp::getAlpha));
               Value neg = arith::MulFOp::create(
                   b, l, alpha,
                   arith::SubFOp::create(b, l, math::ExpOp::create(b, l, a[0]),
                                         c(b, l, t, 1)));
               Value below = arith::CmpFOp::create(
                   b, l, arith::CmpFPredicate::OLT, a[0], c(b, l, t, 0));
               return arith::SelectOp::create(b, l, below, neg, a[0]);
             });
  add<SeluOp>(
      patterns,
      [](OpBuilder &b, Location l, ValueRange a, Type t,
         Operation *op) -> Value {
        Value alpha = c(b, l, t, attr<SeluOp>(op, &SeluOp::getAlpha));
        Value gamma = c(b, l, t, attr<SeluOp>(op, &SeluOp::getGamma));
        Value neg = arith::SubFOp::create(
            b, l,
            arith::MulFOp::create(b, l, alpha, math::ExpOp::create(b, l, a[0])),
            alpha);
        Value above = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT,
                                            a[0], c(b, l, t, 0));
        return arith::MulFOp::create(
            b, l, gamma, arith::SelectOp::create(b, l, above, a[0], neg));
      });
  add<GeluOp>(
      patterns,
      [](OpBuilder &b, Location l, ValueRange a, Type t,
         Operation *op) -> Value {
        Value x = a[0];
        Value inner;
        if (cast<GeluOp>(op).getApproximate() == "tanh") {
          Value cube =
              arith::MulFOp::create(b, l, x, arith::MulFOp::create(b, l, x, x));
          Value arg = arith::MulFOp::create(
              b, l, c(b, l, t, 0.7978845608028654),
              arith::AddFOp::create(
                  b, l, x,
                  arith::MulFOp::create(b, l, c(b, l, t, 0.044715), cube)));
          inner = math::TanhOp::create(b, l, arg);
        } else {
          inner = math::ErfOp::create(
              b, l, arith::MulFOp::create(b, l, x, c(b, l, t, M_SQRT1_2)));
        }
        return arith::MulFOp::create(
            b, l, arith::MulFOp::create(b, l, c(b, l, t, 0.5), x),
            arith::AddFOp::create(b, l, c(b, l, t, 1), inner));
      });
  add<MishOp>(
      patterns,
      [](OpBuilder &b, Location l, ValueRange a, Type, Operation *) -> Value {
        Value softplus =
            math::Log1pOp::create(b, l, math::ExpOp::create(b, l, a[0]));
        return arith::MulFOp::create(b, l, a[0],
                                     math::TanhOp::create(b, l, softplus));
      });
  add<HardSwishOp>(
      patterns,
      [](OpBuilder &b, Location l, ValueRange a, Type t, Operation *) -> Value {
        Value gate = arith::AddFOp::create(
            b, l, arith::DivFOp::create(b, l, a[0], c(b, l, t, 6)),
            c(b, l, t, 0.5));
        gate = arith::MinimumFOp::create(b, l, gate, c(b, l, t, 1));
        gate = arith::MaximumFOp::create(b, l, gate, c(b, l, t, 0));
        return arith::MulFOp::create(b, l, a[0], gate);
      });
  add<ThresholdedReluOp>(
      patterns,
      [](OpBuilder &b, Location l, ValueRange a, Type t,
         Operation *op) -> Value {
        Value alpha = c(
            b, l, t, attr<ThresholdedReluOp>(op, &ThresholdedReluOp::getAlpha));
        Value above =
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, a[0], alpha);
        return arith::SelectOp::create(b, l, above, a[0], c(b, l, t, 0));
      });
  add<ShrinkOp>(
      patterns,
      [](OpBuilder &b, Location l, ValueRange a, Type t,
         Operation *op) -> Value {
        double bias = attr<ShrinkOp>(op, &ShrinkOp::getBias);
        double lambd = attr<ShrinkOp>(op, &ShrinkOp::getLambd);
        return throughF64(b, l, a[0], t, [&](Value x) -> Value {
          Type ft = x.getType();
          Value lo = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x,
                                           c(b, l, ft, -lambd));
          Value hi = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x,
                                           c(b, l, ft, lambd));
          Value up = arith::AddFOp::create(b, l, x, c(b, l, ft, bias));
          Value down = arith::SubFOp::create(b, l, x, c(b, l, ft, bias));
          return arith::SelectOp::create(
              b, l, lo, up,
              arith::SelectOp::create(b, l, hi, down, c(b, l, ft, 0)));
        });
      });
  add<SignOp>(
      patterns,
      [](OpBuilder &b, Location l, ValueRange a, Type t, Operation *) -> Value {
        Value x = a[0];
        if (isa<FloatType>(t)) {
          Value pos = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x,
                                            c(b, l, t, 0));
          Value neg = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x,
                                            c(b, l, t, 0));
          return arith::SelectOp::create(
              b, l, pos, c(b, l, t, 1),
              arith::SelectOp::create(b, l, neg, c(b, l, t, -1),
                                      c(b, l, t, 0)));
        }
        auto constant = [&](int64_t v) -> Value {
          return arith::ConstantOp::create(b, l, b.getIntegerAttr(t, v));
        };
        Value pos = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, x,
                                          constant(0));
        Value neg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, x,
                                          constant(0));
        return arith::SelectOp::create(
            b, l, pos, constant(1),
            arith::SelectOp::create(b, l, neg, constant(-1), constant(0)));
      });
  add<IsNaNOp>(
      patterns,
      [](OpBuilder &b, Location l, ValueRange a, Type, Operation *) -> Value {
        return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, a[0],
                                     a[0]);
      });
  add<IsInfOp>(
      patterns,
      [](OpBuilder &b, Location l, ValueRange a, Type, Operation *op) -> Value {
        auto isInf = cast<IsInfOp>(op);
        Type ft = a[0].getType();
        Value result = arith::ConstantOp::create(b, l, b.getBoolAttr(false));
        if (isInf.getDetectPositive())
          result = arith::OrIOp::create(
              b, l, result,
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[0],
                                    c(b, l, ft, INFINITY)));
        if (isInf.getDetectNegative())
          result = arith::OrIOp::create(
              b, l, result,
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[0],
                                    c(b, l, ft, -INFINITY)));
        return result;
      });
  // fmod = 1: the sign of the dividend (C's fmod); fmod = 0 (integers):
  // the sign of the divisor (Python's %).
  add<ModOp>(
      patterns,
      [](OpBuilder &b, Location l, ValueRange a, Type t,
         Operation *op) -> Value {
        if (isa<FloatType>(t))
          return arith::RemFOp::create(b, l, a[0], a[1]);
        if (hasUnsignedOperand(op))
          return arith::RemUIOp::create(b, l, a[0], a[1]);
        Value r = arith::RemSIOp::create(b, l, a[0], a[1]);
        if (cast<ModOp>(op).getFmod())
          return r;
        Value zero = arith::ConstantOp::create(b, l, b.getIntegerAttr(t, 0));
        Value nonzero =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, r, zero);
        Value signsDiffer = arith::XOrIOp::create(
            b, l,
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, r, zero),
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, a[1], zero));
        Value fix = arith::AndIOp::create(b, l, nonzero, signsDiffer);
        return arith::SelectOp::create(b, l, fix,
                                       arith::AddIOp::create(b, l, r, a[1]), r);
      });
  add<PReluOp>(
      patterns,
      [](OpBuilder &b, Location l, ValueRange a, Type t, Operation *) -> Value {
        if (isa<FloatType>(t)) {
          Value below = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT,
                                              a[0], c(b, l, t, 0));
          return arith::SelectOp::create(
              b, l, below, arith::MulFOp::create(b, l, a[0], a[1]), a[0]);
        }
        Value zero = arith::ConstantOp::create(b, l, b.getIntegerAttr(t, 0));
        Value below =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, a[0], zero);
        return arith::SelectOp::create(
            b, l, below, arith::MulIOp::create(b, l, a[0], a[1]), a[0]);
      });
  add<MeanOp>(
      patterns,
      [](OpBuilder &b, Location l, ValueRange a, Type t, Operation *) -> Value {
        Value sum = a[0];
        for (Value v : a.drop_front())
          sum = arith::AddFOp::create(b, l, sum, v);
        return arith::DivFOp::create(b, l, sum,
                                     c(b, l, t, static_cast<double>(a.size())));
      });
}
