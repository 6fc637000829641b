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

#endif // DSMP_DIALECT_INTERFACES_TD
