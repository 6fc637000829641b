//===- DsmpDialect.cpp - dsmp dialect registration --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpDialect.h"
#include "dialects/Dsmp/IR/DsmpOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::dsmp;

#include "dialects/Dsmp/IR/DsmpDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Dsmp/IR/DsmpAttrs.cpp.inc"

void DsmpDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Dsmp/IR/DsmpOps.cpp.inc"
      >();
  registerAttributes();
  attachVJPInterfaces(*getContext());
}

void DsmpDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Dsmp/IR/DsmpAttrs.cpp.inc"
      >();
}

Attribute DsmpDialect::lookupConvertedConstant(Attribute from, Type to) {
  std::lock_guard<std::mutex> lock(convertedConstantsMutex);
  return convertedConstants.lookup({from, to});
}

void DsmpDialect::rememberConvertedConstant(Attribute from, Type to,
                                            Attribute result) {
  std::lock_guard<std::mutex> lock(convertedConstantsMutex);
  convertedConstants[{from, to}] = result;
}

Operation *DsmpDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  if (isa<NoneType>(type))
    return NoneOp::create(builder, loc);
  if (auto elements = dyn_cast<ElementsAttr>(value))
    if (elements.getType() == type)
      return ConstantOp::create(builder, loc, type, elements);
  if (auto external = dyn_cast<ExternalAttr>(value))
    if (external.getType() == type)
      return ConstantOp::create(builder, loc, type, external);
  return nullptr;
}
