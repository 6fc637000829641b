//===- DsmpTraits.h - dsmp op traits ----------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECTS_DSMP_IR_DSMPTRAITS_H
#define DSMP_DIALECTS_DSMP_IR_DSMPTRAITS_H

#include "mlir/IR/OpDefinition.h"

#include "dialects/Dsmp/IR/DsmpEnums.h.inc"

namespace mlir::dsmp::OpTrait {

/// Marks an op that has an ONNX operator of the same CamelCase name.
template <typename ConcreteType>
class OnnxOp : public ::mlir::OpTrait::TraitBase<ConcreteType, OnnxOp> {};

/// Gives an op its precision class as a compile-time constant.
template <::mlir::dsmp::OpClass Class> struct OpClassIs {
  template <typename ConcreteType>
  class Impl : public ::mlir::OpTrait::TraitBase<ConcreteType, Impl> {
  public:
    static constexpr ::mlir::dsmp::OpClass kOpClass = Class;
  };
};

} // namespace mlir::dsmp::OpTrait

#endif // DSMP_DIALECTS_DSMP_IR_DSMPTRAITS_H
