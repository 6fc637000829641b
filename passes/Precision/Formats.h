//===- Formats.h - Numeric facts about dsmp formats ----------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_PRECISION_FORMATS_H
#define DSMP_PASSES_PRECISION_FORMATS_H

#include "dialects/Dsmp/IR/DsmpOps.h"

#include "llvm/ADT/APFloat.h"

namespace mlir::dsmp {

/// The APFloat semantics of a format (tf32 has its own).
const llvm::fltSemantics &semanticsOf(Format format);
/// Unit roundoff: half the distance from 1 to the next value, 2^-p.
double unitRoundoff(Format format);
/// The largest finite value and the smallest normal value.
double largestValue(Format format);
double smallestNormal(Format format);

/// The range analysis' histogram of |x| by binary exponent: bin i counts
/// [2^(i + lowest), 2^(i + lowest + 1)), the first and last bins open-ended.
constexpr int kRangeHistLowestExponent = -30, kRangeHistHighestExponent = 17;

/// Whether `type` is an f32 tensor (with a static shape if asked): the
/// values the precision passes measure and retype. An unranked one counts:
/// a dynamic graph's If may give different ranks per branch (squeeze at
/// batch 1), and the ops after it still get formats.
bool isF32Tensor(Type type, bool requireStaticShape = false);

/// The calibrated range (dsmp.range) of a value: its producer's, or a graph
/// input's argument attribute; null when none was measured.
DictionaryAttr rangeOf(Value value);

/// Sets these discardable attributes of `op` in one new dictionary
/// (Operation::setAttr builds one per call; the precision passes add a
/// handful to every op).
void setAttrsOf(Operation *op, ArrayRef<NamedAttribute> attrs);

/// On a cast dsmp-insert-casts puts on a constant operand of a 16-bit op:
/// the folded constant keeps every non-zero finite value non-zero and
/// finite. A value below the format's smallest subnormal becomes that
/// subnormal and one beyond its largest finite value becomes that value,
/// each with its sign. Round to nearest would flush an epsilon guard
/// (F.normalize's clamp_min(1e-12)) to 0, so 0 / clamp gives NaN, and
/// would turn a -1e9 mask into -inf.
inline constexpr llvm::StringLiteral kKeepNonzeroAttr = "dsmp.keep_nonzero";

/// The ONNX node name an op came from (its NameLoc), or "".
std::string nodeName(Operation *op);
/// The ONNX operator type of a dsmp op ("Conv"), or its op name.
std::string onnxTypeOf(Operation *op);

} // namespace mlir::dsmp

#endif // DSMP_PASSES_PRECISION_FORMATS_H
