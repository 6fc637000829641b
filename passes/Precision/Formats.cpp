//===- Formats.cpp - Numeric facts about dsmp formats --------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Formats.h"

#include "dialects/Dsmp/IR/OnnxOpRegistry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dsmp;

const llvm::fltSemantics &mlir::dsmp::semanticsOf(Format format) {
  switch (format) {
  case Format::f32:
    return llvm::APFloat::IEEEsingle();
  case Format::tf32:
    return llvm::APFloat::FloatTF32();
  case Format::f16:
    return llvm::APFloat::IEEEhalf();
  case Format::bf16:
    return llvm::APFloat::BFloat();
  case Format::f8E4M3FN:
    return llvm::APFloat::Float8E4M3FN();
  case Format::f8E5M2:
    return llvm::APFloat::Float8E5M2();
  case Format::f8E4M3FNUZ:
    return llvm::APFloat::Float8E4M3FNUZ();
  case Format::f8E5M2FNUZ:
    return llvm::APFloat::Float8E5M2FNUZ();
  }
  llvm_unreachable("unknown format");
}

double mlir::dsmp::unitRoundoff(Format format) {
  return std::ldexp(1.0, -static_cast<int>(llvm::APFloat::semanticsPrecision(
                             semanticsOf(format))));
}

double mlir::dsmp::largestValue(Format format) {
  return llvm::APFloat::getLargest(semanticsOf(format)).convertToDouble();
}

double mlir::dsmp::smallestNormal(Format format) {
  return llvm::APFloat::getSmallestNormalized(semanticsOf(format))
      .convertToDouble();
}

bool mlir::dsmp::isF32Tensor(Type type, bool requireStaticShape) {
  auto tensor = dyn_cast<TensorType>(type);
  return tensor && tensor.getElementType().isF32() &&
         (!requireStaticShape || tensor.hasStaticShape());
}

void mlir::dsmp::setAttrsOf(Operation *op, ArrayRef<NamedAttribute> attrs) {
  NamedAttrList list(op->getDiscardableAttrDictionary());
  for (const NamedAttribute &attr : attrs)
    list.set(attr.getName(), attr.getValue());
  op->setDiscardableAttrs(list.getDictionary(op->getContext()));
}

DictionaryAttr mlir::dsmp::rangeOf(Value value) {
  if (Operation *def = value.getDefiningOp())
    return def->getAttrOfType<DictionaryAttr>("dsmp.range");
  auto arg = dyn_cast<BlockArgument>(value);
  auto graph =
      arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
  if (!graph || arg.getOwner() != &graph.getBody().front())
    return nullptr;
  return graph.getArgAttrOfType<DictionaryAttr>(arg.getArgNumber(),
                                                "dsmp.range");
}

std::string mlir::dsmp::nodeName(Operation *op) {
  return onnxNodeName(op->getLoc());
}

std::string mlir::dsmp::onnxTypeOf(Operation *op) {
  if (const OnnxOpInfo *info = lookupDsmpOp(op->getName().getStringRef()))
    return info->onnxType;
  return op->getName().getStringRef().str();
}
