//===- DsmpInterfaces.td - dsmp op interfaces --------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECT_INTERFACES_TD
#define DSMP_DIALECT_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Dsmp_PrecisionOpInterface : OpInterface<"PrecisionOpInterface"> {
  let cppNamespace = "::mlir::dsmp";
  let description = [{
    Implemented by every dsmp compute op. It tells the precision passes what
    kind of arithmetic the op does (its class), how much of it (FLOPs, from
    the static shapes), which number formats it may compute in, and which
    format it accumulates in. The precision passes use only this interface,
    never concrete op classes.
  }];
  let methods = [
    InterfaceMethod<"The op's precision class.", "::mlir::dsmp::OpClass",
      "getOpClass", (ins), [{}], [{
        return ConcreteOp::kOpClass;
      }]>,
    InterfaceMethod<[{
        Floating-point operations for one execution of the op, counted from
        the static result and operand shapes (a multiply-add counts as 2).
        Returns std::nullopt when a needed dim is dynamic.
      }], "std::optional<int64_t>", "getFlopCount", (ins), [{}], [{
        return ::mlir::dsmp::detail::estimateFlops($_op.getOperation(),
                                                    ConcreteOp::kOpClass);
      }]>,
    InterfaceMethod<[{
        Formats the op may compute in. Empty when the op computes on
        integers or booleans only.
      }], "::llvm::SmallVector<::mlir::dsmp::Format>", "getAllowedFormats",
      (ins), [{}], [{
        return ::mlir::dsmp::detail::allowedFormats($_op.getOperation(),
                                                     ConcreteOp::kOpClass);
      }]>,
    InterfaceMethod<"The format the op accumulates in.",
      "::mlir::dsmp::Format", "getAccumulationFormat", (ins), [{}], [{
        return ::mlir::dsmp::detail::accumulationFormat($_op.getOperation());
      }]>
  ];
}

def Dsmp_VJPOpInterface : OpInterface<"VJPOpInterface"> {
  let cppNamespace = "::mlir::dsmp";
  let description = [{
    Vector-Jacobian products for reverse-mode differentiation. Given the
    gradient of a scalar with respect to each result, the op builds (as dsmp
    ops, at the builder's insertion point) the gradient with respect to each
    operand. The adjoint builder (passes/Precision/Adjoint.h) walks a graph
    backwards through this interface only; sensitivity analysis uses it
    today, training reuses it later.

    Operands that are constants (weights, attributes-as-inputs) or not
    floats get no gradient. Ops with regions (If) also give gradients to
    the outer values their regions read. The models live in
    dialects/Dsmp/IR/DsmpVJP.cpp and are attached to the ops when the
    dialect loads. They need static shapes.
  }];
  let methods = [
    InterfaceMethod<[{
        Appends to `grads` a (value, gradient) pair for each operand, or
        value captured by a region, that a gradient flows to, given
        `resultGrads` (one per result, null where none flows). Fails when
        the op's attributes or shapes are outside what the model handles.
      }], "::llvm::LogicalResult", "buildVJP",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ValueRange":$resultGrads,
           "::llvm::SmallVectorImpl<std::pair<::mlir::Value, ::mlir::Value>> &":$grads)>
  ];
}

#endif // DSMP_DIALECT_INTERFACES_TD
