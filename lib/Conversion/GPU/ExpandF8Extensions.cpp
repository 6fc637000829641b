//===- ExpandF8Extensions.cpp - f8 -> f32 as integer code -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// LLVM has no f8 types (f8 buffers are i8 there), so an `arith.extf` from
// an f8 type, which an f8 GEMM's generated loops read their operands
// through, becomes integer code on the f8 bits: the normal values' f32
// bits assembled from exponent and mantissa, subnormals as mantissa x
// 2^(1 - bias - m), then the format's NaN, inf and sign.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "dsmp/Support/SmallFloatTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <cmath>
#include <limits>

namespace mlir::dsmp {
#define GEN_PASS_DEF_EXPANDF8EXTENSIONSPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;
namespace formats = ::dsmp::formats;

namespace {

/// The f32 value of the f8 `value` of layout `f`.
Value decode(OpBuilder &b, Location loc, Value value,
             const formats::SmallFloat &f) {
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  auto fc = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  };
  auto eq = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  };
  int m = f.mantissaBits, width = 1 + f.exponentBits + f.mantissaBits;
  Value code = arith::ExtUIOp::create(
      b, loc, i32,
      arith::BitcastOp::create(b, loc, b.getIntegerType(width), value));
  Value sign = arith::ShRUIOp::create(b, loc, code, c(width - 1));
  Value magnitude =
      arith::AndIOp::create(b, loc, code, c((1 << (width - 1)) - 1));
  Value exponent = arith::ShRUIOp::create(b, loc, magnitude, c(m));
  Value mantissa = arith::AndIOp::create(b, loc, magnitude, c((1 << m) - 1));
  // Normal: f32 exponent e - bias + 127, the mantissa at the top.
  Value normalBits = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(
          b, loc, arith::AddIOp::create(b, loc, exponent, c(127 - f.bias)),
          c(23)),
      arith::ShLIOp::create(b, loc, mantissa, c(23 - m)));
  Value normal = arith::BitcastOp::create(b, loc, f32, normalBits);
  Value subnormal = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, f32, mantissa),
      fc(std::ldexp(1.0, 1 - f.bias - m)));
  Value x =
      arith::SelectOp::create(b, loc, eq(exponent, c(0)), subnormal, normal);
  x = arith::SelectOp::create(b, loc, eq(sign, c(0)), x,
                              arith::NegFOp::create(b, loc, x));
  Value nan = fc(std::numeric_limits<double>::quiet_NaN());
  int64_t allOnes = (1 << f.exponentBits) - 1;
  if (!f.hasNegZero) // fnuz: the "negative zero" code is the NaN
    return arith::SelectOp::create(b, loc, eq(code, c(1 << (width - 1))), nan,
                                   x);
  if (f.hasInf) { // IEEE-like: all-ones exponent is inf (zero mantissa) or NaN
    Value inf = arith::SelectOp::create(
        b, loc, eq(sign, c(0)), fc(std::numeric_limits<double>::infinity()),
        fc(-std::numeric_limits<double>::infinity()));
    Value special =
        arith::SelectOp::create(b, loc, eq(mantissa, c(0)), inf, nan);
    return arith::SelectOp::create(b, loc, eq(exponent, c(allOnes)), special,
                                   x);
  }
  // E4M3FN: only all-ones exponent and mantissa is NaN.
  return arith::SelectOp::create(
      b, loc, eq(magnitude, c((1 << (width - 1)) - 1)), nan, x);
}

struct ExpandF8ExtensionsPass final
    : mlir::dsmp::impl::ExpandF8ExtensionsPassBase<ExpandF8ExtensionsPass> {
  void runOnOperation() override {
    SmallVector<arith::ExtFOp> extensions;
    getOperation()->walk([&](arith::ExtFOp op) {
      if (smallFloatOf(op.getIn().getType()))
        extensions.push_back(op);
    });
    for (arith::ExtFOp op : extensions) {
      OpBuilder b(op);
      Value wide = decode(b, op.getLoc(), op.getIn(),
                          *smallFloatOf(op.getIn().getType()));
      if (!op.getType().isF32())
        wide = op.getType().getIntOrFloatBitWidth() > 32
                   ? Value(arith::ExtFOp::create(b, op.getLoc(), op.getType(),
                                                 wide))
                   : Value(arith::TruncFOp::create(b, op.getLoc(), op.getType(),
                                                   wide));
      op.getResult().replaceAllUsesWith(wide);
      op.erase();
    }
  }
};

} // namespace
