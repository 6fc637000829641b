//===- CoherentRounding.h - Rounding errors shared by equal values -------===//
//
// A format's rounding error is a function of the value rounded: every
// element holding the same value gets the same error. The sensitivity
// energy sum_i (g_i x_i)^2 assumes independent errors; where many elements
// hold one value (a blank page's flat regions through the first layers, an
// 8-bit image's 256 levels, repeated embedding rows) their errors add
// coherently, and the energy is sum over groups of equal x of
// (sum_{i in G} g_i x_i)^2. On ppocr_det_v4's rendered page the
// independent form under-predicted the early backbone's rounding 5-36x.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_PRECISION_COHERENTROUNDING_H
#define DSMP_PASSES_PRECISION_COHERENTROUNDING_H

#include "llvm/ADT/ArrayRef.h"

namespace mlir::dsmp {

/// Whether every format dsmp assigns holds x exactly, or so nearly that
/// rounding it changes nothing that counts: zero, or at most 3 significant
/// bits with |x| in [2^-6, 448] (FP8 E4M3's normal range; E5M2 keeps 3
/// bits), give or take 128 f32 steps (2^-16 relative, under a twentieth of
/// f16's rounding). A Clip's saturated 6, a HardSigmoid's 1, a mask's
/// ones, a saturated sigmoid's 0.99999994, a uniform softmax's 1/16 +- a
/// few f32 steps.
bool roundsExactly(float x);

/// The energy of rounding x, given the products p = g * x (one per
/// element): sum over the groups of bit-equal x of (sum of their p)^2,
/// leaving out the x that round exactly; where no value repeats, sum p^2.
/// Up to 8192 elements the groups are exact. In a larger x, the values a
/// sample of 8192 (one element at a pseudo-random place per stretch) holds
/// three times (groups of about 3 n / 8192 elements and more) are grouped
/// exactly, and any other value by its runs of consecutive equal elements: one
/// pass, a hash lookup per run.
/// With `leaveOutExact` false, values that round exactly count too (an f8
/// format's per-tensor scale makes a saturated 6 or a mask's 1 round).
double roundingSquareSum(llvm::ArrayRef<float> p, llvm::ArrayRef<float> x,
                         bool leaveOutExact = true);

} // namespace mlir::dsmp

#endif // DSMP_PASSES_PRECISION_COHERENTROUNDING_H
