//===- ErrorFloor.h - rel-l2's absolute floor ------------------ -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Under rel-l2 an output's error is |y' - y| / max(|y|, floor * sqrt(n)),
// n its element count: where an output is (near) zero in FP32 (a sigmoid
// that saturates, a masked logit) it is judged by its absolute RMS error
// against the floor instead of by a ratio that rounding noise alone makes
// huge or infinite. dsmp-analyze-sensitivity seeds the adjoint with the same
// denominator, and the driver measures with it.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_PRECISION_ERRORFLOOR_H
#define DSMP_PASSES_PRECISION_ERRORFLOOR_H

#include <algorithm>

namespace mlir::dsmp {

/// Without --error-floor, an output's floor is this fraction of its largest
/// magnitude on the calibration data: it binds only where the output's RMS
/// falls below 1/1000 of its range, far below where rel-l2 means anything.
constexpr double kErrorFloorFraction = 1e-3;
/// ... and never below f16's smallest normal (2^-14), so an output that is
/// zero on every calibration input still has one; values below it are
/// subnormal in f16, whose relative error is unbounded.
constexpr double kSmallestErrorFloor = 0x1p-14;

/// The default floor of an output whose largest magnitude on the
/// calibration data is `amax`.
inline double defaultErrorFloor(double amax) {
  return std::max(kErrorFloorFraction * amax, kSmallestErrorFloor);
}

} // namespace mlir::dsmp

#endif // DSMP_PASSES_PRECISION_ERRORFLOOR_H
