//===- IntegerOps.cpp - Dynamically quantized ops as dsmp ops -- -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "IntegerOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::dsmp;
using namespace mlir::dsmp::onnx_import;
using llvm::Expected;
using llvm::SmallVector;

namespace {

llvm::Error invalid(const llvm::Twine &message) {
  return llvm::createStringError(message.str());
}

/// DynamicQuantizeLinear (uint8): the range of x widened to hold 0,
/// scale = (max - min) / 255, zero point = saturate(round(-min / scale)),
/// y = saturate(round(x / scale) + zero point), rounding half to even
/// (QuantizeLinear's own rounding, as the spec defines it).
Expected<SmallVector<Value>> dynamicQuantize(ArrayRef<Value> inputs,
                                             GraphBuilder &g) {
  Value x = inputs.empty() ? Value() : inputs[0];
  auto type = x ? dyn_cast<RankedTensorType>(x.getType()) : nullptr;
  if (!type || !type.getElementType().isF32())
    return invalid("DynamicQuantizeLinear's x must be a ranked f32 tensor");
  MLIRContext *ctx = type.getContext();
  Type f32 = type.getElementType();
  auto u8 = IntegerType::get(ctx, 8, IntegerType::Unsigned);
  Value zero = g.scalar(0.0, f32);
  Value lo = g.value("dsmp.min", {g.reduceAll("dsmp.reduce_min", x), zero});
  Value hi = g.value("dsmp.max", {g.reduceAll("dsmp.reduce_max", x), zero});
  if (!lo || !hi)
    return invalid("DynamicQuantizeLinear's range does not reduce");
  Value scale = g.div(g.sub(hi, lo), g.scalar(255.0, f32));
  Value zeroPoint =
      g.typed("dsmp.quantize_linear", {g.neg(lo), scale, g.none()},
              RankedTensorType::get({}, u8));
  Value y =
      g.typed("dsmp.quantize_linear", {x, scale, zeroPoint}, type.clone(u8));
  return SmallVector<Value>{y, scale, zeroPoint};
}

/// `v` as f32 minus its zero point `zp` (absent: none), `zp` reshaped to
/// `zpShape` first where that is given (a per-row or per-channel zero
/// point broadcast against `v`).
Value centred(GraphBuilder &g, Value v, Value zp,
              ArrayRef<int64_t> zpShape = {}) {
  Type f32 = Float32Type::get(v.getContext());
  Value wide = g.convert(v, f32);
  if (!zp)
    return wide;
  Value zpWide = g.convert(zp, f32);
  if (!zpShape.empty())
    zpWide = g.reshape(zpWide, zpShape);
  return g.sub(wide, zpWide);
}

bool isInteger8(Value v) {
  auto type = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
  return type && type.getElementType().isInteger(8);
}

/// MatMulInteger / ConvInteger: the float op of the centred operands, cast
/// to int32.
Expected<SmallVector<Value>> integerProduct(const onnx::NodeProto &node,
                                            ArrayRef<Value> inputs,
                                            GraphBuilder &g,
                                            FloatOpBuilder floatOp) {
  bool conv = node.op_type() == "ConvInteger";
  Value a = inputs.size() > 0 ? inputs[0] : Value();
  Value b = inputs.size() > 1 ? inputs[1] : Value();
  Value aZero = inputs.size() > 2 ? inputs[2] : Value();
  Value bZero = inputs.size() > 3 ? inputs[3] : Value();
  if (!isInteger8(a) || !isInteger8(b))
    return invalid(node.op_type() +
                   "'s operands must be ranked 8-bit integer tensors");
  auto aType = cast<RankedTensorType>(a.getType());
  auto bType = cast<RankedTensorType>(b.getType());
  auto zeroPointShape = [&](Value zp, RankedTensorType of,
                            bool perRow) -> Expected<SmallVector<int64_t>> {
    auto type = zp ? dyn_cast<RankedTensorType>(zp.getType()) : nullptr;
    if (!zp || (type && type.getRank() == 0))
      return SmallVector<int64_t>{};
    if (!type || !type.hasStaticShape() || type.getRank() != 1)
      return invalid(node.op_type() +
                     "'s zero points must be scalars or 1-D tensors");
    if (type.getNumElements() == 1)
      return SmallVector<int64_t>{};
    // Per output channel of a kernel [M, C, k...]: [M, 1, 1...]; per row
    // of A [..., M, K]: [M, 1]; per column of B [K, N]: [N] broadcasts.
    SmallVector<int64_t> shape;
    if (conv) {
      shape.assign(of.getRank(), 1);
      shape[0] = type.getNumElements();
    } else if (perRow) {
      shape = {type.getNumElements(), 1};
    }
    return shape;
  };
  auto aShape = zeroPointShape(aZero, aType, /*perRow=*/true);
  if (!aShape)
    return aShape.takeError();
  auto bShape = zeroPointShape(bZero, bType, /*perRow=*/false);
  if (!bShape)
    return bShape.takeError();
  if (conv && !aShape->empty())
    return invalid("ConvInteger's x_zero_point must be a scalar");
  Expected<Value> product =
      floatOp(conv ? "Conv" : "MatMul",
              {centred(g, a, aZero, *aShape), centred(g, b, bZero, *bShape)});
  if (!product)
    return product.takeError();
  return SmallVector<Value>{
      g.convert(*product, IntegerType::get(a.getContext(), 32))};
}

} // namespace

bool mlir::dsmp::onnx_import::isSpelledIntegerOp(const onnx::NodeProto &node) {
  bool standard = node.domain().empty() || node.domain() == "ai.onnx";
  StringRef type = node.op_type();
  return standard && (type == "DynamicQuantizeLinear" ||
                      type == "MatMulInteger" || type == "ConvInteger");
}

Expected<SmallVector<Value>> mlir::dsmp::onnx_import::importIntegerOp(
    const onnx::NodeProto &node, ArrayRef<Value> inputs, GraphBuilder &g,
    FloatOpBuilder floatOp) {
  if (node.op_type() == "DynamicQuantizeLinear")
    return dynamicQuantize(inputs, g);
  return integerProduct(node, inputs, g, floatOp);
}
