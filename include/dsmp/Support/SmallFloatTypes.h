//===- SmallFloatTypes.h - MLIR's f8 types as dsmp::formats ---- -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The bit layout (dsmp::formats::SmallFloat) of MLIR's f8 element types, for
// the code that encodes or decodes them at compile time (the precision
// passes fold f8 weights) and in generated code (the f8 Q/DQ lowering).
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_SUPPORT_SMALLFLOATTYPES_H
#define DSMP_SUPPORT_SMALLFLOATTYPES_H

#include "dsmp/runtime/FloatFormats.h"

#include "mlir/IR/BuiltinTypes.h"

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

} // namespace mlir::dsmp

#endif // DSMP_SUPPORT_SMALLFLOATTYPES_H
