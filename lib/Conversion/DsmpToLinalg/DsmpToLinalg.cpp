//===- DsmpToLinalg.cpp - Lower dsmp ops to linalg ----------------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The first slice of dsmp's CPU lowering: ops on static shapes become
// linalg.generic (elementwise with ONNX broadcasting, contractions),
// linalg.transpose, tensor.reshape and arith.constant. The dsmp ops already
// use builtin tensor types, so the patterns replace ops one for one with no
// type conversion.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

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
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <functional>
#include <limits>

#define DEBUG_TYPE "dsmp-convert-to-linalg"

namespace mlir::dsmp {
#define GEN_PASS_DEF_CONVERTDSMPTOLINALGPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

using BodyFn =
    std::function<Value(OpBuilder &, Location, ValueRange, Type, Operation *)>;

bool isStatic(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape();
}

bool isFloat(Type t) { return isa<FloatType>(getElementTypeOrSelf(t)); }

Value floatConst(OpBuilder &b, Location loc, Type type, double v) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v));
}

/// linalg.generic computing `body` elementwise over `inputs` broadcast (ONNX
/// multidirectional, right-aligned) to `resultType`.
/// f16 and bf16: the formats elementwise bodies compute in f32.
bool isNarrowFloat(Type t) { return t.isF16() || t.isBF16(); }

/// The type an op accumulates in: its `acc` format (tf32 and the f8
/// formats accumulate in f32, as the hardware does).
Type accumulationType(Operation *op) {
  MLIRContext *ctx = op->getContext();
  switch (mlir::dsmp::detail::accumulationFormat(op)) {
  case Format::f16:
    return Float16Type::get(ctx);
  case Format::bf16:
    return BFloat16Type::get(ctx);
  default:
    return Float32Type::get(ctx);
  }
}

/// Converts a float scalar to `to` (extf or truncf), if it differs.
Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (cast<FloatType>(from).getWidth() < cast<FloatType>(to).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

/// sum(lhs * rhs) over the reduction loops, computed in `acc` (operands
/// converted to it, every product and partial sum rounded to it), then
/// converted once to the result's element type.
Value sumOfProducts(OpBuilder &b, Location loc, Value lhs, Value rhs,
                    ArrayRef<AffineMap> maps,
                    ArrayRef<utils::IteratorType> iterators,
                    RankedTensorType resultType, Type acc) {
  auto accType = RankedTensorType::get(resultType.getShape(), acc);
  Value init = tensor::EmptyOp::create(b, loc, accType.getShape(), acc);
  init = linalg::FillOp::create(b, loc, ValueRange{floatConst(b, loc, acc, 0)},
                                ValueRange{init})
             .getResult(0);
  Value sum =
      linalg::GenericOp::create(
          b, loc, TypeRange{accType}, ValueRange{lhs, rhs}, ValueRange{init},
          maps, iterators,
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            Value x = convertFloat(nb, nl, args[0], acc);
            Value y = convertFloat(nb, nl, args[1], acc);
            Value product = arith::MulFOp::create(nb, nl, x, y);
            linalg::YieldOp::create(
                nb, nl, Value(arith::AddFOp::create(nb, nl, args[2], product)));
          })
          .getResult(0);
  Type element = resultType.getElementType();
  if (acc == element)
    return sum;
  Value out = tensor::EmptyOp::create(b, loc, resultType.getShape(), element);
  unsigned rank = resultType.getRank();
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, ValueRange{sum}, ValueRange{out},
             SmallVector<AffineMap>(
                 2, AffineMap::getMultiDimIdentityMap(rank, b.getContext())),
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl,
                                       convertFloat(nb, nl, args[0], element));
             })
      .getResult(0);
}

/// f32 rounded to tf32 in f32 storage (10-bit mantissa, ties away from
/// zero, as PTX cvt.rna.tf32.f32; inf and NaN unchanged), elementwise.
Value roundToTF32(OpBuilder &b, Location loc, Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  auto f32Type = RankedTensorType::get(type.getShape(), b.getF32Type());
  Value out = tensor::EmptyOp::create(b, loc, type.getShape(), b.getF32Type());
  unsigned rank = type.getRank();
  return linalg::GenericOp::create(
             b, loc, TypeRange{f32Type}, ValueRange{input}, ValueRange{out},
             SmallVector<AffineMap>(
                 2, AffineMap::getMultiDimIdentityMap(rank, b.getContext())),
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Type i32 = nb.getI32Type();
               auto c = [&](uint32_t v) -> Value {
                 return arith::ConstantOp::create(
                     nb, nl, nb.getI32IntegerAttr(static_cast<int32_t>(v)));
               };
               Value x = convertFloat(nb, nl, args[0], nb.getF32Type());
               Value bits = arith::BitcastOp::create(nb, nl, i32, x);
               Value exponent =
                   arith::AndIOp::create(nb, nl, bits, c(0x7F800000u));
               Value special = arith::CmpIOp::create(
                   nb, nl, arith::CmpIPredicate::eq, exponent, c(0x7F800000u));
               Value rounded = arith::AndIOp::create(
                   nb, nl, arith::AddIOp::create(nb, nl, bits, c(0x1000u)),
                   c(~0x1FFFu));
               Value result =
                   arith::SelectOp::create(nb, nl, special, bits, rounded);
               linalg::YieldOp::create(nb, nl,
                                       Value(arith::BitcastOp::create(
                                           nb, nl, nb.getF32Type(), result)));
             })
      .getResult(0);
}

/// tf32 has no LLVM type: casts to tf32 become roundToTF32 and every tf32
/// tensor is stored as f32 from here on.
void legalizeTF32(func::FuncOp func) {
  if (func.isExternal())
    return;
  auto isTF32 = [](Type t) {
    return isa<FloatTF32Type>(getElementTypeOrSelf(t));
  };
  SmallVector<CastOp> casts;
  func.walk([&](CastOp cast) {
    if (isTF32(cast.getType()))
      casts.push_back(cast);
  });
  for (CastOp cast : casts) {
    OpBuilder b(cast);
    Value rounded = roundToTF32(b, cast.getLoc(), cast.getInput());
    cast.getResult().replaceAllUsesWith(rounded);
    cast.erase();
  }
  bool changed = !casts.empty();
  auto retype = [&](Value v) {
    if (auto t = dyn_cast<RankedTensorType>(v.getType()); t && isTF32(t)) {
      v.setType(t.clone(Float32Type::get(v.getContext())));
      changed = true;
    }
  };
  func.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          retype(arg);
    for (Value result : op->getResults())
      retype(result);
  });
  if (!changed)
    return;
  func.setFunctionType(FunctionType::get(
      func.getContext(), func.getBody().getArgumentTypes(),
      func.getBody().back().getTerminator()->getOperandTypes()));
}

/// Contractions in f32 that accumulate in f32 become linalg.matmul: the
/// form a BLAS call replaces (dsmp-linalg-to-blas) or that tiles and
/// vectorizes as one unit.
bool usesNamedMatmul(Operation *op, RankedTensorType resultType) {
  return resultType.getElementType().isF32() && accumulationType(op).isF32();
}

/// A [M, K] x [K, N] -> [M, N] f32 product as linalg.matmul; a transposed
/// operand ([K, M] or [N, K]) is read through the op's indexing maps, not
/// copied (BLAS takes the transpose as a flag).
Value namedMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                  bool transposeLhs = false, bool transposeRhs = false) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  Type f32 = b.getF32Type();
  SmallVector<int64_t> shape = {lhsType.getDimSize(transposeLhs ? 1 : 0),
                                rhsType.getDimSize(transposeRhs ? 0 : 1)};
  Value init = tensor::EmptyOp::create(b, loc, shape, f32);
  init = linalg::FillOp::create(b, loc, ValueRange{floatConst(b, loc, f32, 0)},
                                ValueRange{init})
             .getResult(0);
  MLIRContext *ctx = b.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  auto map = [&](AffineExpr i, AffineExpr j) {
    return AffineMapAttr::get(AffineMap::get(3, 0, {i, j}, ctx));
  };
  ArrayAttr maps =
      b.getArrayAttr({transposeLhs ? map(k, m) : map(m, k),
                      transposeRhs ? map(n, k) : map(k, n), map(m, n)});
  return linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                  ValueRange{lhs, rhs}, ValueRange{init},
                                  {b.getNamedAttr("indexing_maps", maps)})
      .getResult(0);
}

/// Collapses `v` to the shape `shape` with reassociation `groups`.
Value collapse(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape,
               ArrayRef<ReassociationIndices> groups) {
  auto type = cast<RankedTensorType>(v.getType());
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, groups);
}

Value expand(OpBuilder &b, Location loc, Value v, RankedTensorType type,
             ArrayRef<ReassociationIndices> groups) {
  return tensor::ExpandShapeOp::create(b, loc, type, v, groups);
}

Value buildElementwise(OpBuilder &b, Location loc, ValueRange inputs,
                       RankedTensorType resultType, Operation *op,
                       const BodyFn &body) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs) {
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      int64_t dim = rank - type.getRank() + i;
      bool broadcast =
          type.getDimSize(i) == 1 && resultType.getDimSize(dim) != 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(dim, ctx));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  // A 16-bit float op computes in f32 and rounds its result once: exactly
  // the format's correctly rounded result for +, -, *, /, sqrt, and one
  // rounding (as on the target) for compound ops such as Sigmoid.
  Type resultElement = resultType.getElementType();
  bool widen = !isa<CastOp>(op) && isNarrowFloat(resultElement);
  for (Value input : inputs)
    widen |= !isa<CastOp>(op) &&
             isNarrowFloat(getElementTypeOrSelf(input.getType()));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        SmallVector<Value> operands(args.drop_back());
        Type computeType = resultElement;
        if (widen) {
          Type f32 = nb.getF32Type();
          for (Value &v : operands)
            if (isNarrowFloat(v.getType()))
              v = arith::ExtFOp::create(nb, nl, f32, v);
          if (isNarrowFloat(resultElement))
            computeType = f32;
        }
        Value v = body(nb, nl, operands, computeType, op);
        if (v.getType() != resultElement && isNarrowFloat(resultElement))
          v = arith::TruncFOp::create(nb, nl, resultElement, v);
        linalg::YieldOp::create(nb, nl, v);
      });
  return generic.getResult(0);
}

/// Lowers any elementwise dsmp op named `opName` with `body`. `none`
/// operands (absent optional inputs) are dropped before the body sees them.
struct ElementwiseLowering : RewritePattern {
  ElementwiseLowering(StringRef opName, BodyFn body, MLIRContext *ctx)
      : RewritePattern(opName, /*benefit=*/1, ctx), body(std::move(body)) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static result shape");
    SmallVector<Value> inputs;
    for (Value operand : op->getOperands()) {
      if (isa<NoneType>(operand.getType()))
        continue;
      if (!isStatic(operand))
        return rewriter.notifyMatchFailure(op, "needs static operand shapes");
      inputs.push_back(operand);
    }
    Value result =
        buildElementwise(rewriter, op->getLoc(), inputs, resultType, op, body);
    rewriter.replaceOp(op, result);
    return success();
  }

  BodyFn body;
};

/// A binary float/integer op body.
template <typename FloatOp, typename IntOp> BodyFn binary() {
  return [](OpBuilder &b, Location loc, ValueRange args, Type t,
            Operation *) -> Value {
    if (isa<FloatType>(t))
      return FloatOp::create(b, loc, args[0], args[1]);
    return IntOp::create(b, loc, args[0], args[1]);
  };
}

/// A left fold of a binary op over all args (Max, Min, Sum).
template <typename FloatOp, typename IntOp> BodyFn fold() {
  return [](OpBuilder &b, Location loc, ValueRange args, Type t,
            Operation *) -> Value {
    Value acc = args[0];
    for (Value v : args.drop_front())
      acc = isa<FloatType>(t) ? Value(FloatOp::create(b, loc, acc, v))
                              : Value(IntOp::create(b, loc, acc, v));
    return acc;
  };
}

template <typename MathOp> BodyFn unary() {
  return [](OpBuilder &b, Location loc, ValueRange args, Type,
            Operation *) -> Value { return MathOp::create(b, loc, args[0]); };
}

double floatAttr(Operation *op, StringRef name, double fallback) {
  if (auto attr = op->getAttrOfType<FloatAttr>(name))
    return attr.getValueAsDouble();
  return fallback;
}

template <arith::CmpFPredicate FP, arith::CmpIPredicate IP> BodyFn compare() {
  return [](OpBuilder &b, Location loc, ValueRange args, Type,
            Operation *) -> Value {
    if (isa<FloatType>(args[0].getType()))
      return arith::CmpFOp::create(b, loc, FP, args[0], args[1]);
    return arith::CmpIOp::create(b, loc, IP, args[0], args[1]);
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
  add("dsmp.div", binary<arith::DivFOp, arith::DivSIOp>());
  add("dsmp.max", fold<arith::MaximumFOp, arith::MaxSIOp>());
  add("dsmp.min", fold<arith::MinimumFOp, arith::MinSIOp>());
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
  add("dsmp.pow",
      [](OpBuilder &b, Location loc, ValueRange a, Type t, Operation *)
          -> Value { return math::PowFOp::create(b, loc, a[0], a[1]); });
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
      compare<arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt>());
  add("dsmp.greater_or_equal",
      compare<arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge>());
  add("dsmp.less",
      compare<arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt>());
  add("dsmp.less_or_equal",
      compare<arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle>());
  add("dsmp.not",
      [](OpBuilder &b, Location loc, ValueRange a, Type t,
         Operation *) -> Value {
        Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 1));
        return arith::XOrIOp::create(b, loc, a[0], one);
      });
  add("dsmp.cast",
      [](OpBuilder &b, Location loc, ValueRange a, Type to,
         Operation *) -> Value {
        Value x = a[0];
        Type from = x.getType();
        if (from == to)
          return x;
        auto fromFloat = dyn_cast<FloatType>(from);
        auto toFloat = dyn_cast<FloatType>(to);
        if (fromFloat && toFloat)
          return fromFloat.getWidth() < toFloat.getWidth()
                     ? Value(arith::ExtFOp::create(b, loc, to, x))
                     : Value(arith::TruncFOp::create(b, loc, to, x));
        if (toFloat) // booleans are 0 and 1, not 0 and -1
          return from.isUnsignedInteger() || from.isInteger(1)
                     ? Value(arith::UIToFPOp::create(b, loc, to, x))
                     : Value(arith::SIToFPOp::create(b, loc, to, x));
        if (fromFloat)
          return to.isUnsignedInteger()
                     ? Value(arith::FPToUIOp::create(b, loc, to, x))
                     : Value(arith::FPToSIOp::create(b, loc, to, x));
        unsigned fw = from.getIntOrFloatBitWidth(),
                 tw = to.getIntOrFloatBitWidth();
        if (fw > tw)
          return arith::TruncIOp::create(b, loc, to, x);
        return from.isUnsignedInteger() || fw == 1
                   ? Value(arith::ExtUIOp::create(b, loc, to, x))
                   : Value(arith::ExtSIOp::create(b, loc, to, x));
      });
}

/// C[M, N] = alpha * op(A) * op(B) (+ beta * C), as a contraction generic
/// and, when needed, an elementwise epilogue.
struct GemmLowering : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !resultType.hasStaticShape() || !isStatic(op.getA()) ||
        !isStatic(op.getB()) || !isFloat(resultType))
      return rewriter.notifyMatchFailure(op, "needs static float shapes");
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
               k = getAffineDimExpr(2, ctx);
    SmallVector<AffineMap> maps = {
        AffineMap::get(3, 0,
                       op.getTransA() ? ArrayRef<AffineExpr>{k, m}
                                      : ArrayRef<AffineExpr>{m, k},
                       ctx),
        AffineMap::get(3, 0,
                       op.getTransB() ? ArrayRef<AffineExpr>{n, k}
                                      : ArrayRef<AffineExpr>{k, n},
                       ctx),
        AffineMap::get(3, 0, {m, n}, ctx)};
    Type element = resultType.getElementType();
    Value result;
    if (usesNamedMatmul(op, resultType) &&
        cast<RankedTensorType>(op.getA().getType()).getElementType().isF32()) {
      result = namedMatmul(rewriter, loc, op.getA(), op.getB(), op.getTransA(),
                           op.getTransB());
    } else {
      result = contract(rewriter, loc, op, op.getA(), op.getB(), maps,
                        resultType, 3);
    }
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    bool hasC = !isa<NoneType>(op.getC().getType());
    if (alpha != 1.0 || hasC) {
      SmallVector<Value> inputs{result};
      if (hasC)
        inputs.push_back(op.getC());
      result = buildElementwise(
          rewriter, loc, inputs, resultType, op,
          [&](OpBuilder &b, Location l, ValueRange a, Type t,
              Operation *) -> Value {
            Value y = a[0];
            if (alpha != 1.0)
              y = arith::MulFOp::create(b, l, floatConst(b, l, t, alpha), y);
            if (a.size() > 1) {
              Value c = a[1];
              if (beta != 1.0)
                c = arith::MulFOp::create(b, l, floatConst(b, l, t, beta), c);
              y = arith::AddFOp::create(b, l, y, c);
            }
            return y;
          });
    }
    (void)element;
    rewriter.replaceOp(op, result);
    return success();
  }

  /// The sum of products with the given maps; the last loop dim reduces.
  static Value contract(OpBuilder &b, Location loc, Operation *op, Value lhs,
                        Value rhs, ArrayRef<AffineMap> maps,
                        RankedTensorType resultType, unsigned loops) {
    SmallVector<utils::IteratorType> iterators(loops,
                                               utils::IteratorType::parallel);
    iterators.back() = utils::IteratorType::reduction;
    return sumOfProducts(b, loc, lhs, rhs, maps, iterators, resultType,
                         accumulationType(op));
  }
};

/// numpy matmul of operands of rank >= 2, batch dims broadcast.
struct MatMulLowering : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !resultType.hasStaticShape() || !isStatic(op.getA()) ||
        !isStatic(op.getB()) || !isFloat(resultType))
      return rewriter.notifyMatchFailure(op, "needs static float shapes");
    auto a = cast<RankedTensorType>(op.getA().getType());
    auto b = cast<RankedTensorType>(op.getB().getType());
    if (a.getRank() < 2 || b.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "1-D operands not lowered yet");
    MLIRContext *ctx = getContext();
    // [batch..., M, K] x [K, N]: one matmul over the collapsed rows.
    if (usesNamedMatmul(op, resultType) && a.getElementType().isF32() &&
        b.getRank() == 2) {
      Location loc = op.getLoc();
      int64_t rows = a.getNumElements() / a.getShape().back();
      Value lhs = op.getA();
      ReassociationIndices leading;
      for (int64_t i = 0; i + 1 < a.getRank(); ++i)
        leading.push_back(i);
      if (a.getRank() > 2)
        lhs = collapse(rewriter, loc, lhs, {rows, a.getShape().back()},
                       {leading, {a.getRank() - 1}});
      Value product = namedMatmul(rewriter, loc, lhs, op.getB());
      if (resultType.getRank() > 2)
        product = expand(rewriter, loc, product, resultType,
                         {leading, {resultType.getRank() - 1}});
      rewriter.replaceOp(op, product);
      return success();
    }
    int64_t rank = resultType.getRank(); // batch dims + M + N
    unsigned loops = rank + 1;           // + K
    AffineExpr k = getAffineDimExpr(rank, ctx);
    auto operandMap = [&](RankedTensorType t, bool isLhs) {
      SmallVector<AffineExpr> exprs;
      int64_t batch = t.getRank() - 2;
      for (int64_t i = 0; i < batch; ++i) {
        int64_t dim = rank - 2 - batch + i;
        exprs.push_back(t.getDimSize(i) == 1 && resultType.getDimSize(dim) != 1
                            ? getAffineConstantExpr(0, ctx)
                            : getAffineDimExpr(dim, ctx));
      }
      if (isLhs) {
        exprs.push_back(getAffineDimExpr(rank - 2, ctx));
        exprs.push_back(k);
      } else {
        exprs.push_back(k);
        exprs.push_back(getAffineDimExpr(rank - 1, ctx));
      }
      return AffineMap::get(loops, 0, exprs, ctx);
    };
    SmallVector<AffineMap> maps = {
        operandMap(a, true), operandMap(b, false),
        AffineMap::getMultiDimIdentityMap(loops, ctx).getMajorSubMap(rank)};
    Value result = GemmLowering::contract(rewriter, op.getLoc(), op, op.getA(),
                                          op.getB(), maps, resultType, loops);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct TransposeLowering : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    SmallVector<int64_t> perm;
    if (auto given = op.getPerm())
      perm.assign(given->begin(), given->end());
    else
      for (int64_t i = resultType.getRank() - 1; i >= 0; --i)
        perm.push_back(i);
    Value init =
        tensor::EmptyOp::create(rewriter, op.getLoc(), resultType.getShape(),
                                resultType.getElementType());
    auto transpose = linalg::TransposeOp::create(rewriter, op.getLoc(),
                                                 op.getData(), init, perm);
    rewriter.replaceOp(op, transpose->getResult(0));
    return success();
  }
};

/// Reshape, Flatten, Squeeze and Unsqueeze with a static result: a
/// tensor.reshape to that shape (their shape operands are not needed).
struct StaticReshapeLowering : RewritePattern {
  StaticReshapeLowering(StringRef opName, MLIRContext *ctx)
      : RewritePattern(opName, 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || !resultType.hasStaticShape() ||
        !isStatic(op->getOperand(0)))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op->getLoc();
    auto shapeType =
        RankedTensorType::get({resultType.getRank()}, rewriter.getI64Type());
    Value shape = arith::ConstantOp::create(
        rewriter, loc,
        DenseIntElementsAttr::get(shapeType, resultType.getShape()));
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, resultType,
                                                   op->getOperand(0), shape);
    return success();
  }
};

struct ConstantLowering : OpRewritePattern<ConstantOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto value = dyn_cast<ElementsAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(
          op, "weights still in the weight file: run dsmp-load-weights");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, cast<TypedAttr>(value));
    return success();
  }
};

struct IdentityLowering : OpRewritePattern<IdentityOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(IdentityOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

/// Pads the spatial dims of an NC... tensor with `value` (ONNX pads are
/// [begin..., end...] over the spatial dims).
Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> pads, double value) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t spatial = type.getRank() - 2;
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return input;
  SmallVector<OpFoldResult> low(2, b.getIndexAttr(0)),
      high(2, b.getIndexAttr(0));
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t i = 0; i < spatial; ++i) {
    low.push_back(b.getIndexAttr(pads[i]));
    high.push_back(b.getIndexAttr(pads[i + spatial]));
    shape[2 + i] += pads[i] + pads[i + spatial];
  }
  auto padded = RankedTensorType::get(shape, type.getElementType());
  Value padValue = floatConst(b, loc, type.getElementType(), value);
  return tensor::PadOp::create(b, loc, padded, input, low, high, padValue)
      .getResult();
}

/// The window attributes with ONNX defaults; fails on auto_pad other than
/// NOTSET/VALID (SAME_* needs the output-size-dependent split).
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, pads;
};

FailureOr<Window> windowOf(Operation *op, int64_t spatial,
                           ArrayRef<int64_t> weightKernel = {}) {
  Window w;
  auto ints = [&](StringRef name, int64_t size,
                  int64_t fallback) -> SmallVector<int64_t> {
    if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>(name))
      return SmallVector<int64_t>(attr.asArrayRef());
    return SmallVector<int64_t>(size, fallback);
  };
  auto autoPad = op->getAttrOfType<StringAttr>("auto_pad");
  if (autoPad && autoPad.getValue() != "NOTSET" &&
      autoPad.getValue() != "VALID")
    return failure();
  w.kernel = weightKernel.empty() ? ints("kernel_shape", spatial, 1)
                                  : SmallVector<int64_t>(weightKernel);
  if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape"))
    w.kernel.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  w.strides = ints("strides", spatial, 1);
  w.dilations = ints("dilations", spatial, 1);
  w.pads = ints("pads", 2 * spatial, 0);
  if (autoPad && autoPad.getValue() == "VALID")
    w.pads.assign(2 * spatial, 0);
  return w;
}

/// Grouped N-d convolution as one linalg.generic over (n, m, out spatial...,
/// c, kernel...), the input channel being (m floordiv M/group) * C/group + c,
/// then the bias.
struct ConvLowering : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;

  /// A batch-1, one-group f32 convolution as W[F, C*K] x col[C*K, O]
  /// (im2col; a 1x1 stride-1 convolution uses the input as col directly).
  template <typename Window>
  static Value convAsMatmul(OpBuilder &b, Location loc, Value input, Value w,
                            RankedTensorType resultType, const Window &window) {
    MLIRContext *ctx = b.getContext();
    auto inType = cast<RankedTensorType>(input.getType());
    auto wType = cast<RankedTensorType>(w.getType());
    int64_t spatial = resultType.getRank() - 2;
    int64_t channels = wType.getDimSize(1), filters = wType.getDimSize(0);
    ArrayRef<int64_t> kernel = wType.getShape().drop_front(2);
    ArrayRef<int64_t> outSpatial = resultType.getShape().drop_front(2);
    int64_t kernelSize = 1, outSize = 1;
    for (int64_t k : kernel)
      kernelSize *= k;
    for (int64_t o : outSpatial)
      outSize *= o;
    bool pointwise = kernelSize == 1 &&
                     llvm::equal(inType.getShape().drop_front(2), outSpatial);
    for (int64_t i = 0; i < spatial; ++i)
      pointwise &= window.strides[i] == 1;
    ReassociationIndices spatialDims, kernelDims;
    for (int64_t i = 0; i < spatial; ++i)
      spatialDims.push_back(2 + i);
    Value col;
    if (pointwise) {
      // [1, C, O...] -> [C, O]
      ReassociationIndices rest;
      for (int64_t i = 0; i < spatial; ++i)
        rest.push_back(2 + i);
      col = collapse(b, loc, input, {channels, outSize}, {{0, 1}, rest});
    } else {
      // col[c, k..., o...] = input[0, c, o * stride + k * dilation]
      unsigned loops = 1 + 2 * spatial;
      auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
      SmallVector<AffineExpr> inExprs{getAffineConstantExpr(0, ctx), d(0)};
      SmallVector<int64_t> colShape{channels};
      for (int64_t i = 0; i < spatial; ++i)
        colShape.push_back(kernel[i]);
      for (int64_t i = 0; i < spatial; ++i) {
        colShape.push_back(outSpatial[i]);
        inExprs.push_back(d(1 + spatial + i) * window.strides[i] +
                          d(1 + i) * window.dilations[i]);
      }
      Value init = tensor::EmptyOp::create(b, loc, colShape, b.getF32Type());
      col = linalg::GenericOp::create(
                b, loc, TypeRange{init.getType()}, ValueRange{input},
                ValueRange{init},
                SmallVector<AffineMap>{
                    AffineMap::get(loops, 0, inExprs, ctx),
                    AffineMap::getMultiDimIdentityMap(loops, ctx)},
                SmallVector<utils::IteratorType>(loops,
                                                 utils::IteratorType::parallel),
                [](OpBuilder &nb, Location nl, ValueRange args) {
                  linalg::YieldOp::create(nb, nl, args[0]);
                })
                .getResult(0);
      ReassociationIndices first{0}, last;
      for (int64_t i = 0; i < spatial; ++i) {
        first.push_back(1 + i);
        last.push_back(1 + spatial + i);
      }
      col = collapse(b, loc, col, {channels * kernelSize, outSize},
                     {first, last});
    }
    ReassociationIndices wRest{1};
    for (int64_t i = 0; i < spatial; ++i)
      wRest.push_back(2 + i);
    Value weights =
        collapse(b, loc, w, {filters, channels * kernelSize}, {{0}, wRest});
    Value product = namedMatmul(b, loc, weights, col);
    return expand(b, loc, product, resultType, {{0, 1}, spatialDims});
  }

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !resultType.hasStaticShape() || !isStatic(op.getX()) ||
        !isStatic(op.getW()) || !isFloat(resultType))
      return rewriter.notifyMatchFailure(op, "needs static float shapes");
    auto wType = cast<RankedTensorType>(op.getW().getType());
    int64_t spatial = resultType.getRank() - 2;
    auto window = windowOf(op, spatial, wType.getShape().drop_front(2));
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "SAME auto_pad not lowered yet");
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Value input = padSpatial(rewriter, loc, op.getX(), window->pads, 0.0);
    int64_t group = op.getGroup();
    int64_t mPerGroup = resultType.getDimSize(1) / group;
    int64_t cPerGroup = wType.getDimSize(1);
    // Loops: n, m, o_0..o_s-1, c, k_0..k_s-1.
    unsigned loops = 3 + 2 * spatial;
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    AffineExpr n = d(0), m = d(1), c = d(2 + spatial);
    SmallVector<AffineExpr> inExprs{n, m.floorDiv(mPerGroup) * cPerGroup + c};
    SmallVector<AffineExpr> wExprs{m, c};
    SmallVector<AffineExpr> outExprs{n, m};
    for (int64_t i = 0; i < spatial; ++i) {
      AffineExpr o = d(2 + i), k = d(3 + spatial + i);
      inExprs.push_back(o * window->strides[i] + k * window->dilations[i]);
      wExprs.push_back(k);
      outExprs.push_back(o);
    }
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inExprs, ctx),
                                   AffineMap::get(loops, 0, wExprs, ctx),
                                   AffineMap::get(loops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(loops,
                                               utils::IteratorType::reduction);
    for (unsigned i = 0; i < 2 + spatial; ++i)
      iterators[i] = utils::IteratorType::parallel;
    Type element = resultType.getElementType();
    Value result;
    if (usesNamedMatmul(op, resultType) && group == 1 &&
        resultType.getDimSize(0) == 1 && wType.getElementType().isF32())
      result =
          convAsMatmul(rewriter, loc, input, op.getW(), resultType, *window);
    else
      result = sumOfProducts(rewriter, loc, input, op.getW(), maps, iterators,
                             resultType, accumulationType(op));
    if (!isa<NoneType>(op.getB().getType())) {
      // The bias [M] broadcasts along dim 1.
      SmallVector<AffineMap> biasMaps = {
          AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx),
          AffineMap::get(resultType.getRank(), 0, {d(1)}, ctx),
          AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx)};
      Value out = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                          element);
      result =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{resultType},
              ValueRange{result, op.getB()}, ValueRange{out}, biasMaps,
              SmallVector<utils::IteratorType>(resultType.getRank(),
                                               utils::IteratorType::parallel),
              [](OpBuilder &b, Location l, ValueRange args) {
                linalg::YieldOp::create(
                    b, l, Value(arith::AddFOp::create(b, l, args[0], args[1])));
              })
              .getResult(0);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ConvTranspose (one group) as a convolution: the input spread out by the
/// strides with zeros between, padded by dilation * (kernel - 1) minus the
/// pads (plus output_padding at the end), convolved at stride 1 with the
/// weights [C, F, k..] transposed to [F, C, k..] and flipped. The dsmp.conv
/// it builds is then lowered by ConvLowering.
struct ConvTransposeLowering : OpRewritePattern<ConvTransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvTransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !resultType.hasStaticShape() || !isStatic(op.getX()) ||
        !isStatic(op.getW()) || !isFloat(resultType))
      return rewriter.notifyMatchFailure(op, "needs static float shapes");
    if (op.getGroup() != 1)
      return rewriter.notifyMatchFailure(op, "grouped ConvTranspose");
    auto xType = cast<RankedTensorType>(op.getX().getType());
    auto wType = cast<RankedTensorType>(op.getW().getType());
    int64_t spatial = xType.getRank() - 2;
    auto window = windowOf(op, spatial, wType.getShape().drop_front(2));
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "SAME auto_pad not lowered yet");
    SmallVector<int64_t> outputPadding(spatial, 0);
    if (auto attr = op.getOutputPaddingAttr())
      outputPadding.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
    SmallVector<int64_t> pads(2 * spatial);
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t reach = window->dilations[i] * (window->kernel[i] - 1);
      pads[i] = reach - window->pads[i];
      pads[spatial + i] = reach - window->pads[spatial + i] + outputPadding[i];
      if (pads[i] < 0 || pads[spatial + i] < 0)
        return rewriter.notifyMatchFailure(op, "pads wider than the kernel");
    }
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Type element = xType.getElementType();

    // The input spread out by the strides.
    SmallVector<int64_t> upShape(xType.getShape());
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (int64_t i = 0; i < xType.getRank(); ++i) {
      int64_t stride = i < 2 ? 1 : window->strides[i - 2];
      if (i >= 2)
        upShape[i] = (xType.getDimSize(i) - 1) * stride + 1;
      offsets.push_back(rewriter.getIndexAttr(0));
      sizes.push_back(rewriter.getIndexAttr(xType.getDimSize(i)));
      strides.push_back(rewriter.getIndexAttr(stride));
    }
    Value up = tensor::EmptyOp::create(rewriter, loc, upShape, element);
    up = linalg::FillOp::create(
             rewriter, loc, ValueRange{floatConst(rewriter, loc, element, 0)},
             ValueRange{up})
             .getResult(0);
    up = tensor::InsertSliceOp::create(rewriter, loc, op.getX(), up, offsets,
                                       sizes, strides);

    // w'[f, c, k..] = w[c, f, K - 1 - k..]
    SmallVector<int64_t> flippedShape(wType.getShape());
    std::swap(flippedShape[0], flippedShape[1]);
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> read{d(1), d(0)};
    for (int64_t i = 0; i < spatial; ++i)
      read.push_back(window->kernel[i] - 1 - d(2 + i));
    unsigned rank = wType.getRank();
    Value init = tensor::EmptyOp::create(rewriter, loc, flippedShape,
                                         wType.getElementType());
    Value flipped = linalg::GenericOp::create(
                        rewriter, loc, TypeRange{init.getType()},
                        ValueRange{op.getW()}, ValueRange{init},
                        SmallVector<AffineMap>{
                            AffineMap::get(rank, 0, read, ctx),
                            AffineMap::getMultiDimIdentityMap(rank, ctx)},
                        SmallVector<utils::IteratorType>(
                            rank, utils::IteratorType::parallel),
                        [](OpBuilder &b, Location l, ValueRange args) {
                          linalg::YieldOp::create(b, l, args[0]);
                        })
                        .getResult(0);

    OperationState state(loc, ConvOp::getOperationName());
    state.addOperands({up, flipped, op.getB()});
    state.addTypes(resultType);
    state.addAttribute("pads", rewriter.getDenseI64ArrayAttr(pads));
    state.addAttribute("dilations",
                       rewriter.getDenseI64ArrayAttr(window->dilations));
    state.addAttribute("kernel_shape",
                       rewriter.getDenseI64ArrayAttr(window->kernel));
    if (Attribute acc = op->getAttr("acc"))
      state.addAttribute("acc", acc);
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

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

/// If with static result shapes: scf.if on the condition's one element,
/// the branches moved over (their dsmp ops are lowered in place by the
/// other patterns), dsmp.yield becoming scf.yield.
struct IfLowering : OpRewritePattern<IfOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(IfOp op,
                                PatternRewriter &rewriter) const override {
    for (Type t : op.getResultTypes()) {
      auto ranked = dyn_cast<RankedTensorType>(t);
      if (!ranked || !ranked.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "needs static result shapes");
    }
    auto condType = dyn_cast<RankedTensorType>(op.getCond().getType());
    if (!condType || !condType.hasStaticShape() ||
        condType.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "needs a one-element condition");
    Location loc = op.getLoc();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value cond =
        tensor::ExtractOp::create(rewriter, loc, op.getCond(),
                                  SmallVector<Value>(condType.getRank(), zero));
    auto ifOp = scf::IfOp::create(rewriter, loc, op.getResultTypes(), cond,
                                  /*addThenBlock=*/false,
                                  /*addElseBlock=*/false);
    for (auto [from, to] :
         {std::make_pair(&op.getThenBranch(), &ifOp.getThenRegion()),
          std::make_pair(&op.getElseBranch(), &ifOp.getElseRegion())}) {
      rewriter.inlineRegionBefore(*from, *to, to->end());
      Operation *yield = to->front().getTerminator();
      rewriter.setInsertionPoint(yield);
      scf::YieldOp::create(rewriter, yield->getLoc(), yield->getOperands());
      rewriter.eraseOp(yield);
    }
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

/// A windowed reduction over the spatial dims: MaxPool (pads with -inf) and
/// AveragePool (zero pads counted only with count_include_pad, so pads need
/// it or must be zero).
template <typename PoolOp, bool IsMax>
struct PoolLowering : OpRewritePattern<PoolOp> {
  using OpRewritePattern<PoolOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(PoolOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || !resultType.hasStaticShape() || !isStatic(op.getX()) ||
        !isFloat(resultType))
      return rewriter.notifyMatchFailure(op, "needs static float shapes");
    if (op->getNumResults() > 1 && !isa<NoneType>(op->getResult(1).getType()))
      return rewriter.notifyMatchFailure(op, "MaxPool indices not lowered");
    if (op.getCeilMode())
      return rewriter.notifyMatchFailure(op, "ceil_mode not lowered yet");
    int64_t spatial = resultType.getRank() - 2;
    auto window = windowOf(op, spatial);
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "SAME auto_pad not lowered yet");
    bool padded = llvm::any_of(window->pads, [](int64_t p) { return p; });
    // AveragePool divides by the taps inside the input unless
    // count_include_pad is set (then by the whole window).
    bool countPads = false;
    if constexpr (!IsMax) {
      auto attr = op->template getAttrOfType<IntegerAttr>("count_include_pad");
      countPads = attr && attr.getInt() != 0;
    }
    Location loc = op.getLoc();
    MLIRContext *ctx = this->getContext();
    Type element = resultType.getElementType();
    double padValue = IsMax ? -std::numeric_limits<double>::infinity() : 0.0;
    Value input = padSpatial(rewriter, loc, op.getX(), window->pads, padValue);
    unsigned loops = 2 + 2 * spatial;
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> inExprs{d(0), d(1)}, outExprs{d(0), d(1)},
        kernelExprs;
    for (int64_t i = 0; i < spatial; ++i) {
      AffineExpr o = d(2 + i), k = d(2 + spatial + i);
      inExprs.push_back(o * window->strides[i] + k * window->dilations[i]);
      outExprs.push_back(o);
      kernelExprs.push_back(k);
    }
    // The kernel window is an operand whose shape gives the loop bounds.
    Value kernel =
        tensor::EmptyOp::create(rewriter, loc, window->kernel, element);
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inExprs, ctx),
                                   AffineMap::get(loops, 0, kernelExprs, ctx),
                                   AffineMap::get(loops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(loops,
                                               utils::IteratorType::reduction);
    for (unsigned i = 0; i < 2 + spatial; ++i)
      iterators[i] = utils::IteratorType::parallel;
    Value init =
        tensor::EmptyOp::create(rewriter, loc, resultType.getShape(), element);
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
      if (padded && !countPads) {
        // Taps inside the input, per output position (spatial dims only),
        // known at compile time.
        auto xType = cast<RankedTensorType>(op.getX().getType());
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
              inside += at >= 0 && at < xType.getDimSize(2 + i);
            }
            taps *= inside;
          }
          counts[flat] = static_cast<float>(taps);
        }
        auto countType = RankedTensorType::get(outShape, element);
        if (!element.isF32())
          return rewriter.notifyMatchFailure(op, "padded f16 average");
        Value countTensor = arith::ConstantOp::create(
            rewriter, loc,
            DenseElementsAttr::get(countType, ArrayRef<float>(counts)));
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

/// Sums (or maxes) over `axes` of `input` into a keepdims-shaped tensor.
Value reduceKeepDims(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> axes, bool isMax) {
  auto type = cast<RankedTensorType>(input.getType());
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t i = 0; i < rank; ++i) {
    bool reduced = llvm::is_contained(axes, i);
    if (reduced)
      shape[i] = 1;
    outExprs.push_back(reduced ? getAffineConstantExpr(0, ctx)
                               : getAffineDimExpr(i, ctx));
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
  }
  auto outType = RankedTensorType::get(shape, type.getElementType());
  double initValue = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  init = linalg::FillOp::create(
             b, loc,
             ValueRange{floatConst(b, loc, type.getElementType(), initValue)},
             ValueRange{init})
             .getResult(0);
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 AffineMap::get(rank, 0, outExprs, ctx)};
  return linalg::GenericOp::create(
             b, loc, TypeRange{outType}, ValueRange{input}, ValueRange{init},
             maps, iterators,
             [isMax](OpBuilder &nb, Location l, ValueRange args) {
               Value v =
                   isMax
                       ? Value(
                             arith::MaximumFOp::create(nb, l, args[1], args[0]))
                       : Value(arith::AddFOp::create(nb, l, args[1], args[0]));
               linalg::YieldOp::create(nb, l, v);
             })
      .getResult(0);
}

struct GlobalAveragePoolLowering : OpRewritePattern<GlobalAveragePoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GlobalAveragePoolOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !resultType.hasStaticShape() || !isStatic(op.getX()) ||
        !isFloat(resultType))
      return rewriter.notifyMatchFailure(op, "needs static float shapes");
    auto inType = cast<RankedTensorType>(op.getX().getType());
    SmallVector<int64_t> axes;
    int64_t count = 1;
    for (int64_t i = 2; i < inType.getRank(); ++i) {
      axes.push_back(i);
      count *= inType.getDimSize(i);
    }
    Value sum = reduceKeepDims(rewriter, op.getLoc(), op.getX(), axes, false);
    Value mean =
        buildElementwise(rewriter, op.getLoc(), ValueRange{sum}, resultType, op,
                         [count](OpBuilder &b, Location l, ValueRange a, Type t,
                                 Operation *) -> Value {
                           return arith::DivFOp::create(
                               b, l, a[0], floatConst(b, l, t, double(count)));
                         });
    rewriter.replaceOp(op, mean);
    return success();
  }
};

/// Softmax along one axis: exp(x - max) / sum(exp(x - max)).
struct SoftmaxLowering : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape() || !isFloat(type))
      return rewriter.notifyMatchFailure(op, "needs a static float shape");
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
    Value result = buildElementwise(
        rewriter, loc, ValueRange{e, sum}, type, op,
        [](OpBuilder &b, Location l, ValueRange a, Type, Operation *) -> Value {
          return arith::DivFOp::create(b, l, a[0], a[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `value` reshaped to the static `type` (same element count).
Value reshapeTo(OpBuilder &b, Location loc, Value value,
                RankedTensorType type) {
  if (value.getType() == type)
    return value;
  auto shapeType = RankedTensorType::get({type.getRank()}, b.getI64Type());
  Value shape = arith::ConstantOp::create(
      b, loc, DenseIntElementsAttr::get(shapeType, type.getShape()));
  return tensor::ReshapeOp::create(b, loc, type, value, shape);
}

/// ReduceMean/ReduceMax/ReduceSum over constant axes.
template <typename ReduceOp, int Kind> // 0 sum, 1 mean, 2 max
struct ReduceLowering : OpRewritePattern<ReduceOp> {
  using OpRewritePattern<ReduceOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    auto inType = dyn_cast<RankedTensorType>(op.getData().getType());
    if (!resultType || !resultType.hasStaticShape() || !inType ||
        !inType.hasStaticShape() || !isFloat(resultType))
      return rewriter.notifyMatchFailure(op, "needs static float shapes");
    int64_t rank = inType.getRank();
    SmallVector<int64_t> axes;
    if (isa<NoneType>(op.getAxes().getType())) {
      if (op.getNoopWithEmptyAxes())
        return rewriter.notifyMatchFailure(op, "noop reductions not lowered");
      for (int64_t i = 0; i < rank; ++i)
        axes.push_back(i);
    } else {
      auto values = getConstantInts(op.getAxes());
      if (!values)
        return rewriter.notifyMatchFailure(op, "needs constant axes");
      for (int64_t a : *values)
        axes.push_back(a < 0 ? a + rank : a);
      if (axes.empty())
        for (int64_t i = 0; i < rank; ++i)
          axes.push_back(i);
    }
    Location loc = op.getLoc();
    Value reduced =
        reduceKeepDims(rewriter, loc, op.getData(), axes, Kind == 2);
    if (Kind == 1) {
      int64_t count = 1;
      for (int64_t a : axes)
        count *= inType.getDimSize(a);
      reduced = buildElementwise(rewriter, loc, ValueRange{reduced},
                                 cast<RankedTensorType>(reduced.getType()), op,
                                 [count](OpBuilder &b, Location l, ValueRange a,
                                         Type t, Operation *) -> Value {
                                   return arith::DivFOp::create(
                                       b, l, a[0],
                                       floatConst(b, l, t, double(count)));
                                 });
    }
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, reduced, resultType));
    return success();
  }
};

/// Inference BatchNormalization: (x - mean) * scale / sqrt(var + eps) + B,
/// the per-channel parameters read along dim 1.
struct BatchNormLowering : OpRewritePattern<BatchNormalizationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormalizationOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape() || !isStatic(op.getX()) ||
        !isFloat(type))
      return rewriter.notifyMatchFailure(op, "needs static float shapes");
    MLIRContext *ctx = getContext();
    int64_t rank = type.getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap channel =
        AffineMap::get(rank, 0, {getAffineDimExpr(1, ctx)}, ctx);
    double eps = op.getEpsilon().convertToDouble();
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                         type.getElementType());
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type},
        ValueRange{op.getX(), op.getScale(), op.getB(), op.getInputMean(),
                   op.getInputVar()},
        ValueRange{init}, {id, channel, channel, channel, channel, id},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [eps](OpBuilder &b, Location l, ValueRange a) {
          Type t = a[0].getType();
          Value centered = arith::SubFOp::create(b, l, a[0], a[3]);
          Value std = math::SqrtOp::create(
              b, l,
              arith::AddFOp::create(b, l, a[4], floatConst(b, l, t, eps)));
          Value scaled = arith::DivFOp::create(
              b, l, arith::MulFOp::create(b, l, centered, a[1]), std);
          linalg::YieldOp::create(
              b, l, Value(arith::AddFOp::create(b, l, scaled, a[2])));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// LayerNormalization (Y only): normalize over the dims from `axis` on.
struct LayerNormLowering : OpRewritePattern<LayerNormalizationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LayerNormalizationOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getY().getType());
    if (!type || !type.hasStaticShape() || !isStatic(op.getX()) ||
        !isFloat(type) || !isa<NoneType>(op.getMean().getType()) ||
        !isa<NoneType>(op.getInvStdDev().getType()))
      return rewriter.notifyMatchFailure(op, "needs static shapes, Y only");
    int64_t rank = type.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis()); // I64Attr: uint64_t
    if (axis < 0)
      axis += rank;
    SmallVector<int64_t> axes;
    int64_t count = 1;
    for (int64_t i = axis; i < rank; ++i) {
      axes.push_back(i);
      count *= type.getDimSize(i);
    }
    Location loc = op.getLoc();
    auto divide = [count](OpBuilder &b, Location l, ValueRange a, Type t,
                          Operation *) -> Value {
      return arith::DivFOp::create(b, l, a[0],
                                   floatConst(b, l, t, double(count)));
    };
    Value sum = reduceKeepDims(rewriter, loc, op.getX(), axes, false);
    auto keptType = cast<RankedTensorType>(sum.getType());
    Value mean =
        buildElementwise(rewriter, loc, ValueRange{sum}, keptType, op, divide);
    Value centered = buildElementwise(
        rewriter, loc, ValueRange{op.getX(), mean}, type, op,
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
        ValueRange{reduceKeepDims(rewriter, loc, squares, axes, false)},
        keptType, op, divide);
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
    // Mean and InvStdDev are absent (`none`): fresh `none` values stand in.
    Value none = NoneOp::create(rewriter, loc);
    SmallVector<Value> results{y, none, none};
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Concat: each input inserted at its offset along the axis.
struct ConcatLowering : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape() ||
        !llvm::all_of(op.getInputs(), isStatic))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t rank = type.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    Location loc = op.getLoc();
    Value result = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                           type.getElementType());
    int64_t offset = 0;
    for (Value input : op.getInputs()) {
      auto inType = cast<RankedTensorType>(input.getType());
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes, strides(rank, rewriter.getIndexAttr(1));
      offsets[axis] = rewriter.getIndexAttr(offset);
      for (int64_t d : inType.getShape())
        sizes.push_back(rewriter.getIndexAttr(d));
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             offsets, sizes, strides);
      offset += inType.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Slice with constant starts/ends/axes and positive steps.
struct SliceLowering : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto inType = dyn_cast<RankedTensorType>(op.getData().getType());
    if (!type || !type.hasStaticShape() || !inType || !inType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    auto starts = getConstantInts(op.getStarts());
    auto ends = getConstantInts(op.getEnds());
    std::optional<SmallVector<int64_t>> axes, steps;
    if (!isa<NoneType>(op.getAxes().getType()))
      axes = getConstantInts(op.getAxes());
    if (!isa<NoneType>(op.getSteps().getType()))
      steps = getConstantInts(op.getSteps());
    if (!starts || !ends || (!isa<NoneType>(op.getAxes().getType()) && !axes) ||
        (!isa<NoneType>(op.getSteps().getType()) && !steps))
      return rewriter.notifyMatchFailure(op, "needs constant slice operands");
    int64_t rank = inType.getRank();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)),
        strides(rank, rewriter.getIndexAttr(1)), sizes;
    for (int64_t d : type.getShape())
      sizes.push_back(rewriter.getIndexAttr(d));
    for (size_t i = 0; i < starts->size(); ++i) {
      int64_t axis = axes ? (*axes)[i] : static_cast<int64_t>(i);
      if (axis < 0)
        axis += rank;
      int64_t step = steps ? (*steps)[i] : 1;
      if (step <= 0)
        return rewriter.notifyMatchFailure(op, "negative steps not lowered");
      int64_t size = inType.getDimSize(axis);
      int64_t start = (*starts)[i] < 0 ? (*starts)[i] + size : (*starts)[i];
      offsets[axis] =
          rewriter.getIndexAttr(std::clamp<int64_t>(start, 0, size));
      strides[axis] = rewriter.getIndexAttr(step);
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, op.getData(), offsets, sizes, strides);
    return success();
  }
};

/// Gather along `axis`: a generic over the output that reads the index and
/// extracts from the data (negative indices count from the end).
struct GatherLowering : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto dataType = dyn_cast<RankedTensorType>(op.getData().getType());
    auto indexType = dyn_cast<RankedTensorType>(op.getIndices().getType());
    if (!type || !type.hasStaticShape() || !dataType ||
        !dataType.hasStaticShape() || !indexType || !indexType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    MLIRContext *ctx = getContext();
    int64_t rank = type.getRank(), q = indexType.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += dataType.getRank();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t i = 0; i < q; ++i)
      indexExprs.push_back(getAffineDimExpr(axis + i, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, indexExprs, ctx),
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    Value data = op.getData();
    int64_t axisSize = dataType.getDimSize(axis);
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                         type.getElementType());
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type}, ValueRange{op.getIndices()},
        ValueRange{init}, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value index =
              arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value size = arith::ConstantIndexOp::create(b, l, axisSize);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value negative = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::slt, index, zero);
          index = arith::SelectOp::create(
              b, l, negative, arith::AddIOp::create(b, l, index, size), index);
          SmallVector<Value> coords;
          for (int64_t i = 0; i < axis; ++i)
            coords.push_back(linalg::IndexOp::create(b, l, i));
          coords.push_back(index);
          for (int64_t i = axis + q; i < rank; ++i)
            coords.push_back(linalg::IndexOp::create(b, l, i));
          linalg::YieldOp::create(
              b, l, Value(tensor::ExtractOp::create(b, l, data, coords)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Expand: broadcast to the static result shape.
struct ExpandLowering : OpRewritePattern<ExpandOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ExpandOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape() || !isStatic(op.getInput()))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Value result = buildElementwise(
        rewriter, op.getLoc(), ValueRange{op.getInput()}, type, op,
        [](OpBuilder &, Location, ValueRange a, Type, Operation *) -> Value {
          return a[0];
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ConstantOfShape with a static result: a filled tensor.
struct ConstantOfShapeLowering : OpRewritePattern<ConstantOfShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConstantOfShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    TypedAttr fill;
    if (auto value = op.getValue())
      fill = cast<TypedAttr>(
          cast<DenseElementsAttr>(*value).getSplatValue<Attribute>());
    else
      fill = rewriter.getZeroAttr(type.getElementType());
    if (fill.getType() != type.getElementType())
      return rewriter.notifyMatchFailure(op, "value type mismatch");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(type, fill));
    return success();
  }
};

struct ConvertDsmpToLinalgPass final
    : mlir::dsmp::impl::ConvertDsmpToLinalgPassBase<ConvertDsmpToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    legalizeTF32(getOperation());
    RewritePatternSet patterns(ctx);
    addElementwisePatterns(patterns);
    patterns.add<
        GemmLowering, MatMulLowering, TransposeLowering, ConstantLowering,
        IdentityLowering, ConvLowering, ConvTransposeLowering, ResizeLowering,
        IfLowering, PoolLowering<MaxPoolOp, true>,
        PoolLowering<AveragePoolOp, false>, GlobalAveragePoolLowering,
        SoftmaxLowering, ReduceLowering<ReduceSumOp, 0>,
        ReduceLowering<ReduceMeanOp, 1>, ReduceLowering<ReduceMaxOp, 2>,
        BatchNormLowering, LayerNormLowering, ConcatLowering, SliceLowering,
        GatherLowering, ExpandLowering, ConstantOfShapeLowering>(ctx);
    for (StringRef name :
         {"dsmp.reshape", "dsmp.flatten", "dsmp.squeeze", "dsmp.unsqueeze"})
      patterns.add<StaticReshapeLowering>(name, ctx);
    int64_t before = 0;
    getOperation().walk([&](Operation *op) {
      if (isa<DsmpDialect>(op->getDialect()))
        ++before;
    });
    // Folding is off: it would fold dsmp ops before they are lowered.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
    bool failedAny = false;
    int64_t after = 0;
    getOperation().walk([&](Operation *op) {
      if (!isa<DsmpDialect>(op->getDialect()))
        return;
      ++after;
      if (isa<NoneOp>(op)) // stands for an absent value; its users matter
        return;
      op->emitOpError("is not lowered to linalg yet (static shapes and the "
                      "ops listed in the pass description only)");
      failedAny = true;
    });
    numLowered += before - after;
    if (failedAny)
      return signalPassFailure();
    // Drop the `none` values the lowered ops no longer use.
    getOperation().walk([](NoneOp op) {
      if (op->use_empty())
        op->erase();
    });
  }
};

} // namespace
