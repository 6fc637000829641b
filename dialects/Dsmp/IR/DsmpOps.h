//===- DsmpOps.h - dsmp operations, attributes and interfaces ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECTS_DSMP_IR_DSMPOPS_H
#define DSMP_DIALECTS_DSMP_IR_DSMPOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Dsmp/IR/DsmpDialect.h"
#include "dialects/Dsmp/IR/DsmpTraits.h"

#define GET_ATTRDEF_CLASSES
#include "dialects/Dsmp/IR/DsmpAttrs.h.inc"

namespace mlir::dsmp {
class PrecisionOpInterface;
namespace detail {
/// Default FLOP count of an op of class `cls` (see PrecisionOpInterface).
std::optional<int64_t> estimateFlops(Operation *op, OpClass cls);
/// Default formats an op of class `cls` may compute in.
llvm::SmallVector<Format> allowedFormats(Operation *op, OpClass cls);
/// The op's `acc` attribute, or f32 when it has none.
Format accumulationFormat(Operation *op);
} // namespace detail

/// On a cast to tf32 whose input already holds tf32 values (a weight that
/// dsmp-minimize-casts rounded at compile time): the cast only retypes, and
/// the lowering and the footprint give it no buffer of its own.
inline constexpr llvm::StringLiteral kInputRoundedAttr = "dsmp.input_rounded";

/// The element type that stores values of `format` (f32 for tf32).
Type getStorageType(MLIRContext *ctx, Format format);
/// The format of a float element type, if dsmp assigns it.
std::optional<Format> getFormatOf(Type elementType);
/// Attaches the VJPOpInterface models (DsmpVJP.cpp); the dialect does this
/// when it loads.
void attachVJPInterfaces(MLIRContext &ctx);
} // namespace mlir::dsmp

#include "dialects/Dsmp/IR/DsmpInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/Dsmp/IR/DsmpOps.h.inc"

#endif // DSMP_DIALECTS_DSMP_IR_DSMPOPS_H
