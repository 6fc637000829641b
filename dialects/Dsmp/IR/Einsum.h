//===- Einsum.h - ONNX Einsum equations -------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An Einsum equation ("bij,bjk->bik", "...ii->...i", "i,i") read once for
// shape inference, the evaluator and the lowering: each operand's dims and
// the result's as labels, and the size of every label.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECTS_DSMP_IR_EINSUM_H
#define DSMP_DIALECTS_DSMP_IR_EINSUM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace mlir::dsmp {

struct EinsumEquation {
  /// Per operand, per dim, its label: a letter's index (a-z 0-25, A-Z
  /// 26-51), or an ellipsis dim (kEllipsis + its position from the right,
  /// so that ellipses of different ranks broadcast right-aligned).
  llvm::SmallVector<llvm::SmallVector<int, 4>, 2> operands;
  /// The result's labels: given after "->", or else the ellipsis dims then
  /// the letters that appear exactly once, in alphabetical order.
  llvm::SmallVector<int, 4> result;
  /// Every label the equation uses: the result's first (in result order),
  /// then those summed over (in order of first appearance). The lowering's
  /// loops and the evaluator's nest follow this order.
  llvm::SmallVector<int, 6> loops;

  static constexpr int kEllipsis = 64;

  /// Reads `equation` for operands of ranks `ranks`; the error says what
  /// does not fit (a term of the wrong rank, an unknown character, a
  /// result label no operand has).
  static llvm::Expected<EinsumEquation> parse(llvm::StringRef equation,
                                              llvm::ArrayRef<int64_t> ranks);

  /// The size of each label of `loops` (same order) given the operands'
  /// shapes (dynamic dims as negative numbers give a dynamic size); a size-1
  /// dim broadcasts against a larger one, any other mismatch is an error.
  llvm::Expected<llvm::SmallVector<int64_t, 6>>
  loopSizes(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes) const;

  /// How many of `loops` the result has (the rest are summed over).
  size_t numResultLoops() const { return result.size(); }

  /// The position of `label` in `loops`.
  size_t loopOf(int label) const;
};

} // namespace mlir::dsmp

#endif // DSMP_DIALECTS_DSMP_IR_EINSUM_H
