//===- DftTable.h - A DFT as a product by a table ------------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The one place that knows the cosine and sine table dsmp multiplies
// signals by for ONNX's DFT and STFT (lib/Import/ONNX/Spectral.cpp), and
// that dsmp.dft_table folds to once its length is known.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECTS_DSMP_IR_DFTTABLE_H
#define DSMP_DIALECTS_DSMP_IR_DFTTABLE_H

#include <cstdint>
#include <vector>

namespace mlir::dsmp {

/// Bounds on the tables dsmp builds: a transform's length, and the table's
/// elements.
constexpr int64_t kMaxDftLength = int64_t(1) << 20;
constexpr int64_t kMaxDftTableElements = int64_t(1) << 24;

/// The bins a transform of `length` gives: length / 2 + 1 when onesided
/// (a real signal's spectrum is conjugate-symmetric), else length.
inline int64_t dftBins(int64_t length, bool onesided) {
  return onesided ? length / 2 + 1 : length;
}

/// Whether the table for `length` and `parts` is within the bounds.
inline bool dftTableFits(int64_t length, int64_t parts, bool onesided) {
  return length > 0 && length <= kMaxDftLength &&
         length * parts * dftBins(length, onesided) * 2 <= kMaxDftTableElements;
}

/// The row-major [length * parts, bins * 2] table T with x T = DFT(x) for a
/// signal x [length * parts] (parts 1: real values; 2: real and imaginary
/// parts interleaved, ONNX's complex layout), giving bins * 2 values (real
/// and imaginary parts interleaved). The forward transform multiplies by
/// exp(-2 pi i k n / length); the inverse by exp(+2 pi i k n / length) /
/// length.
std::vector<float> buildDftTable(int64_t length, int64_t parts, bool inverse,
                                 bool onesided);

/// The row-major [bins * parts, length] table T with X T = irfft(X): a
/// onesided spectrum X [bins * parts] (bins = length / 2 + 1, parts as
/// above) back to the `length` real samples whose spectrum it is half of
/// (numpy's irfft: bin 0's imaginary part, and the Nyquist bin's for an even
/// length, do not count; the other bins count twice, for their conjugates).
/// ONNX's DFT with inverse and onesided.
std::vector<float> buildInverseRealDftTable(int64_t length, int64_t parts);

} // namespace mlir::dsmp

#endif // DSMP_DIALECTS_DSMP_IR_DFTTABLE_H
