//===- GraphBuilder.cpp - Build dsmp ops, types inferred ------ -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/GraphBuilder.h"

#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "dialects/Dsmp/IR/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::dsmp;

Operation *GraphBuilder::create(StringRef name, ValueRange operands,
                                ArrayRef<NamedAttribute> attrs) {
  const OnnxOpInfo *info = lookupDsmpOp(name);
  if (!info)
    return nullptr;
  MLIRContext &ctx = *b.getContext();
  DictionaryAttr dict = DictionaryAttr::get(&ctx, attrs);
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addAttributes(attrs);
  unsigned numResults = info->numResults;
  for (unsigned i = 0; i < numResults; ++i) {
    RankedTensorType type = inferResultType(ctx, name, info->onnxType, i,
                                            SmallVector<Value>(operands), dict);
    if (!type)
      return nullptr;
    state.addTypes(type);
  }
  return b.create(state);
}

Value GraphBuilder::typed(StringRef name, ValueRange operands, Type resultType,
                          ArrayRef<NamedAttribute> attrs) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addAttributes(attrs);
  state.addTypes(resultType);
  return b.create(state)->getResult(0);
}

Value GraphBuilder::value(StringRef name, ValueRange operands,
                          ArrayRef<NamedAttribute> attrs) {
  Operation *op = create(name, operands, attrs);
  return op ? op->getResult(0) : Value();
}

Value GraphBuilder::none() { return NoneOp::create(b, loc); }

Value GraphBuilder::scalar(double v, Type elementType) {
  auto type = RankedTensorType::get({}, elementType);
  return ConstantOp::create(
      b, loc, type,
      DenseElementsAttr::get(type, b.getFloatAttr(elementType, v)));
}

Value GraphBuilder::i64s(ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getI64Type());
  return ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, values));
}

Value GraphBuilder::floats(RankedTensorType type, ArrayRef<float> values) {
  const llvm::fltSemantics &semantics =
      cast<FloatType>(type.getElementType()).getFloatSemantics();
  SmallVector<APFloat> converted;
  converted.reserve(values.size());
  for (float v : values) {
    APFloat f(v);
    bool lost;
    f.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
    converted.push_back(f);
  }
  return ConstantOp::create(b, loc, type,
                            DenseElementsAttr::get(type, converted));
}

Value GraphBuilder::reshape(Value v, ArrayRef<int64_t> shape) {
  if (cast<RankedTensorType>(v.getType()).getShape() == shape)
    return v;
  return value("dsmp.reshape", {v, i64s(shape)});
}

Value GraphBuilder::transpose(Value v, ArrayRef<int64_t> perm) {
  return value("dsmp.transpose", {v}, {array("perm", perm)});
}

Value GraphBuilder::convert(Value v, Type elementType) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == elementType)
    return v;
  return CastOp::create(b, loc, type.clone(elementType), v);
}

Value GraphBuilder::unbroadcast(Value grad, Type target) {
  auto gradType = cast<RankedTensorType>(grad.getType());
  auto targetType = cast<RankedTensorType>(target);
  if (gradType.getShape() == targetType.getShape())
    return grad;
  int64_t lead = gradType.getRank() - targetType.getRank();
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < gradType.getRank(); ++i)
    if (i < lead ||
        (targetType.getDimSize(i - lead) == 1 && gradType.getDimSize(i) != 1))
      axes.push_back(i);
  Value summed = grad;
  if (!axes.empty())
    summed = value("dsmp.reduce_sum", {grad, i64s(axes)}, {i64("keepdims", 1)});
  if (!summed)
    return {};
  return reshape(summed, targetType.getShape());
}

Value GraphBuilder::reduceAll(StringRef op, Value v) {
  return value(op, {v, none()}, {i64("keepdims", 0)});
}

Value GraphBuilder::selectOrZero(Value cond, Value a) {
  Type element = cast<RankedTensorType>(a.getType()).getElementType();
  return value("dsmp.where", {cond, a, scalar(0.0, element)});
}

Value GraphBuilder::finiteOrZero(Value a) {
  Type element = cast<RankedTensorType>(a.getType()).getElementType();
  return selectOrZero(value("dsmp.equal", {sub(a, a), scalar(0.0, element)}),
                      a);
}
