//===- DsmpOps.cpp - dsmp op verifiers, folders and interfaces --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/Einsum.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::dsmp;

#include "dialects/Dsmp/IR/DsmpEnums.cpp.inc"
#include "dialects/Dsmp/IR/DsmpInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

namespace {

std::optional<int64_t> staticNumElements(Type type) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return std::nullopt;
  return shaped.getNumElements();
}

int64_t rankOf(Value value) {
  if (auto ranked = dyn_cast<RankedTensorType>(value.getType()))
    return ranked.getRank();
  return -1;
}

bool isNone(Value value) { return isa<NoneType>(value.getType()); }

/// Shape checks only apply when every tensor the op touches is ranked.
bool hasUnranked(Operation *op) {
  auto unranked = [](Type t) { return isa<UnrankedTensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), unranked) ||
         llvm::any_of(op->getResultTypes(), unranked);
}

/// Checks `axis` lies in [-rank, rank + extra).
LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank,
                         StringRef name = "axis", int64_t extra = 0) {
  if (rank < 0)
    return success();
  if (axis < -rank - extra || axis >= rank + extra)
    return op->emitOpError()
           << name << " " << axis << " is out of range for rank " << rank;
  return success();
}

/// Checks that `value`, when present, is a 1-D tensor.
LogicalResult verify1D(Operation *op, Value value, StringRef name) {
  if (isNone(value))
    return success();
  if (rankOf(value) != 1)
    return op->emitOpError() << "expects " << name << " to be a 1-D tensor";
  return success();
}

LogicalResult verifyAutoPad(Operation *op, StringRef autoPad) {
  if (!llvm::is_contained({"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"},
                          autoPad))
    return op->emitOpError() << "auto_pad must be NOTSET, SAME_UPPER, "
                                "SAME_LOWER or VALID, got '"
                             << autoPad << "'";
  return success();
}

/// Checks the spatial attributes of Conv, ConvTranspose and the pools.
LogicalResult verifyWindow(Operation *op, int64_t spatialRank,
                           std::optional<ArrayRef<int64_t>> kernel,
                           std::optional<ArrayRef<int64_t>> strides,
                           std::optional<ArrayRef<int64_t>> dilations,
                           std::optional<ArrayRef<int64_t>> pads) {
  auto check = [&](std::optional<ArrayRef<int64_t>> values, StringRef name,
                   int64_t size, bool positive) -> LogicalResult {
    if (!values)
      return success();
    if (static_cast<int64_t>(values->size()) != size)
      return op->emitOpError() << name << " has " << values->size()
                               << " entries, expected " << size;
    for (int64_t v : *values)
      if (positive ? v < 1 : v < 0)
        return op->emitOpError() << name << " entries must be "
                                 << (positive ? "positive" : "non-negative");
    return success();
  };
  if (spatialRank < 0)
    return success();
  if (failed(check(kernel, "kernel_shape", spatialRank, true)) ||
      failed(check(strides, "strides", spatialRank, true)) ||
      failed(check(dilations, "dilations", spatialRank, true)) ||
      failed(check(pads, "pads", 2 * spatialRank, false)))
    return failure();
  return success();
}

bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Returns the elements of a small constant operand, if it is one.
DenseElementsAttr constantElements(Attribute attr) {
  return dyn_cast_if_present<DenseElementsAttr>(attr);
}

} // namespace

//===----------------------------------------------------------------------===//
// Formats and PrecisionOpInterface defaults
//===----------------------------------------------------------------------===//

Type mlir::dsmp::getStorageType(MLIRContext *ctx, Format format) {
  switch (format) {
  case Format::f32:
    return Float32Type::get(ctx);
  case Format::tf32:
    return FloatTF32Type::get(ctx);
  case Format::f16:
    return Float16Type::get(ctx);
  case Format::bf16:
    return BFloat16Type::get(ctx);
  case Format::f8E4M3FN:
    return Float8E4M3FNType::get(ctx);
  case Format::f8E5M2:
    return Float8E5M2Type::get(ctx);
  case Format::f8E4M3FNUZ:
    return Float8E4M3FNUZType::get(ctx);
  case Format::f8E5M2FNUZ:
    return Float8E5M2FNUZType::get(ctx);
  }
  llvm_unreachable("unknown format");
}

std::optional<Format> mlir::dsmp::getFormatOf(Type type) {
  if (isa<Float32Type>(type))
    return Format::f32;
  if (isa<FloatTF32Type>(type))
    return Format::tf32;
  if (isa<Float16Type>(type))
    return Format::f16;
  if (isa<BFloat16Type>(type))
    return Format::bf16;
  if (isa<Float8E4M3FNType>(type))
    return Format::f8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return Format::f8E5M2;
  if (isa<Float8E4M3FNUZType>(type))
    return Format::f8E4M3FNUZ;
  if (isa<Float8E5M2FNUZType>(type))
    return Format::f8E5M2FNUZ;
  return std::nullopt;
}

std::optional<int64_t> mlir::dsmp::detail::estimateFlops(Operation *op,
                                                         OpClass cls) {
  if (op->getNumResults() == 0)
    return 0;
  switch (cls) {
  case OpClass::data_movement:
    return 0;
  case OpClass::elementwise:
  case OpClass::transcendental: {
    auto n = staticNumElements(op->getResult(0).getType());
    if (!n)
      return std::nullopt;
    // An n-ary op does n-1 operations per element.
    int64_t perElement = std::max<int64_t>(1, op->getNumOperands() - 1);
    return *n * perElement;
  }
  case OpClass::reduction:
    return staticNumElements(op->getOperand(0).getType());
  case OpClass::normalization: {
    // Mean, variance, subtract, scale and shift: about 5 per element.
    auto n = staticNumElements(op->getOperand(0).getType());
    return n ? std::optional<int64_t>(5 * *n) : std::nullopt;
  }
  case OpClass::matmul:
  case OpClass::conv:
    return std::nullopt;
  }
  return std::nullopt;
}

llvm::SmallVector<Format> mlir::dsmp::detail::allowedFormats(Operation *op,
                                                             OpClass cls) {
  if (op->getNumResults() == 0)
    return {};
  auto type = dyn_cast<ShapedType>(op->getResult(0).getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return {};
  // A recurrence in a format computes every part of its unrolled steps in
  // it: tf32 and f8, which round a contraction's two operands only, would
  // round X and W but not the recurrent weights and state it mixes them
  // with (dsmp-decompose-recurrent then left it whole, and nothing runs it).
  if (isa<LSTMOp, GRUOp, RNNOp>(op))
    return {Format::f32, Format::f16, Format::bf16};
  switch (cls) {
  case OpClass::matmul:
  case OpClass::conv:
  case OpClass::data_movement:
    return {Format::f32,        Format::tf32,      Format::f16,
            Format::bf16,       Format::f8E4M3FN,  Format::f8E5M2,
            Format::f8E4M3FNUZ, Format::f8E5M2FNUZ};
  case OpClass::elementwise:
  case OpClass::transcendental:
  case OpClass::reduction:
  case OpClass::normalization:
    return {Format::f32, Format::f16, Format::bf16};
  }
  return {};
}

Format mlir::dsmp::detail::accumulationFormat(Operation *op) {
  if (auto acc = op->getAttrOfType<FormatAttr>("acc"))
    return acc.getValue();
  return Format::f32;
}

//===----------------------------------------------------------------------===//
// FLOP counts of the contractions
//===----------------------------------------------------------------------===//

std::optional<int64_t> MatMulOp::getFlopCount() {
  auto a = dyn_cast<RankedTensorType>(getA().getType());
  auto n = staticNumElements(getY().getType());
  if (!a || !n || a.getRank() == 0 || a.isDynamicDim(a.getRank() - 1))
    return std::nullopt;
  return 2 * *n * a.getDimSize(a.getRank() - 1);
}

std::optional<int64_t> GemmOp::getFlopCount() {
  auto a = dyn_cast<RankedTensorType>(getA().getType());
  auto n = staticNumElements(getY().getType());
  if (!a || !n || a.getRank() != 2)
    return std::nullopt;
  int64_t k = a.getDimSize(getTransA() ? 0 : 1);
  if (ShapedType::isDynamic(k))
    return std::nullopt;
  return 2 * *n * k + (isNone(getC()) ? 0 : *n);
}

/// 2 * output elements * (input channels per group) * kernel volume.
static std::optional<int64_t> convFlops(Value weight, Value out,
                                        int64_t reducedPerOutput) {
  auto w = dyn_cast<RankedTensorType>(weight.getType());
  auto n = staticNumElements(out.getType());
  if (!w || !w.hasStaticShape() || !n)
    return std::nullopt;
  int64_t kernel = 1;
  for (int64_t d : w.getShape().drop_front(2))
    kernel *= d;
  return 2 * *n * reducedPerOutput * kernel;
}

std::optional<int64_t> ConvOp::getFlopCount() {
  auto w = dyn_cast<RankedTensorType>(getW().getType());
  if (!w || w.getRank() < 2 || w.isDynamicDim(1))
    return std::nullopt;
  return convFlops(getW(), getY(), w.getDimSize(1));
}

std::optional<int64_t> ConvTransposeOp::getFlopCount() {
  // Each input element scatters into M/group * kernel outputs.
  auto w = dyn_cast<RankedTensorType>(getW().getType());
  auto x = staticNumElements(getX().getType());
  if (!w || !w.hasStaticShape() || !x)
    return std::nullopt;
  int64_t perInput = 1;
  for (int64_t d : w.getShape().drop_front(1))
    perInput *= d;
  return 2 * *x * perInput;
}

/// FLOPs of a recurrent layer with `gates` gates: per step and direction,
/// gates * H * (I + H) multiply-adds.
static std::optional<int64_t> recurrentFlops(Value x, Value w, Value r,
                                             int64_t gates) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  auto wt = dyn_cast<RankedTensorType>(w.getType());
  auto rt = dyn_cast<RankedTensorType>(r.getType());
  if (!xt || !wt || !rt || !xt.hasStaticShape() || !wt.hasStaticShape() ||
      !rt.hasStaticShape() || xt.getRank() != 3 || wt.getRank() != 3)
    return std::nullopt;
  int64_t stepsTimesBatch = xt.getDimSize(0) * xt.getDimSize(1);
  int64_t dirs = wt.getDimSize(0);
  int64_t rows = wt.getDimSize(1); // gates * H
  int64_t input = wt.getDimSize(2);
  int64_t hidden = rows / gates;
  return 2 * stepsTimesBatch * dirs * rows * (input + hidden);
}

std::optional<int64_t> LSTMOp::getFlopCount() {
  return recurrentFlops(getX(), getW(), getR(), 4);
}
std::optional<int64_t> GRUOp::getFlopCount() {
  return recurrentFlops(getX(), getW(), getR(), 3);
}
std::optional<int64_t> RNNOp::getFlopCount() {
  return recurrentFlops(getX(), getW(), getR(), 1);
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

template <typename OpTy> static LogicalResult verifyVariadic(OpTy op) {
  if (op->getNumOperands() == 0)
    return op.emitOpError("expects at least one input");
  return success();
}
LogicalResult MaxOp::verify() { return verifyVariadic(*this); }
LogicalResult MeanOp::verify() { return verifyVariadic(*this); }
LogicalResult MinOp::verify() { return verifyVariadic(*this); }
LogicalResult SumOp::verify() { return verifyVariadic(*this); }

LogicalResult EinsumOp::verify() {
  if (getInputs().empty())
    return emitOpError("expects at least one input");
  StringRef lhs = getEquation().split("->").first;
  size_t terms = lhs.count(',') + 1;
  if (terms != getInputs().size())
    return emitOpError() << "equation has " << terms << " input terms but "
                         << getInputs().size() << " inputs are given";
  if (hasUnranked(*this))
    return success();
  SmallVector<int64_t> ranks;
  for (Value input : getInputs())
    ranks.push_back(rankOf(input));
  auto eq = EinsumEquation::parse(getEquation(), ranks);
  if (!eq)
    return emitOpError() << llvm::toString(eq.takeError());
  if (static_cast<int64_t>(eq->numResultLoops()) != rankOf(getOutput()))
    return emitOpError() << "equation '" << getEquation() << "' gives a result "
                         << "of rank " << eq->numResultLoops() << ", not "
                         << rankOf(getOutput());
  return success();
}

std::optional<int64_t> EinsumOp::getFlopCount() {
  SmallVector<int64_t> ranks;
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value input : getInputs()) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type || !type.hasStaticShape())
      return std::nullopt;
    ranks.push_back(type.getRank());
    shapes.push_back(type.getShape());
  }
  auto eq = EinsumEquation::parse(getEquation(), ranks);
  if (!eq) {
    llvm::consumeError(eq.takeError());
    return std::nullopt;
  }
  auto sizes = eq->loopSizes(shapes);
  if (!sizes) {
    llvm::consumeError(sizes.takeError());
    return std::nullopt;
  }
  // One multiply per extra operand and one add, at every point of the
  // loop nest.
  int64_t points = 1;
  for (int64_t size : *sizes)
    points *= size;
  return points * static_cast<int64_t>(std::max<size_t>(1, ranks.size()));
}

LogicalResult ClipOp::verify() {
  if (hasUnranked(*this))
    return success();
  Type elementType = getElementTypeOrSelf(getInput().getType());
  for (Value bound : {getMin(), getMax()}) {
    if (isNone(bound))
      continue;
    if (getElementTypeOrSelf(bound.getType()) != elementType)
      return emitOpError("expects min and max of the input's element type");
    auto n = staticNumElements(bound.getType());
    if (n && *n != 1)
      return emitOpError("expects min and max to hold one element");
  }
  return success();
}

LogicalResult MatMulOp::verify() {
  Type element = getElementTypeOrSelf(getA().getType());
  if (getElementTypeOrSelf(getB().getType()) != element)
    return emitOpError("expects A and B of one element type");
  Type result = getElementTypeOrSelf(getY().getType());
  // The f32 result of 16-bit operands: their product stored unrounded.
  if (result != element &&
      !(result.isF32() && isa<Float16Type, BFloat16Type>(element)))
    return emitOpError("expects a result of the operands' element type, or "
                       "f32 for f16 and bf16 operands");
  if (hasUnranked(*this))
    return success();
  int64_t ra = rankOf(getA()), rb = rankOf(getB());
  if (ra < 1 || rb < 1)
    return emitOpError("expects operands of rank >= 1");
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  int64_t ka = a.getDimSize(ra - 1);
  int64_t kb = rb == 1 ? b.getDimSize(0) : b.getDimSize(rb - 2);
  if (!dimsCompatible(ka, kb))
    return emitOpError() << "contracting dims differ: " << ka << " vs " << kb;
  return success();
}

LogicalResult GemmOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (rankOf(getA()) != 2 || rankOf(getB()) != 2)
    return emitOpError("expects A and B of rank 2");
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  int64_t ka = a.getDimSize(getTransA() ? 0 : 1);
  int64_t kb = b.getDimSize(getTransB() ? 1 : 0);
  if (!dimsCompatible(ka, kb))
    return emitOpError() << "contracting dims differ: " << ka << " vs " << kb;
  if (!isNone(getC()) && rankOf(getC()) > 2)
    return emitOpError("expects C of rank <= 2");
  return success();
}

template <typename OpTy> static LogicalResult verifyConvLike(OpTy op) {
  if (hasUnranked(op))
    return success();
  int64_t rx = rankOf(op.getX()), rw = rankOf(op.getW());
  if (rx < 3)
    return op.emitOpError("expects X of rank >= 3 ([N, C, spatial...])");
  if (rw != rx)
    return op.emitOpError() << "expects W of rank " << rx << ", got " << rw;
  if (static_cast<int64_t>(op.getGroup()) < 1)
    return op.emitOpError("expects group >= 1");
  if (!isNone(op.getB()) && rankOf(op.getB()) != 1)
    return op.emitOpError("expects a 1-D bias B");
  if (failed(verifyAutoPad(op, op.getAutoPad())))
    return failure();
  return verifyWindow(op, rx - 2, op.getKernelShape(), op.getStrides(),
                      op.getDilations(), op.getPads());
}

LogicalResult ConvOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (failed(verifyConvLike(*this)))
    return failure();
  auto x = cast<RankedTensorType>(getX().getType());
  auto w = cast<RankedTensorType>(getW().getType());
  int64_t group = getGroup();
  if (!x.isDynamicDim(1) && !w.isDynamicDim(1) &&
      x.getDimSize(1) != w.getDimSize(1) * group)
    return emitOpError() << "input channels " << x.getDimSize(1)
                         << " != W channels " << w.getDimSize(1) << " * group "
                         << group;
  return success();
}

LogicalResult ConvTransposeOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (failed(verifyConvLike(*this)))
    return failure();
  auto x = cast<RankedTensorType>(getX().getType());
  auto w = cast<RankedTensorType>(getW().getType());
  if (!dimsCompatible(x.getDimSize(1), w.getDimSize(0)))
    return emitOpError() << "input channels " << x.getDimSize(1)
                         << " != W dim 0 " << w.getDimSize(0);
  return success();
}

LogicalResult BatchNormalizationOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (rankOf(getX()) < 2)
    return emitOpError("expects X of rank >= 2");
  int64_t channels = cast<RankedTensorType>(getX().getType()).getDimSize(1);
  for (Value v : {getScale(), getB(), getInputMean(), getInputVar()}) {
    if (rankOf(v) != 1)
      return emitOpError("expects 1-D scale, B, mean and var");
    if (!dimsCompatible(cast<RankedTensorType>(v.getType()).getDimSize(0),
                        channels))
      return emitOpError("expects scale, B, mean and var of size C");
  }
  return success();
}

LogicalResult LayerNormalizationOp::verify() {
  if (hasUnranked(*this))
    return success();
  return verifyAxis(*this, getAxis(), rankOf(getX()));
}

template <typename OpTy> static LogicalResult verifySoftmaxLike(OpTy op) {
  if (hasUnranked(op))
    return success();
  return verifyAxis(op, op.getAxis(), rankOf(op.getInput()));
}
LogicalResult HardmaxOp::verify() { return verifySoftmaxLike(*this); }
LogicalResult LogSoftmaxOp::verify() { return verifySoftmaxLike(*this); }
LogicalResult SoftmaxOp::verify() { return verifySoftmaxLike(*this); }

template <typename OpTy> static LogicalResult verifyReduce(OpTy op) {
  if (hasUnranked(op))
    return success();
  if (failed(verify1D(op, op.getAxes(), "axes")))
    return failure();
  if (op.getKeepdims() > 1)
    return op.emitOpError("expects keepdims to be 0 or 1");
  int64_t rank = rankOf(op.getData());
  if (op.getKeepdims() == 1 && rankOf(op.getReduced()) != rank)
    return op.emitOpError("with keepdims = 1 expects the result rank to "
                          "equal the input rank");
  return success();
}
LogicalResult ReduceL1Op::verify() { return verifyReduce(*this); }
LogicalResult ReduceL2Op::verify() { return verifyReduce(*this); }
LogicalResult ReduceLogSumOp::verify() { return verifyReduce(*this); }
LogicalResult ReduceLogSumExpOp::verify() { return verifyReduce(*this); }
LogicalResult ReduceMaxOp::verify() { return verifyReduce(*this); }
LogicalResult ReduceMeanOp::verify() { return verifyReduce(*this); }
LogicalResult ReduceMinOp::verify() { return verifyReduce(*this); }
LogicalResult ReduceProdOp::verify() { return verifyReduce(*this); }
LogicalResult ReduceSumOp::verify() { return verifyReduce(*this); }
LogicalResult ReduceSumSquareOp::verify() { return verifyReduce(*this); }

template <typename OpTy> static LogicalResult verifyArg(OpTy op) {
  if (hasUnranked(op))
    return success();
  int64_t rank = rankOf(op.getData());
  if (failed(verifyAxis(op, op.getAxis(), rank)))
    return failure();
  int64_t expected = op.getKeepdims() ? rank : rank - 1;
  if (rankOf(op.getReduced()) != expected)
    return op.emitOpError() << "expects a result of rank " << expected;
  return success();
}
LogicalResult ArgMaxOp::verify() { return verifyArg(*this); }
LogicalResult ArgMinOp::verify() { return verifyArg(*this); }

/// A windowed pool: X of rank >= 3, its window attributes fit the spatial
/// rank (and auto_pad is known, where the op has one).
template <typename OpTy> static LogicalResult verifyPool(OpTy op) {
  if (hasUnranked(op))
    return success();
  int64_t rank = rankOf(op.getX());
  if (rank < 3)
    return op.emitOpError("expects X of rank >= 3");
  if constexpr (std::is_same_v<OpTy, MaxPoolGradOp>) {
    if (rankOf(op.getY()) != rank)
      return op.emitOpError("expects Y of the same rank as X");
  } else if (failed(verifyAutoPad(op, op.getAutoPad()))) {
    return failure();
  }
  return verifyWindow(op, rank - 2, op.getKernelShape(), op.getStrides(),
                      op.getDilations(), op.getPads());
}
LogicalResult AveragePoolOp::verify() { return verifyPool(*this); }
LogicalResult MaxPoolOp::verify() { return verifyPool(*this); }
LogicalResult MaxPoolGradOp::verify() { return verifyPool(*this); }

LogicalResult ScanGradientsOp::verify() {
  if (getGradients().empty())
    return emitOpError("expects at least one gradient");
  if (!isa<FloatType>(getFormat()))
    return emitOpError("expects a float format, not ") << getFormat();
  auto scale = cast<ShapedType>(getInverseScale().getType());
  if (scale.hasStaticShape() && scale.getNumElements() != 1)
    return emitOpError("expects a one-element inverse_scale");
  if (getUnscaled().size() != getGradients().size())
    return emitOpError("expects one unscaled result per gradient");
  for (auto [grad, unscaled] : llvm::zip(getGradients(), getUnscaled())) {
    auto in = cast<ShapedType>(grad.getType());
    auto out = cast<ShapedType>(unscaled.getType());
    if (in.hasRank() && out.hasRank() && in.getShape() != out.getShape())
      return emitOpError("expects each unscaled result shaped as its gradient");
  }
  auto stats = cast<ShapedType>(getStats().getType());
  int64_t count = getGradients().size();
  if (stats.hasRank() &&
      (stats.getRank() != 2 || stats.getShape() != ArrayRef<int64_t>{count, 5}))
    return emitOpError("expects stats of shape [") << count << ", 5]";
  return success();
}

template <typename OpTy> static LogicalResult verifyGlobalPool(OpTy op) {
  if (hasUnranked(op))
    return success();
  int64_t rank = rankOf(op.getX());
  if (rank < 3)
    return op.emitOpError("expects X of rank >= 3");
  auto y = cast<RankedTensorType>(op.getY().getType());
  if (y.getRank() != rank)
    return op.emitOpError("expects Y of the same rank as X");
  for (int64_t d : y.getShape().drop_front(2))
    if (d != 1 && !ShapedType::isDynamic(d))
      return op.emitOpError("expects spatial dims of size 1 in Y");
  return success();
}
LogicalResult GlobalAveragePoolOp::verify() { return verifyGlobalPool(*this); }
LogicalResult GlobalMaxPoolOp::verify() { return verifyGlobalPool(*this); }

template <typename OpTy>
static LogicalResult verifyRecurrent(OpTy op, int64_t gates) {
  if (hasUnranked(op))
    return success();
  if (rankOf(op.getX()) != 3 || rankOf(op.getW()) != 3 ||
      rankOf(op.getR()) != 3)
    return op.emitOpError("expects X, W and R of rank 3");
  StringRef direction = op.getDirection();
  if (!llvm::is_contained({"forward", "reverse", "bidirectional"}, direction))
    return op.emitOpError() << "unknown direction '" << direction << "'";
  int64_t rows = cast<RankedTensorType>(op.getW().getType()).getDimSize(1);
  if (auto hidden = op.getHiddenSize())
    if (!ShapedType::isDynamic(rows) &&
        rows != gates * static_cast<int64_t>(*hidden))
      return op.emitOpError()
             << "expects W dim 1 to be " << gates << " * hidden_size";
  return success();
}
LogicalResult LSTMOp::verify() { return verifyRecurrent(*this, 4); }
LogicalResult GRUOp::verify() { return verifyRecurrent(*this, 3); }
LogicalResult RNNOp::verify() { return verifyRecurrent(*this, 1); }

LogicalResult ConcatOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (getInputs().empty())
    return emitOpError("expects at least one input");
  int64_t rank = rankOf(getConcatResult());
  for (Value input : getInputs())
    if (rankOf(input) != rank)
      return emitOpError("expects all inputs to have the result's rank");
  return verifyAxis(*this, getAxis(), rank);
}

LogicalResult ConstantOfShapeOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (rankOf(getInput()) != 1)
    return emitOpError("expects a 1-D shape input");
  if (auto value = getValue()) {
    if (value->getNumElements() != 1)
      return emitOpError("expects a one-element value");
    if (value->getElementType() != getOutput().getType().getElementType())
      return emitOpError("expects value of the result's element type");
  }
  return success();
}

LogicalResult ExpandOp::verify() {
  if (hasUnranked(*this))
    return success();
  return verify1D(*this, getShape(), "shape");
}

LogicalResult FlattenOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (rankOf(getOutput()) != 2)
    return emitOpError("expects a 2-D result");
  return verifyAxis(*this, getAxis(), rankOf(getInput()), "axis", 1);
}

LogicalResult GatherOp::verify() {
  if (hasUnranked(*this))
    return success();
  int64_t rank = rankOf(getData());
  if (failed(verifyAxis(*this, getAxis(), rank)))
    return failure();
  int64_t expected = rank - 1 + rankOf(getIndices());
  if (rankOf(getOutput()) != expected)
    return emitOpError() << "expects a result of rank " << expected;
  return success();
}

LogicalResult PadOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (failed(verify1D(*this, getPads(), "pads")) ||
      failed(verify1D(*this, getAxes(), "axes")))
    return failure();
  if (!llvm::is_contained({"constant", "reflect", "edge", "wrap"}, getMode()))
    return emitOpError() << "unknown mode '" << getMode() << "'";
  if (rankOf(getOutput()) != rankOf(getData()))
    return emitOpError("expects the result to have the input's rank");
  return success();
}

LogicalResult RangeOp::verify() {
  if (hasUnranked(*this))
    return success();
  for (Value v : {getStart(), getLimit(), getDelta()})
    if (rankOf(v) != 0)
      return emitOpError("expects rank-0 start, limit and delta");
  if (rankOf(getOutput()) != 1)
    return emitOpError("expects a 1-D result");
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (failed(verify1D(*this, getShape(), "shape")))
    return failure();
  int64_t length = cast<RankedTensorType>(getShape().getType()).getDimSize(0);
  if (!ShapedType::isDynamic(length) && length != rankOf(getReshaped()))
    return emitOpError() << "shape has " << length
                         << " entries but the result has rank "
                         << rankOf(getReshaped());
  auto in = staticNumElements(getData().getType());
  auto out = staticNumElements(getReshaped().getType());
  if (in && out && *in != *out)
    return emitOpError() << "cannot reshape " << *in << " elements into "
                         << *out;
  return success();
}

LogicalResult ResizeOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (!llvm::is_contained({"nearest", "linear", "cubic"}, getMode()))
    return emitOpError() << "unknown mode '" << getMode() << "'";
  if (rankOf(getY()) != rankOf(getX()))
    return emitOpError("expects the result to have the input's rank");
  return success();
}

LogicalResult ShapeOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (rankOf(getShape()) != 1)
    return emitOpError("expects a 1-D result");
  return success();
}

LogicalResult SliceOp::verify() {
  if (hasUnranked(*this))
    return success();
  Value operands[] = {getStarts(), getEnds(), getAxes(), getSteps()};
  StringRef names[] = {"starts", "ends", "axes", "steps"};
  for (auto [value, name] : llvm::zip(operands, names))
    if (failed(verify1D(*this, value, name)))
      return failure();
  if (rankOf(getOutput()) != rankOf(getData()))
    return emitOpError("expects the result to have the input's rank");
  return success();
}

LogicalResult SplitOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (getOutputs().empty())
    return emitOpError("expects at least one output");
  if (failed(verify1D(*this, getSplit(), "split")))
    return failure();
  return verifyAxis(*this, getAxis(), rankOf(getInput()));
}

LogicalResult SqueezeOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (failed(verify1D(*this, getAxes(), "axes")))
    return failure();
  if (rankOf(getSqueezed()) > rankOf(getData()))
    return emitOpError("expects a result of lower or equal rank");
  return success();
}

LogicalResult TriluOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (rankOf(getInput()) < 2)
    return emitOpError("expects an input of rank >= 2");
  if (auto k = dyn_cast<RankedTensorType>(getK().getType());
      k && k.hasStaticShape() && k.getNumElements() != 1)
    return emitOpError("expects k to hold one value");
  return success();
}

LogicalResult GridSampleOp::verify() {
  StringRef mode = getMode(), padding = getPaddingMode();
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return emitOpError() << "mode '" << mode
                         << "' is not bilinear, nearest or bicubic";
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return emitOpError() << "padding_mode '" << padding
                         << "' is not zeros, border or reflection";
  if (hasUnranked(*this))
    return success();
  if (rankOf(getX()) != 4 || rankOf(getGrid()) != 4)
    return emitOpError("expects X [N, C, H, W] and grid [N, Ho, Wo, 2]");
  auto grid = cast<RankedTensorType>(getGrid().getType());
  if (!dimsCompatible(grid.getDimSize(3), 2))
    return emitOpError("expects the grid's last dim to be 2");
  return success();
}

LogicalResult RoiAlignOp::verify() {
  StringRef mode = getMode(), transform = getCoordinateTransformationMode();
  if (mode != "avg" && mode != "max")
    return emitOpError() << "mode '" << mode << "' is not avg or max";
  if (transform != "half_pixel" && transform != "output_half_pixel")
    return emitOpError() << "coordinate_transformation_mode '" << transform
                         << "' is not half_pixel or output_half_pixel";
  if (getOutputHeight() < 1 || getOutputWidth() < 1 || getSamplingRatio() < 0)
    return emitOpError("expects output_height and output_width of at least "
                       "1 and a sampling_ratio of at least 0");
  if (hasUnranked(*this))
    return success();
  if (rankOf(getX()) != 4 || rankOf(getRois()) != 2 ||
      rankOf(getBatchIndices()) != 1)
    return emitOpError("expects X [N, C, H, W], rois [R, 4] and "
                       "batch_indices [R]");
  auto rois = cast<RankedTensorType>(getRois().getType());
  auto indices = cast<RankedTensorType>(getBatchIndices().getType());
  if (!dimsCompatible(rois.getDimSize(1), 4) ||
      !dimsCompatible(rois.getDimSize(0), indices.getDimSize(0)))
    return emitOpError("expects rois [R, 4] and batch_indices [R]");
  return success();
}

LogicalResult OneHotOp::verify() {
  if (hasUnranked(*this))
    return success();
  int64_t rank = rankOf(getOutput());
  if (rank != rankOf(getIndices()) + 1)
    return emitOpError("expects a result of rank one more than the indices'");
  auto axis = static_cast<int64_t>(getAxis());
  if (axis < -rank || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank " << rank;
  auto depth = cast<RankedTensorType>(getDepth().getType());
  if (depth.getRank() > 1 ||
      (depth.hasStaticShape() && depth.getNumElements() != 1))
    return emitOpError("expects depth to be one value");
  auto values = cast<RankedTensorType>(getValues().getType());
  if (values.getRank() != 1 ||
      (values.hasStaticShape() && values.getNumElements() != 2))
    return emitOpError("expects values to hold two elements (off, on)");
  return success();
}

LogicalResult TileOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (failed(verify1D(*this, getRepeats(), "repeats")))
    return failure();
  if (rankOf(getOutput()) != rankOf(getInput()))
    return emitOpError("expects the result to have the input's rank");
  return success();
}

LogicalResult TransposeOp::verify() {
  if (hasUnranked(*this))
    return success();
  auto in = cast<RankedTensorType>(getData().getType());
  auto out = cast<RankedTensorType>(getTransposed().getType());
  int64_t rank = in.getRank();
  if (out.getRank() != rank)
    return emitOpError("expects the result to have the input's rank");
  SmallVector<int64_t> perm;
  if (auto given = getPerm())
    perm.assign(given->begin(), given->end());
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  if (static_cast<int64_t>(perm.size()) != rank)
    return emitOpError() << "perm has " << perm.size() << " entries, expected "
                         << rank;
  llvm::SmallBitVector seen(rank);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen.test(p))
      return emitOpError("perm is not a permutation");
    seen.set(p);
  }
  for (int64_t i = 0; i < rank; ++i)
    if (!dimsCompatible(out.getDimSize(i), in.getDimSize(perm[i])))
      return emitOpError() << "result dim " << i
                           << " does not match the permuted input";
  return success();
}

LogicalResult UnsqueezeOp::verify() {
  if (hasUnranked(*this))
    return success();
  if (failed(verify1D(*this, getAxes(), "axes")))
    return failure();
  int64_t count = cast<RankedTensorType>(getAxes().getType()).getDimSize(0);
  if (!ShapedType::isDynamic(count) &&
      rankOf(getExpanded()) != rankOf(getData()) + count)
    return emitOpError() << "expects a result of rank "
                         << rankOf(getData()) + count;
  return success();
}

/// Checks a region ends in a yield whose types are compatible with `types`.
static LogicalResult verifyYield(Operation *op, Region &region, TypeRange types,
                                 StringRef what) {
  auto yield = dyn_cast<YieldOp>(region.front().getTerminator());
  if (!yield)
    return op->emitOpError() << what << " must end in dsmp.yield";
  if (yield.getResults().size() != types.size())
    return op->emitOpError() << what << " yields " << yield.getResults().size()
                             << " values, expected " << types.size();
  for (auto [got, want] : llvm::zip(yield.getResults().getTypes(), types))
    if (failed(verifyCompatibleShape(got, want)) ||
        getElementTypeOrSelf(got) != getElementTypeOrSelf(want))
      return op->emitOpError()
             << what << " yields " << got << " where the op has " << want;
  return success();
}

LogicalResult IfOp::verify() {
  // Branches may yield tensors of other ranks where the result is unranked.
  auto n = staticNumElements(getCond().getType());
  if (n && *n != 1)
    return emitOpError("expects a one-element condition");
  if (failed(
          verifyYield(*this, getThenBranch(), getResultTypes(), "then_branch")))
    return failure();
  return verifyYield(*this, getElseBranch(), getResultTypes(), "else_branch");
}

namespace {
/// An If whose condition is a constant becomes its taken branch. Only where
/// each yielded value has the If's result type (dsmp-refine-shapes gives
/// the If the taken branch's types first), so no user sees a type change.
struct InlineConstantIf final : OpRewritePattern<IfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IfOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr cond;
    if (!matchPattern(op.getCond(), m_Constant(&cond)) ||
        cond.getNumElements() != 1)
      return failure();
    Region &taken = *cond.getValues<bool>().begin() ? op.getThenBranch()
                                                    : op.getElseBranch();
    Block &block = taken.front();
    auto yield = cast<YieldOp>(block.getTerminator());
    if (yield.getResults().getTypes() != op.getResultTypes())
      return failure();
    SmallVector<Value> results(yield.getResults());
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&block, op);
    rewriter.replaceOp(op, results);
    return success();
  }
};
} // namespace

void IfOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                       MLIRContext *context) {
  results.add<InlineConstantIf>(context);
}

LogicalResult LoopOp::verify() {
  Block &body = getBody().front();
  size_t carried = getVInitial().size();
  if (body.getNumArguments() != carried + 2)
    return emitOpError() << "body takes " << body.getNumArguments()
                         << " arguments, expected " << carried + 2;
  if (getNumResults() < carried)
    return emitOpError("has fewer results than loop-carried values");
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || yield.getResults().size() != 1 + getNumResults())
    return emitOpError("body must yield the condition and one value per "
                       "result");
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

ParseResult ConstantOp::parse(OpAsmParser &parser, OperationState &result) {
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  Attribute value;
  if (parser.parseAttribute(value))
    return failure();
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed)
    return parser.emitError(parser.getNameLoc(), "expects a typed value");
  result.addAttribute("value", value);
  result.addTypes(typed.getType());
  return success();
}

void ConstantOp::print(OpAsmPrinter &p) {
  p.printOptionalAttrDict((*this)->getAttrs(), /*elidedAttrs=*/{"value"});
  p << ' ';
  p.printAttribute(getValue());
}

LogicalResult ConstantOp::verify() {
  auto type = cast<RankedTensorType>(getType());
  if (auto elements = dyn_cast<ElementsAttr>(getValue())) {
    if (elements.getType() != type)
      return emitOpError() << "value type " << elements.getType()
                           << " differs from the result type " << type;
    return success();
  }
  auto external = cast<ExternalAttr>(getValue());
  if (external.getType() != type)
    return emitOpError() << "value type " << external.getType()
                         << " differs from the result type " << type;
  if (!type.hasStaticShape())
    return emitOpError("external constants need a static shape");
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  uint64_t bytes =
      (static_cast<uint64_t>(type.getNumElements()) * bits + 7) / 8;
  if (external.getSize() != bytes)
    return emitOpError() << "external range of " << external.getSize()
                         << " bytes does not hold " << type << " (" << bytes
                         << " bytes)";
  return success();
}

// A ConstantLike op must always fold: MLIR's constant uniquing keys on the
// folded attribute, so external weights fold to their #dsmp.external range
// (two ranges never merge; folders that need values see no DenseElements).
OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

OpFoldResult NoneOp::fold(FoldAdaptor) { return UnitAttr::get(getContext()); }

OpFoldResult IdentityOp::fold(FoldAdaptor) { return getInput(); }

/// The values of a small float tensor computed from constants by shape
/// arithmetic (int -> float casts, Add, Sub, Mul, Div, Pow, Sqrt, Ceil,
/// Floor, Round, Clip, and Unsqueeze/Squeeze/Reshape/Concat of such values),
/// rounded as ONNX computes it in the value's own float type; none where
/// anything else feeds it. `budget` bounds the ops the walk visits (TF
/// "same" padding's chain is ~12 deep).
static std::optional<SmallVector<APFloat>> evaluateShapeFloat(Value value,
                                                              int &budget) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  auto element = type ? dyn_cast<FloatType>(type.getElementType()) : nullptr;
  Operation *def = value.getDefiningOp();
  if (!element || !def || --budget < 0 || !type.hasStaticShape() ||
      type.getNumElements() > 64)
    return std::nullopt;
  const llvm::fltSemantics &semantics = element.getFloatSemantics();
  int64_t n = type.getNumElements();
  if (def->hasTrait<::mlir::OpTrait::ConstantLike>()) {
    SmallVector<OpFoldResult, 1> folded;
    if (failed(def->fold(folded)) || folded.size() != 1)
      return std::nullopt;
    auto elements = constantElements(dyn_cast<Attribute>(folded.front()));
    if (!elements || elements.getElementType() != element)
      return std::nullopt;
    return llvm::to_vector(elements.getValues<APFloat>());
  }
  if (auto cast = dyn_cast<CastOp>(def)) {
    // From constant integers, rounded to the nearest float.
    DenseElementsAttr in;
    if (!matchPattern(cast.getInput(), m_Constant(&in)) ||
        !isa<IntegerType>(in.getElementType()) || in.getNumElements() != n)
      return std::nullopt;
    bool isSigned = !in.getElementType().isUnsignedInteger();
    SmallVector<APFloat> values;
    for (const APInt &v : in.getValues<APInt>()) {
      APFloat f(semantics);
      f.convertFromAPInt(v, isSigned, APFloat::rmNearestTiesToEven);
      values.push_back(f);
    }
    return values;
  }
  // Ops that keep the elements' order: the reshaped chain of TF "same"
  // padding (Unsqueeze each side, Concat them into Pad's pads).
  if (isa<UnsqueezeOp, SqueezeOp, ReshapeOp, IdentityOp>(def))
    return evaluateShapeFloat(def->getOperand(0), budget);
  if (isa<ConcatOp>(def) && type.getRank() == 1) {
    SmallVector<APFloat> values;
    for (Value piece : def->getOperands()) {
      auto in = evaluateShapeFloat(piece, budget);
      if (!in)
        return std::nullopt;
      values.append(in->begin(), in->end());
    }
    if (static_cast<int64_t>(values.size()) != n)
      return std::nullopt;
    return values;
  }
  if (auto clip = dyn_cast<ClipOp>(def)) {
    auto in = evaluateShapeFloat(clip.getInput(), budget);
    if (!in || static_cast<int64_t>(in->size()) != n)
      return std::nullopt;
    for (Value bound : {clip.getMin(), clip.getMax()}) {
      if (isa<NoneType>(bound.getType()))
        continue;
      auto limit = evaluateShapeFloat(bound, budget);
      if (!limit || limit->size() != 1)
        return std::nullopt;
      for (APFloat &v : *in)
        v = bound == clip.getMin() ? llvm::maximum(v, limit->front())
                                   : llvm::minimum(v, limit->front());
    }
    return in;
  }
  if (isa<CeilOp, FloorOp, RoundOp>(def)) {
    auto in = evaluateShapeFloat(def->getOperand(0), budget);
    if (!in || static_cast<int64_t>(in->size()) != n)
      return std::nullopt;
    auto mode = isa<CeilOp>(def)    ? APFloat::rmTowardPositive
                : isa<FloorOp>(def) ? APFloat::rmTowardNegative
                                    : APFloat::rmNearestTiesToEven;
    for (APFloat &v : *in)
      v.roundToIntegral(mode);
    return in;
  }
  // Sqrt and Pow in double, rounded once to the value's type (DINOv2's
  // sqrt(N) = N ** 0.5 patches per side).
  auto roundedDouble = [&](double v) {
    APFloat f(v);
    bool lost;
    f.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
    return f;
  };
  if (isa<SqrtOp>(def)) {
    auto in = evaluateShapeFloat(def->getOperand(0), budget);
    if (!in || static_cast<int64_t>(in->size()) != n)
      return std::nullopt;
    for (APFloat &v : *in)
      v = roundedDouble(std::sqrt(v.convertToDouble()));
    return in;
  }
  if (!isa<AddOp, SubOp, MulOp, DivOp, PowOp>(def))
    return std::nullopt;
  auto lhs = evaluateShapeFloat(def->getOperand(0), budget);
  auto rhs = evaluateShapeFloat(def->getOperand(1), budget);
  auto fits = [n](const std::optional<SmallVector<APFloat>> &v) {
    return v && (v->size() == 1 || static_cast<int64_t>(v->size()) == n);
  };
  if (!fits(lhs) || !fits(rhs))
    return std::nullopt;
  SmallVector<APFloat> values;
  for (int64_t i = 0; i < n; ++i) {
    APFloat a = (*lhs)[lhs->size() == 1 ? 0 : i];
    const APFloat &b = (*rhs)[rhs->size() == 1 ? 0 : i];
    auto rm = APFloat::rmNearestTiesToEven;
    if (isa<AddOp>(def))
      a.add(b, rm);
    else if (isa<SubOp>(def))
      a.subtract(b, rm);
    else if (isa<MulOp>(def))
      a.multiply(b, rm);
    else if (isa<DivOp>(def))
      a.divide(b, rm);
    else
      a = roundedDouble(std::pow(a.convertToDouble(), b.convertToDouble()));
    values.push_back(a);
  }
  return values;
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // Float shape arithmetic cast back to integers (MobileViT's
  // ceil(H / patch) * patch): the integers it gives, truncated as ONNX's
  // Cast truncates. Float math that stays float is left alone.
  auto intType = dyn_cast<RankedTensorType>(getType());
  if (intType && isa<IntegerType>(intType.getElementType()) &&
      intType.getElementType().getIntOrFloatBitWidth() > 1 &&
      intType.hasStaticShape()) {
    int budget = 64;
    if (auto values = evaluateShapeFloat(getInput(), budget);
        values &&
        static_cast<int64_t>(values->size()) == intType.getNumElements()) {
      unsigned width = intType.getElementType().getIntOrFloatBitWidth();
      SmallVector<APInt> ints;
      for (const APFloat &v : *values) {
        llvm::APSInt result(width, /*isUnsigned=*/false);
        bool exact;
        if (v.convertToInteger(result, APFloat::rmTowardZero, &exact) &
            APFloat::opInvalidOp)
          return {};
        ints.push_back(result);
      }
      return DenseElementsAttr::get(intType, ints);
    }
  }
  // Integer shape arithmetic: fold casts of constant integers.
  auto in = constantElements(adaptor.getInput());
  auto outType = dyn_cast<RankedTensorType>(getType());
  if (!outType)
    return {};
  // A small float constant widened exactly (a Resize's scales that an f16
  // export casts back to f32): shape inference reads it. Rounding casts
  // and weights are left to dsmp-minimize-casts, which converts in bulk.
  auto outFloat = dyn_cast<FloatType>(outType.getElementType());
  auto inFloat = in ? dyn_cast<FloatType>(in.getElementType()) : FloatType();
  auto ieee = [](FloatType t) {
    return t && (t.isF16() || t.isBF16() || t.isF32() || t.isF64());
  };
  if (ieee(inFloat) && ieee(outFloat) && outType.hasStaticShape() &&
      in.getNumElements() <= 64 &&
      llvm::APFloat::isRepresentableBy(inFloat.getFloatSemantics(),
                                       outFloat.getFloatSemantics())) {
    SmallVector<APFloat> values;
    for (APFloat v : in.getValues<APFloat>()) {
      bool lost;
      v.convert(outFloat.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      values.push_back(v);
    }
    return DenseElementsAttr::get(outType, values);
  }
  // Small integer constants to float: shape arithmetic that feeds float
  // math (YOLOv8's anchor grid, Range(0, Cast(W), 1)), rounded to nearest
  // as ONNX's Cast rounds.
  if (in && ieee(outFloat) && isa<IntegerType>(in.getElementType()) &&
      in.getElementType().getIntOrFloatBitWidth() > 1 &&
      outType.hasStaticShape() && in.getNumElements() <= 64) {
    bool isSigned = !in.getElementType().isUnsignedInteger();
    SmallVector<APFloat> values;
    for (const APInt &v : in.getValues<APInt>()) {
      APFloat f(outFloat.getFloatSemantics());
      f.convertFromAPInt(v, isSigned, APFloat::rmNearestTiesToEven);
      values.push_back(f);
    }
    return DenseElementsAttr::get(outType, values);
  }
  auto outInt = dyn_cast<IntegerType>(outType.getElementType());
  if (!in || !outInt || !isa<IntegerType>(in.getElementType()) ||
      !outType.hasStaticShape())
    return {};
  bool isSigned = !in.getElementType().isUnsignedInteger();
  SmallVector<APInt> values;
  for (const APInt &v : in.getValues<APInt>())
    values.push_back(outInt.getWidth() == 1
                         ? APInt(1, !v.isZero()) // ONNX: bool is x != 0
                     : isSigned ? v.sextOrTrunc(outInt.getWidth())
                                : v.zextOrTrunc(outInt.getWidth()));
  return DenseElementsAttr::get(outType, values);
}

std::optional<Format> CastOp::getTargetFormat() {
  return getFormatOf(getElementTypeOrSelf(getType()));
}

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getData().getType());
  auto resultType = dyn_cast<RankedTensorType>(getType());
  if (!type || !resultType)
    return {};
  int64_t rank = type.getRank();
  auto clamp = [&](int64_t i) {
    if (i < 0)
      i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  int64_t start = clamp(getStart());
  int64_t end = getEnd() ? clamp(static_cast<int64_t>(*getEnd())) : rank;
  SmallVector<int64_t> dims;
  for (int64_t i = start; i < end; ++i) {
    if (type.isDynamicDim(i))
      return {};
    dims.push_back(type.getDimSize(i));
  }
  if (resultType.isDynamicDim(0) ||
      resultType.getDimSize(0) != static_cast<int64_t>(dims.size()))
    return {};
  return DenseElementsAttr::get(resultType, ArrayRef<int64_t>(dims));
}

OpFoldResult SizeOp::fold(FoldAdaptor) {
  auto n = staticNumElements(getData().getType());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!n || !type || type.getRank() != 0)
    return {};
  return DenseElementsAttr::get(type, *n);
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  // Only 1-D integer shape vectors: the shape arithmetic of exported graphs.
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!type || type.getRank() != 1 || !type.hasStaticShape() ||
      !isa<IntegerType>(type.getElementType()))
    return {};
  SmallVector<APInt> values;
  for (Attribute attr : adaptor.getInputs()) {
    auto elements = constantElements(attr);
    if (!elements)
      return {};
    llvm::append_range(values, elements.getValues<APInt>());
  }
  if (static_cast<int64_t>(values.size()) != type.getDimSize(0))
    return {};
  return DenseElementsAttr::get(type, values);
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  // Gathering from a constant 1-D integer vector (e.g. one dim of a shape).
  auto data = constantElements(adaptor.getData());
  auto indices = constantElements(adaptor.getIndices());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!type || !data || !indices || data.getType().getRank() != 1 ||
      !isa<IntegerType>(data.getElementType()) || !type.hasStaticShape())
    return {};
  int64_t size = data.getNumElements();
  auto values = llvm::to_vector(data.getValues<APInt>());
  SmallVector<APInt> result;
  for (const APInt &index : indices.getValues<APInt>()) {
    int64_t i = index.getSExtValue();
    if (i < 0)
      i += size;
    if (i < 0 || i >= size)
      return {};
    result.push_back(values[i]);
  }
  if (static_cast<int64_t>(result.size()) != type.getNumElements())
    return {};
  return DenseElementsAttr::get(type, result);
}

/// ScatterND of constants with reduction none: the data with the updates'
/// slices written over it (at most 2^16 elements).
OpFoldResult ScatterNDOp::fold(FoldAdaptor adaptor) {
  auto data = constantElements(adaptor.getData());
  auto indices = constantElements(adaptor.getIndices());
  auto updates = constantElements(adaptor.getUpdates());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!data || !indices || !updates || getReduction() != "none" || !type ||
      !type.hasStaticShape() || type.getNumElements() > (1 << 16) ||
      indices.getType().getRank() < 1)
    return {};
  ArrayRef<int64_t> shape = type.getShape();
  int64_t q = indices.getType().getShape().back();
  if (q < 1 || q > type.getRank())
    return {};
  int64_t slice = 1;
  for (int64_t d : shape.drop_front(q))
    slice *= d;
  int64_t tuples = indices.getNumElements() / q;
  if (updates.getNumElements() != tuples * slice)
    return {};
  SmallVector<Attribute> values(data.getValues<Attribute>());
  auto update = llvm::to_vector(updates.getValues<Attribute>());
  auto index = llvm::to_vector(indices.getValues<APInt>());
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t k = 0; k < q; ++k) {
      int64_t i = index[t * q + k].getSExtValue();
      if (i < 0)
        i += shape[k];
      if (i < 0 || i >= shape[k])
        return {};
      offset = offset * shape[k] + i;
    }
    for (int64_t e = 0; e < slice; ++e)
      values[offset * slice + e] = update[t * slice + e];
  }
  return DenseElementsAttr::get(type, values);
}

/// A constant whose dims only change (Squeeze, Unsqueeze) folds to the
/// same elements in the result shape.
static OpFoldResult foldConstantReshape(Attribute input, Type resultType) {
  auto data = constantElements(input);
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!data || !type || !type.hasStaticShape())
    return {};
  return data.reshape(type);
}

OpFoldResult UnsqueezeOp::fold(FoldAdaptor adaptor) {
  return foldConstantReshape(adaptor.getData(), getType());
}

/// Folds integer shape arithmetic on small constants (a scalar or equal
/// shapes): the Mul/Div/Add/Sub chains exporters put between Shape and
/// Reshape. Float math is never folded here: its rounding is a precision
/// decision.
static OpFoldResult foldIntBinary(
    Operation *op, Attribute lhsAttr, Attribute rhsAttr,
    function_ref<std::optional<APInt>(const APInt &, const APInt &)> fn) {
  auto lhs = constantElements(lhsAttr);
  auto rhs = constantElements(rhsAttr);
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!lhs || !rhs || !type || !type.hasStaticShape() ||
      !isa<IntegerType>(type.getElementType()) || type.getNumElements() > 64)
    return {};
  int64_t n = type.getNumElements();
  auto at = [&](DenseElementsAttr attr, int64_t i) {
    return attr.isSplat() ? attr.getSplatValue<APInt>()
                          : attr.getValues<APInt>()[i];
  };
  if ((!lhs.isSplat() && lhs.getNumElements() != n) ||
      (!rhs.isSplat() && rhs.getNumElements() != n))
    return {};
  SmallVector<APInt> values;
  for (int64_t i = 0; i < n; ++i) {
    auto v = fn(at(lhs, i), at(rhs, i));
    if (!v)
      return {};
    values.push_back(*v);
  }
  return DenseElementsAttr::get(type, values);
}

/// Folds a unary integer op on a small constant, as foldIntBinary does.
static OpFoldResult foldIntUnary(Operation *op, Attribute operand,
                                 function_ref<APInt(const APInt &)> fn) {
  auto data = constantElements(operand);
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!data || !type || !type.hasStaticShape() ||
      !isa<IntegerType>(type.getElementType()) || type.getNumElements() > 64 ||
      data.getType() != type)
    return {};
  SmallVector<APInt> values;
  for (const APInt &v : data.getValues<APInt>())
    values.push_back(fn(v));
  return DenseElementsAttr::get(type, values);
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  return foldIntUnary(*this, adaptor.getX(), [](const APInt &a) { return -a; });
}
OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  return foldIntUnary(*this, adaptor.getX(),
                      [](const APInt &a) { return a.abs(); });
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldIntBinary(
      *this, adaptor.getA(), adaptor.getB(),
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a + b;
      });
}
OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return foldIntBinary(
      *this, adaptor.getA(), adaptor.getB(),
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a - b;
      });
}
OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  return foldIntBinary(
      *this, adaptor.getA(), adaptor.getB(),
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a * b;
      });
}
OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  // ONNX integer Div truncates toward zero, as sdiv does.
  return foldIntBinary(
      *this, adaptor.getA(), adaptor.getB(),
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        if (b.isZero())
          return std::nullopt;
        return a.sdiv(b);
      });
}
/// Max/Min of integer constants, pairwise from the first (MPT's ALiBi
/// slices start at max(0, n - length)).
static OpFoldResult
foldIntVariadic(Operation *op, ArrayRef<Attribute> operands,
                function_ref<APInt(const APInt &, const APInt &)> fn) {
  if (operands.size() < 2)
    return {};
  Attribute acc = operands.front();
  for (Attribute next : operands.drop_front()) {
    OpFoldResult folded = foldIntBinary(
        op, acc, next,
        [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
          return fn(a, b);
        });
    acc = dyn_cast_if_present<Attribute>(folded);
    if (!acc)
      return {};
  }
  return acc;
}
OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  return foldIntVariadic(
      *this, adaptor.getData_0(),
      [](const APInt &a, const APInt &b) { return a.sge(b) ? a : b; });
}
OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  return foldIntVariadic(
      *this, adaptor.getData_0(),
      [](const APInt &a, const APInt &b) { return a.sle(b) ? a : b; });
}
/// A reduction of a small integer constant (tf2onnx spells a Reshape's
/// merged dims as ReduceProd of a slice of Shape), by `fn` pairwise in
/// index order. `axes` is none, or a constant: its values where given,
/// every dim where empty (unless `noopWithEmptyAxes`).
static OpFoldResult
foldIntReduce(Operation *op, Attribute dataAttr, Value axes, Attribute axesAttr,
              int64_t keepdims, int64_t noopWithEmptyAxes,
              function_ref<APInt(const APInt &, const APInt &)> fn) {
  auto data = constantElements(dataAttr);
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!data || !type || !type.hasStaticShape() ||
      !isa<IntegerType>(type.getElementType()) || data.getNumElements() > 64 ||
      data.getNumElements() == 0)
    return {};
  ArrayRef<int64_t> shape = data.getType().getShape();
  int64_t rank = shape.size();
  SmallVector<bool> reduced(rank, true);
  if (!isa<NoneType>(axes.getType())) {
    auto axesData = constantElements(axesAttr);
    if (!axesData)
      return {};
    if (axesData.getNumElements() == 0 && noopWithEmptyAxes)
      return data.getType() == type ? OpFoldResult(data) : OpFoldResult();
    if (axesData.getNumElements() > 0) {
      reduced.assign(rank, false);
      for (const APInt &axis : axesData.getValues<APInt>()) {
        int64_t a = axis.getSExtValue();
        if (a < -rank || a >= rank)
          return {};
        reduced[a < 0 ? a + rank : a] = true;
      }
    }
  }
  SmallVector<int64_t> outShape;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[d] || keepdims)
      outShape.push_back(reduced[d] ? 1 : shape[d]);
  if (ArrayRef<int64_t>(outShape) != type.getShape())
    return {};
  SmallVector<std::optional<APInt>> out(type.getNumElements());
  SmallVector<APInt> values(data.getValues<APInt>());
  for (int64_t linear = 0, n = values.size(); linear < n; ++linear) {
    // Row-major coordinates of `linear`, then the output's index.
    int64_t rest = linear, target = 0, stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t coord = rest % shape[d];
      rest /= shape[d];
      if (!reduced[d]) {
        target += coord * stride;
        stride *= shape[d];
      }
    }
    std::optional<APInt> &slot = out[target];
    slot = slot ? fn(*slot, values[linear]) : values[linear];
  }
  SmallVector<APInt> result;
  for (std::optional<APInt> &v : out)
    result.push_back(*v);
  return DenseElementsAttr::get(type, result);
}
OpFoldResult ReduceMaxOp::fold(FoldAdaptor adaptor) {
  return foldIntReduce(
      *this, adaptor.getData(), getAxes(), adaptor.getAxes(), getKeepdims(),
      getNoopWithEmptyAxes(),
      [](const APInt &a, const APInt &b) { return a.sge(b) ? a : b; });
}
OpFoldResult ReduceMinOp::fold(FoldAdaptor adaptor) {
  return foldIntReduce(
      *this, adaptor.getData(), getAxes(), adaptor.getAxes(), getKeepdims(),
      getNoopWithEmptyAxes(),
      [](const APInt &a, const APInt &b) { return a.sle(b) ? a : b; });
}
OpFoldResult ReduceProdOp::fold(FoldAdaptor adaptor) {
  return foldIntReduce(*this, adaptor.getData(), getAxes(), adaptor.getAxes(),
                       getKeepdims(), getNoopWithEmptyAxes(),
                       [](const APInt &a, const APInt &b) { return a * b; });
}
OpFoldResult ReduceSumOp::fold(FoldAdaptor adaptor) {
  return foldIntReduce(*this, adaptor.getData(), getAxes(), adaptor.getAxes(),
                       getKeepdims(), getNoopWithEmptyAxes(),
                       [](const APInt &a, const APInt &b) { return a + b; });
}
OpFoldResult ModOp::fold(FoldAdaptor adaptor) {
  // fmod = 0: the remainder takes the divisor's sign (Python's %);
  // fmod = 1: the dividend's (C's fmod), as srem gives.
  bool cStyle = getFmod() != 0;
  return foldIntBinary(
      *this, adaptor.getA(), adaptor.getB(),
      [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
        if (b.isZero())
          return std::nullopt;
        APInt r = a.srem(b);
        if (!cStyle && !r.isZero() && r.isNegative() != b.isNegative())
          r += b;
        return r;
      });
}

/// A small integer constant (shape arithmetic, at most 64 elements) moved
/// into `type`: element k of the result is element source(index of k) of
/// `data`. Float data is left alone: those are weights, not shapes.
static OpFoldResult
foldIntegerMove(DenseElementsAttr data, Type resultType,
                function_ref<int64_t(ArrayRef<int64_t>)> source) {
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!data || !type || !type.hasStaticShape() ||
      !isa<IntegerType>(data.getElementType()) || type.getNumElements() > 64)
    return {};
  auto values = llvm::to_vector(data.getValues<APInt>());
  SmallVector<APInt> result;
  SmallVector<int64_t> index(type.getRank(), 0);
  for (int64_t k = 0; k < type.getNumElements(); ++k) {
    int64_t from = source(index);
    if (from < 0 || from >= static_cast<int64_t>(values.size()))
      return {};
    result.push_back(values[from]);
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      if (++index[d] < type.getDimSize(d))
        break;
      index[d] = 0;
    }
  }
  return DenseElementsAttr::get(type, result);
}

/// Row-major strides of a static shape.
static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  // Constant integer data sliced with constant bounds (shape arithmetic);
  // the result type already holds each sliced length.
  auto data = constantElements(adaptor.getData());
  auto starts = constantElements(adaptor.getStarts());
  auto axes = constantElements(adaptor.getAxes());
  auto steps = constantElements(adaptor.getSteps());
  if (!data || !starts || (!isNone(getAxes()) && !axes) ||
      (!isNone(getSteps()) && !steps))
    return {};
  ArrayRef<int64_t> shape = data.getType().getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> start(rank, 0), step(rank, 1);
  auto startValues = llvm::to_vector(starts.getValues<APInt>());
  for (auto [k, b] : llvm::enumerate(startValues)) {
    int64_t axis = axes ? axes.getValues<APInt>()[k].getSExtValue()
                        : static_cast<int64_t>(k);
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return {};
    int64_t s = steps ? steps.getValues<APInt>()[k].getSExtValue() : 1;
    int64_t dim = shape[axis], first = b.getSExtValue();
    if (s == 0)
      return {};
    if (first < 0)
      first += dim;
    start[axis] = s > 0 ? std::clamp<int64_t>(first, 0, dim)
                        : std::clamp<int64_t>(first, 0, dim - 1);
    step[axis] = s;
  }
  SmallVector<int64_t> strides = stridesOf(shape);
  return foldIntegerMove(data, getType(), [&](ArrayRef<int64_t> index) {
    int64_t from = 0;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t c = start[d] + index[d] * step[d];
      if (c < 0 || c >= shape[d])
        return int64_t(-1);
      from += c * strides[d];
    }
    return from;
  });
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  auto data = constantElements(adaptor.getData());
  if (!data)
    return {};
  int64_t rank = data.getType().getRank();
  SmallVector<int64_t> perm;
  if (auto attr = getPermAttr())
    perm.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  if (static_cast<int64_t>(perm.size()) != rank)
    return {};
  SmallVector<int64_t> strides = stridesOf(data.getType().getShape());
  return foldIntegerMove(data, getType(), [&](ArrayRef<int64_t> index) {
    int64_t from = 0;
    for (int64_t d = 0; d < rank; ++d)
      from += index[d] * strides[perm[d]];
    return from;
  });
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  // Conditions computed from shapes (If on "dim == 1"); at most 64 values.
  auto data = constantElements(adaptor.getX());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!data || !type || !type.hasStaticShape() || type.getNumElements() > 64)
    return {};
  SmallVector<bool> values;
  for (bool v : data.getValues<bool>())
    values.push_back(!v);
  return DenseElementsAttr::get(type, values);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  return foldConstantReshape(adaptor.getData(), getType());
}

OpFoldResult SqueezeOp::fold(FoldAdaptor adaptor) {
  return foldConstantReshape(adaptor.getData(), getType());
}

OpFoldResult ConstantOfShapeOp::fold(FoldAdaptor) {
  // A small static integer fill (shape arithmetic); big or float fills stay
  // ops so they are not materialised in the IR.
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() > 64 ||
      !isa<IntegerType>(type.getElementType()))
    return {};
  if (auto value = getValue())
    return DenseElementsAttr::get(
        type, cast<DenseElementsAttr>(*value).getSplatValue<Attribute>());
  return {};
}

OpFoldResult RangeOp::fold(FoldAdaptor adaptor) {
  // Ranges of known length (position ids, a detector's anchor grid) become
  // constants.
  auto start = constantElements(adaptor.getStart());
  auto limit = constantElements(adaptor.getLimit());
  auto delta = constantElements(adaptor.getDelta());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!start || !limit || !delta || !type || !type.hasStaticShape() ||
      type.getNumElements() > 4096)
    return {};
  if (auto element = dyn_cast<FloatType>(type.getElementType())) {
    // ONNX's reference: output[i] = start + i * delta, in the range's type.
    if (start.getElementType() != element || delta.getElementType() != element)
      return {};
    APFloat first = start.getSplatValue<APFloat>();
    APFloat step = delta.getSplatValue<APFloat>();
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      APFloat v(element.getFloatSemantics());
      v.convertFromAPInt(APInt(64, i), /*IsSigned=*/true,
                         APFloat::rmNearestTiesToEven);
      v.multiply(step, APFloat::rmNearestTiesToEven);
      v.add(first, APFloat::rmNearestTiesToEven);
      values.push_back(v);
    }
    return DenseElementsAttr::get(type, values);
  }
  if (!isa<IntegerType>(type.getElementType()))
    return {};
  APInt value = start.getSplatValue<APInt>();
  APInt step = delta.getSplatValue<APInt>();
  SmallVector<APInt> values;
  for (int64_t i = 0; i < type.getNumElements(); ++i, value += step)
    values.push_back(value);
  return DenseElementsAttr::get(type, values);
}

OpFoldResult OneHotOp::fold(FoldAdaptor adaptor) {
  // Small integer one-hots of constants are shape arithmetic (GCViT builds
  // a Tile's repeats as OneHot(axis) * [1, B]).
  auto indices = constantElements(adaptor.getIndices());
  auto depth = constantElements(adaptor.getDepth());
  auto values = constantElements(adaptor.getValues());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!indices || !depth || !values || !type || !type.hasStaticShape() ||
      !isa<IntegerType>(indices.getElementType()) ||
      !isa<IntegerType>(depth.getElementType()) ||
      !isa<IntegerType>(type.getElementType()) ||
      values.getNumElements() != 2 || depth.getNumElements() != 1 ||
      type.getNumElements() > 64)
    return {};
  int64_t rank = type.getRank();
  int64_t axis = static_cast<int64_t>(getAxis()); // I64Attr reads unsigned
  if (axis < 0)
    axis += rank;
  int64_t size = depth.getValues<APInt>()[0].getSExtValue();
  if (axis < 0 || axis >= rank || type.getDimSize(axis) != size)
    return {};
  ArrayRef<int64_t> shape = type.getShape();
  // Output element i splits into (outer, k, inner) around the axis; the
  // index it compares with is indices[outer * inner_size + inner].
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d)
    inner *= shape[d];
  auto index = indices.getValues<APInt>();
  APInt off = values.getValues<APInt>()[0], on = values.getValues<APInt>()[1];
  SmallVector<APInt> result;
  for (int64_t i = 0; i < type.getNumElements(); ++i) {
    int64_t outer = i / (inner * size), k = i / inner % size, in = i % inner;
    int64_t at = index[outer * inner + in].getSExtValue();
    if (at < 0)
      at += size;
    result.push_back(at == k ? on : off);
  }
  return DenseElementsAttr::get(type, result);
}

OpFoldResult EqualOp::fold(FoldAdaptor adaptor) {
  auto lhs = constantElements(adaptor.getA());
  auto rhs = constantElements(adaptor.getB());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!lhs || !rhs || !type || !type.hasStaticShape() ||
      !isa<IntegerType>(lhs.getElementType()) || type.getNumElements() > 64)
    return {};
  int64_t n = type.getNumElements();
  if ((!lhs.isSplat() && lhs.getNumElements() != n) ||
      (!rhs.isSplat() && rhs.getNumElements() != n))
    return {};
  SmallVector<bool> values;
  for (int64_t i = 0; i < n; ++i) {
    APInt a =
        lhs.isSplat() ? lhs.getSplatValue<APInt>() : lhs.getValues<APInt>()[i];
    APInt b =
        rhs.isSplat() ? rhs.getSplatValue<APInt>() : rhs.getValues<APInt>()[i];
    values.push_back(a == b);
  }
  return DenseElementsAttr::get(type, values);
}

/// The elements of a small integer or float operand known at compile time:
/// a constant, or float shape arithmetic (evaluateShapeFloat).
static std::optional<SmallVector<APInt>> knownInts(Attribute attr) {
  auto elements = constantElements(attr);
  // Signed or signless only: the folders compare as signed.
  if (!elements || !isa<IntegerType>(elements.getElementType()) ||
      elements.getElementType().isUnsignedInteger() ||
      elements.getNumElements() > 64)
    return std::nullopt;
  return llvm::to_vector(elements.getValues<APInt>());
}
static std::optional<SmallVector<APFloat>> knownFloats(Value value,
                                                       Attribute attr) {
  auto elements = constantElements(attr);
  if (elements && isa<FloatType>(elements.getElementType()) &&
      elements.getNumElements() <= 64)
    return llvm::to_vector(elements.getValues<APFloat>());
  int budget = 64;
  return evaluateShapeFloat(value, budget);
}

/// A comparison or logical op on small operands known at compile time
/// (a Loop's condition, which tf2onnx writes as iteration < count), with
/// each side of the result's size or a single element.
static OpFoldResult
foldBoolBinary(Operation *op, Attribute aAttr, Attribute bAttr,
               function_ref<bool(const APInt &, const APInt &)> onInts,
               function_ref<bool(const APFloat &, const APFloat &)> onFloats) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() > 64)
    return {};
  int64_t n = type.getNumElements();
  auto fits = [&](size_t size) {
    return static_cast<int64_t>(size) == n || size == 1;
  };
  SmallVector<bool> values;
  auto ints = [&]()
      -> std::optional<std::pair<SmallVector<APInt>, SmallVector<APInt>>> {
    auto a = knownInts(aAttr), b = knownInts(bAttr);
    if (!a || !b)
      return std::nullopt;
    return std::make_pair(*a, *b);
  }();
  if (ints) {
    auto &[a, b] = *ints;
    if (!fits(a.size()) || !fits(b.size()))
      return {};
    for (int64_t i = 0; i < n; ++i)
      values.push_back(
          onInts(a[a.size() == 1 ? 0 : i], b[b.size() == 1 ? 0 : i]));
    return DenseElementsAttr::get(type, values);
  }
  if (!onFloats)
    return {};
  auto a = knownFloats(op->getOperand(0), aAttr);
  auto b = a ? knownFloats(op->getOperand(1), bAttr) : std::nullopt;
  if (!a || !b || !fits(a->size()) || !fits(b->size()))
    return {};
  for (int64_t i = 0; i < n; ++i)
    values.push_back(
        onFloats((*a)[a->size() == 1 ? 0 : i], (*b)[b->size() == 1 ? 0 : i]));
  return DenseElementsAttr::get(type, values);
}

OpFoldResult LessOp::fold(FoldAdaptor adaptor) {
  return foldBoolBinary(
      *this, adaptor.getA(), adaptor.getB(),
      [](const APInt &a, const APInt &b) { return a.slt(b); },
      [](const APFloat &a, const APFloat &b) {
        return a.compare(b) == APFloat::cmpLessThan;
      });
}
OpFoldResult LessOrEqualOp::fold(FoldAdaptor adaptor) {
  return foldBoolBinary(
      *this, adaptor.getA(), adaptor.getB(),
      [](const APInt &a, const APInt &b) { return a.sle(b); },
      [](const APFloat &a, const APFloat &b) {
        auto c = a.compare(b);
        return c == APFloat::cmpLessThan || c == APFloat::cmpEqual;
      });
}
OpFoldResult GreaterOp::fold(FoldAdaptor adaptor) {
  return foldBoolBinary(
      *this, adaptor.getA(), adaptor.getB(),
      [](const APInt &a, const APInt &b) { return a.sgt(b); },
      [](const APFloat &a, const APFloat &b) {
        return a.compare(b) == APFloat::cmpGreaterThan;
      });
}
OpFoldResult GreaterOrEqualOp::fold(FoldAdaptor adaptor) {
  return foldBoolBinary(
      *this, adaptor.getA(), adaptor.getB(),
      [](const APInt &a, const APInt &b) { return a.sge(b); },
      [](const APFloat &a, const APFloat &b) {
        auto c = a.compare(b);
        return c == APFloat::cmpGreaterThan || c == APFloat::cmpEqual;
      });
}
OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  return foldBoolBinary(
      *this, adaptor.getA(), adaptor.getB(),
      [](const APInt &a, const APInt &b) { return !a.isZero() && !b.isZero(); },
      nullptr);
}
OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  return foldBoolBinary(
      *this, adaptor.getA(), adaptor.getB(),
      [](const APInt &a, const APInt &b) { return !a.isZero() || !b.isZero(); },
      nullptr);
}
OpFoldResult XorOp::fold(FoldAdaptor adaptor) {
  return foldBoolBinary(
      *this, adaptor.getA(), adaptor.getB(),
      [](const APInt &a, const APInt &b) { return a.isZero() != b.isZero(); },
      nullptr);
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  auto cond = constantElements(adaptor.getCondition());
  auto x = constantElements(adaptor.getX());
  auto y = constantElements(adaptor.getY());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!cond || !x || !y || !type || !type.hasStaticShape() ||
      !isa<IntegerType>(type.getElementType()) || type.getNumElements() > 64)
    return {};
  int64_t n = type.getNumElements();
  for (DenseElementsAttr attr : {cond, x, y})
    if (!attr.isSplat() && attr.getNumElements() != n)
      return {};
  SmallVector<APInt> values;
  for (int64_t i = 0; i < n; ++i) {
    bool c =
        cond.isSplat() ? cond.getSplatValue<bool>() : cond.getValues<bool>()[i];
    DenseElementsAttr pick = c ? x : y;
    values.push_back(pick.isSplat() ? pick.getSplatValue<APInt>()
                                    : pick.getValues<APInt>()[i]);
  }
  return DenseElementsAttr::get(type, values);
}

#define GET_OP_CLASSES
#include "dialects/Dsmp/IR/DsmpOps.cpp.inc"
