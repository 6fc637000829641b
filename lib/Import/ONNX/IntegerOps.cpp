//===- IntegerOps.cpp - Quantized integer ops as dsmp ops ---- -*- C++ -*-===//
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

/// The shape a per-row (A [..., M, K]: [M, 1]), per-column (B [K, N]: [N],
/// broadcast as it is) or, with `conv`, per-channel ([M] followed by
/// `ones` ones: [M, 1, 1, 1] against a kernel [M, C, kh, kw], [M, 1, 1]
/// against an output [N, M, h, w]) quantization parameter `v` broadcasts
/// in; empty where `v` is absent or one value. `what` names it in the error.
Expected<SmallVector<int64_t>> parameterShape(const onnx::NodeProto &node,
                                              Value v, StringRef what,
                                              bool conv, bool perRow,
                                              int64_t ones) {
  auto type = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
  if (!v || (type && type.getRank() == 0))
    return SmallVector<int64_t>{};
  if (!type || !type.hasStaticShape() || type.getRank() != 1)
    return invalid(node.op_type() + "'s " + what +
                   " must be a scalar or a 1-D tensor");
  if (type.getNumElements() == 1)
    return SmallVector<int64_t>{};
  SmallVector<int64_t> shape;
  if (conv) {
    shape.assign(ones + 1, 1);
    shape[0] = type.getNumElements();
  } else if (perRow) {
    shape = {type.getNumElements(), 1};
  }
  return shape;
}

/// `v` as f32, reshaped to `shape` where that is given.
Value broadcastable(GraphBuilder &g, Value v, ArrayRef<int64_t> shape) {
  Value wide = g.convert(v, Float32Type::get(v.getContext()));
  return shape.empty() ? wide : g.reshape(wide, shape);
}

/// The f32 product (MatMul, or Conv with `bias` where given) of the 8-bit
/// integers `a` and `b` centred on their zero points: the integer product
/// itself while partial sums stay below 2^24.
Expected<Value> centredProduct(const onnx::NodeProto &node, bool conv, Value a,
                               Value aZero, Value b, Value bZero, Value bias,
                               GraphBuilder &g, FloatOpBuilder floatOp) {
  if (!isInteger8(a) || !isInteger8(b))
    return invalid(node.op_type() +
                   "'s operands must be ranked 8-bit integer tensors");
  int64_t aRank = cast<RankedTensorType>(a.getType()).getRank();
  int64_t bRank = cast<RankedTensorType>(b.getType()).getRank();
  auto aShape = parameterShape(node, aZero, "first zero point", conv,
                               /*perRow=*/true, aRank - 1);
  if (!aShape)
    return aShape.takeError();
  auto bShape = parameterShape(node, bZero, "second zero point", conv,
                               /*perRow=*/false, bRank - 1);
  if (!bShape)
    return bShape.takeError();
  if (conv && !aShape->empty())
    return invalid(node.op_type() + "'s x_zero_point must be a scalar");
  SmallVector<Value, 3> operands = {centred(g, a, aZero, *aShape),
                                    centred(g, b, bZero, *bShape)};
  if (bias)
    operands.push_back(g.convert(bias, Float32Type::get(a.getContext())));
  return floatOp(conv ? "Conv" : "MatMul", operands);
}

/// MatMulInteger / ConvInteger: the centred product, cast to int32.
Expected<SmallVector<Value>> integerProduct(const onnx::NodeProto &node,
                                            ArrayRef<Value> inputs,
                                            GraphBuilder &g,
                                            FloatOpBuilder floatOp) {
  auto input = [&](size_t i) {
    return i < inputs.size() ? inputs[i] : Value();
  };
  Expected<Value> product =
      centredProduct(node, node.op_type() == "ConvInteger", input(0), input(2),
                     input(1), input(3), Value(), g, floatOp);
  if (!product)
    return product.takeError();
  return SmallVector<Value>{
      g.convert(*product, IntegerType::get(product->getContext(), 32))};
}

/// QLinearMatMul / QLinearConv (inputs a, a_scale, a_zero_point, b,
/// b_scale, b_zero_point, y_scale, y_zero_point, and QLinearConv's int32
/// bias): the centred product plus the bias, times the multiplier a_scale *
/// b_scale / y_scale in f32 (per row, column or output channel where the
/// scales are), rounded half to even onto y's zero point and saturated:
/// QuantizeLinear with scale 1, as onnxruntime requantizes.
Expected<SmallVector<Value>> requantizedProduct(const onnx::NodeProto &node,
                                                ArrayRef<Value> inputs,
                                                GraphBuilder &g,
                                                FloatOpBuilder floatOp) {
  bool conv = node.op_type() == "QLinearConv";
  if (inputs.size() < 8 ||
      llvm::any_of(inputs.take_front(8), [](Value v) { return !v; }))
    return invalid(node.op_type() +
                   " takes a, a_scale, a_zero_point, b, b_scale, "
                   "b_zero_point, y_scale and y_zero_point");
  Value a = inputs[0], aScale = inputs[1], aZero = inputs[2], b = inputs[3],
        bScale = inputs[4], bZero = inputs[5], yScale = inputs[6],
        yZero = inputs[7];
  Value bias = conv && inputs.size() > 8 ? inputs[8] : Value();
  auto yZeroType = dyn_cast<RankedTensorType>(yZero.getType());
  if (!yZeroType || !isInteger8(yZero) || yZeroType.getNumElements() != 1)
    return invalid(node.op_type() +
                   "'s y_zero_point must be one 8-bit integer");
  for (Value scale : {aScale, bScale, yScale}) {
    auto type = dyn_cast<RankedTensorType>(scale.getType());
    if (!type || !type.getElementType().isF32())
      return invalid(node.op_type() + "'s scales must be f32 tensors");
  }
  if (bias) {
    auto type = dyn_cast<RankedTensorType>(bias.getType());
    if (!type || type.getRank() != 1 || !type.getElementType().isInteger(32))
      return invalid("QLinearConv's bias must be a 1-D int32 tensor");
  }
  Expected<Value> product =
      centredProduct(node, conv, a, aZero, b, bZero, bias, g, floatOp);
  if (!product)
    return product.takeError();
  auto productType = dyn_cast<RankedTensorType>(product->getType());
  if (!productType)
    return invalid(node.op_type() + "'s product has no rank");
  int64_t outRank = productType.getRank();
  // A per-channel w_scale scales the output's channels; a per-row a_scale
  // (QLinearMatMul) the rows, a per-column b_scale the columns.
  auto aScaleShape = parameterShape(node, aScale, "a_scale", /*conv=*/false,
                                    true, outRank - 2);
  if (!aScaleShape)
    return aScaleShape.takeError();
  auto bScaleShape =
      parameterShape(node, bScale, "b_scale", conv, false, outRank - 2);
  if (!bScaleShape)
    return bScaleShape.takeError();
  if (conv && !aScaleShape->empty())
    return invalid("QLinearConv's x_scale must be a scalar");
  auto yScaleType = cast<RankedTensorType>(yScale.getType());
  if (yScaleType.getNumElements() != 1)
    return invalid(node.op_type() + "'s y_scale must be one value");
  Value multiplier = g.div(g.mul(broadcastable(g, aScale, *aScaleShape),
                                 broadcastable(g, bScale, *bScaleShape)),
                           g.reshape(yScale, {}));
  Type f32 = Float32Type::get(a.getContext());
  Value y = g.typed(
      "dsmp.quantize_linear",
      {g.mul(*product, multiplier), g.scalar(1.0, f32), g.reshape(yZero, {})},
      productType.clone(yZeroType.getElementType()));
  return SmallVector<Value>{y};
}

} // namespace

bool mlir::dsmp::onnx_import::isSpelledIntegerOp(const onnx::NodeProto &node) {
  bool standard = node.domain().empty() || node.domain() == "ai.onnx";
  StringRef type = node.op_type();
  return standard &&
         llvm::is_contained({"DynamicQuantizeLinear", "MatMulInteger",
                             "ConvInteger", "QLinearMatMul", "QLinearConv"},
                            type);
}

Expected<SmallVector<Value>> mlir::dsmp::onnx_import::importIntegerOp(
    const onnx::NodeProto &node, ArrayRef<Value> inputs, GraphBuilder &g,
    FloatOpBuilder floatOp) {
  if (node.op_type() == "DynamicQuantizeLinear")
    return dynamicQuantize(inputs, g);
  if (StringRef(node.op_type()).starts_with("QLinear"))
    return requantizedProduct(node, inputs, g, floatOp);
  return integerProduct(node, inputs, g, floatOp);
}
