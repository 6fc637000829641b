//===- F8Scaling.h - Per-tensor scales of f8 operands --------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An f8 contraction reads its two operands through quantize/dequantize
// pairs with one scale per tensor, amax / (the format's largest value), so
// that the largest calibrated magnitude lands on the format's largest
// value (the "max" calibration of FP8 inference). Constants (weights) are
// measured from their data, activations from the calibrated range
// (dsmp.range of the op that computes them). With that scale, values below
// amax * smallestNormal / largest fall into the format's subnormals or to
// zero; the assignment refuses f8 where more than 1 % of an operand's
// nonzero values would.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_PRECISION_F8SCALING_H
#define DSMP_PASSES_PRECISION_F8SCALING_H

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dsmp/Support/SmallFloatTypes.h"

#include <optional>

namespace mlir::dsmp {

/// Whether `format` is one of the f8 formats.
bool isF8(Format format);

/// The f32 values of a constant (dense or in-memory resource), or false.
bool constantFloats(ConstantOp op, SmallVectorImpl<float> &values);

struct F8Operand {
  double amax = 0;              // largest magnitude (calibrated or of the data)
  double underflowFraction = 0; // of the nonzero values, below the normals
  /// The per-tensor scale: amax / largest (1 for an all-zero tensor).
  double scale(Format format) const;
};

/// What an f8 `format` would make of `operand`: from its data when it is a
/// constant, from its producer's calibrated range otherwise. None when
/// neither is known (a graph input, an op without a range).
std::optional<F8Operand> measureF8Operand(Value operand, Format format);

} // namespace mlir::dsmp

#endif // DSMP_PASSES_PRECISION_F8SCALING_H
