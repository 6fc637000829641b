//===- SmallFloatTypes.h - MLIR's f8 types as dsmp::formats -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The bit layout (dsmp::formats::SmallFloat) of MLIR's f8 element types, for
// the code that encodes or decodes them at compile time (the precision
// passes fold f8 weights) and in generated code (the f8 Q/DQ lowering),
// and the zero-point check both make.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_SUPPORT_SMALLFLOATTYPES_H
#define DSMP_SUPPORT_SMALLFLOATTYPES_H

#include "dsmp/Support/FloatFormats.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>

namespace mlir::dsmp {

/// The layout of an f8 element type, or null for any other type.
inline const ::dsmp::formats::SmallFloat *smallFloatOf(Type element) {
  namespace f = ::dsmp::formats;
  if (isa<Float8E4M3FNType>(element))
    return &f::kF8E4M3FN;
  if (isa<Float8E5M2Type>(element))
    return &f::kF8E5M2;
  if (isa<Float8E4M3FNUZType>(element))
    return &f::kF8E4M3FNUZ;
  if (isa<Float8E5M2FNUZType>(element))
    return &f::kF8E5M2FNUZ;
  return nullptr;
}

/// Whether an optional Q/DQ zero point is absent (`none`) or a constant
/// zero: the per-tensor f8 form dsmp folds and lowers.
inline bool isNoneOrZero(Value zeroPoint) {
  if (isa<NoneType>(zeroPoint.getType()))
    return true;
  DenseElementsAttr attr;
  return matchPattern(zeroPoint, m_Constant(&attr)) && attr.isSplat() &&
         std::all_of(attr.getRawData().begin(), attr.getRawData().end(),
                     [](char c) { return c == 0; });
}

} // namespace mlir::dsmp

#endif // DSMP_SUPPORT_SMALLFLOATTYPES_H
