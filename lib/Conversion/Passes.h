//===- Passes.h - dsmp conversion passes ------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_CONVERSION_PASSES_H
#define DSMP_LIB_CONVERSION_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::dsmp {

/// Marks the last op of the integer tf32 rounding that the lowering emits
/// (arith.bitcast i32 -> f32), for dsmp-round-tf32-on-device.
inline constexpr llvm::StringLiteral kTF32RoundingAttr = "dsmp.tf32_rounding";

/// The key of the metadata dsmp-tag-profile-ops wraps an op's location in:
/// {dsmp.profile_op = index into the module's dsmp.profile_ops}.
inline constexpr llvm::StringLiteral kProfileOpTag = "dsmp.profile_op";

#define GEN_PASS_DECL
#include "lib/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lib/Conversion/Passes.h.inc"

} // namespace mlir::dsmp

#endif // DSMP_LIB_CONVERSION_PASSES_H
