//===- RangeStats.cpp - Calibrated value ranges --------------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/RangeStats.h"
#include "passes/Precision/Calibration.h"
#include "passes/Precision/Formats.h"

#include "dialects/Dsmp/IR/DsmpOps.h"

#include "mlir/IR/Matchers.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::dsmp;

namespace {

constexpr int kLowestExponent = kRangeHistLowestExponent,
              kHighestExponent = kRangeHistHighestExponent;
constexpr Format kRangeFormats[] = {Format::f16,        Format::bf16,
                                    Format::f8E4M3FN,   Format::f8E5M2,
                                    Format::f8E4M3FNUZ, Format::f8E5M2FNUZ};

std::optional<double> scalarConstant(Value v) {
  DenseElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

/// Bounds that hold for any input.
std::optional<std::pair<double, double>> staticBounds(Operation *op) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  StringRef name = op->getName().getStringRef();
  if (name == "dsmp.sigmoid" || name == "dsmp.softmax" ||
      name == "dsmp.hard_sigmoid")
    return std::make_pair(0.0, 1.0);
  if (name == "dsmp.tanh" || name == "dsmp.erf")
    return std::make_pair(-1.0, 1.0);
  if (name == "dsmp.relu" || name == "dsmp.abs" || name == "dsmp.exp" ||
      name == "dsmp.sqrt" || name == "dsmp.softplus")
    return std::make_pair(0.0, inf);
  if (name == "dsmp.clip") {
    auto lo = scalarConstant(op->getOperand(1));
    auto hi = scalarConstant(op->getOperand(2));
    return std::make_pair(lo.value_or(-inf), hi.value_or(inf));
  }
  return std::nullopt;
}

/// Calibrated statistics of one tensor. Values are binned by their f32
/// exponent field (one pass, no per-element log); the |x| histogram by
/// binary exponent and the counts below each format's smallest normal (a
/// power of two) are read off those bins.
uint32_t bitsOf(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

/// A signed integer that orders as the float does (sign-magnitude flipped
/// to two's complement for negative values).
int32_t orderKey(float x) {
  int32_t bits = int32_t(bitsOf(x));
  return bits ^ ((bits >> 31) & 0x7FFFFFFF);
}

float fromOrderKey(int32_t key) {
  uint32_t bits = uint32_t(key ^ ((key >> 31) & 0x7FFFFFFF));
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

} // namespace

struct mlir::dsmp::RangeStats {
  float min = std::numeric_limits<float>::infinity();
  float max = -std::numeric_limits<float>::infinity();
  float amax = 0;
  int64_t count = 0;
  std::array<int64_t, 256> byExponentField{}; // [0] holds zeros + subnormals
  int64_t zeros = 0;

  void add(ArrayRef<float> values) {
    count += values.size();
    // Extremes of the finite values on integer keys that order as the
    // floats do (float min/max reductions do not vectorize without
    // fast-math; integer ones do). Zeros of either sign key as +0.
    int32_t lo = orderKey(min), hi = orderKey(max);
    uint32_t big = bitsOf(amax);
    int64_t zero = 0;
    for (float x : values) {
      uint32_t bits = bitsOf(x), magnitude = bits & 0x7FFFFFFFu;
      bool finite = magnitude < 0x7F800000u;
      int32_t key = magnitude == 0 ? 0 : orderKey(x);
      lo = std::min(lo, finite ? key : std::numeric_limits<int32_t>::max());
      hi = std::max(hi, finite ? key : std::numeric_limits<int32_t>::min());
      big = std::max(big, finite ? magnitude : 0u);
      zero += magnitude == 0;
    }
    min = fromOrderKey(lo);
    max = fromOrderKey(hi);
    std::memcpy(&amax, &big, sizeof amax);
    zeros += zero;
    // Exponent fields into four partial histograms, so that runs of equal
    // fields do not wait on one counter.
    std::array<std::array<int64_t, 256>, 4> part{};
    size_t n = values.size(), k = 0;
    const float *v = values.data();
    auto field = [&](size_t at) { return (bitsOf(v[at]) >> 23) & 0xFF; };
    for (; k + 4 <= n; k += 4)
      for (int j = 0; j < 4; ++j)
        ++part[j][field(k + j)];
    for (; k < n; ++k)
      ++part[0][field(k)];
    for (int f = 0; f < 256; ++f)
      byExponentField[f] += part[0][f] + part[1][f] + part[2][f] + part[3][f];
  }
  int64_t nonFinite() const { return byExponentField[255]; }
  /// |x| by binary exponent, clamped to [kLowestExponent, kHighestExponent].
  SmallVector<int64_t> hist() const {
    SmallVector<int64_t> h(kHighestExponent - kLowestExponent + 1, 0);
    for (int field = 0; field < 255; ++field) {
      int64_t n = byExponentField[field] - (field == 0 ? zeros : 0);
      int e = field == 0 ? -127 : field - 127; // subnormals lie below -126
      h[std::clamp(e, kLowestExponent, kHighestExponent) - kLowestExponent] +=
          n;
    }
    return h;
  }
  /// Nonzero finite values below 2^exponent.
  int64_t below(int exponent) const {
    int64_t n = byExponentField[0] - zeros;
    for (int field = 1; field < std::min(255, exponent + 127); ++field)
      n += byExponentField[field];
    return n;
  }
};

namespace {

/// min, max, amax, counts, the |x| histogram and the formats the data
/// overflows or (more than 1 % of its nonzeros) underflows.
void addCalibratedFields(Builder &b, const RangeStats &s,
                         SmallVectorImpl<NamedAttribute> &fields) {
  bool any = s.count > s.nonFinite();
  fields.push_back(b.getNamedAttr("min", b.getF64FloatAttr(any ? s.min : 0)));
  fields.push_back(b.getNamedAttr("max", b.getF64FloatAttr(any ? s.max : 0)));
  fields.push_back(b.getNamedAttr("amax", b.getF64FloatAttr(s.amax)));
  fields.push_back(b.getNamedAttr("count", b.getI64IntegerAttr(s.count)));
  fields.push_back(b.getNamedAttr("zeros", b.getI64IntegerAttr(s.zeros)));
  if (s.nonFinite())
    fields.push_back(
        b.getNamedAttr("non_finite", b.getI64IntegerAttr(s.nonFinite())));
  fields.push_back(b.getNamedAttr("hist", b.getDenseI64ArrayAttr(s.hist())));
  SmallVector<Attribute> overflow, underflow;
  int64_t nonzero = s.count - s.zeros - s.nonFinite();
  for (Format f : kRangeFormats) {
    StringAttr name = b.getStringAttr(stringifyFormat(f));
    if (s.amax > largestValue(f))
      overflow.push_back(name);
    // Every smallest normal is a power of two.
    int exponent = std::ilogb(smallestNormal(f));
    if (nonzero > 0 && s.below(exponent) * 100 > nonzero)
      underflow.push_back(name);
  }
  fields.push_back(b.getNamedAttr("overflow", b.getArrayAttr(overflow)));
  fields.push_back(b.getNamedAttr("underflow", b.getArrayAttr(underflow)));
}

/// The calibrated range of each f32 graph input, as a `dsmp.range` argument
/// attribute: what an f8 scale or an overflow check of an op reading the
/// input needs (no op computes it).
LogicalResult annotateInputs(func::FuncOp graph, StringRef dir) {
  auto sets = readInputSets(dir);
  if (!sets)
    return graph.emitError(llvm::toString(sets.takeError()));
  Builder b(graph.getContext());
  for (unsigned i = 0; i < graph.getNumArguments(); ++i) {
    if (!isF32Tensor(graph.getArgument(i).getType()))
      continue;
    std::string name = graphInputName(graph, i);
    RangeStats s;
    for (const HostInputs &set : *sets)
      for (const HostTensor &t : set)
        if (t.name == name && t.dtype == 1)
          s.add(floatsOf(t));
    if (s.count == 0)
      continue;
    SmallVector<NamedAttribute> fields;
    addCalibratedFields(b, s, fields);
    graph.setArgAttr(i, "dsmp.range", b.getDictionaryAttr(fields));
  }
  return success();
}

} // namespace

RangeRecorder::RangeRecorder(size_t numOps)
    : stats(numOps), measured(numOps, false), flops(numOps) {}

RangeRecorder::~RangeRecorder() = default;

void RangeRecorder::instrument(ArrayRef<Operation *> copy,
                               SmallVectorImpl<Value> &probes) {
  for (auto [id, op] : llvm::enumerate(copy)) {
    // FLOPs at the calibration shapes (the model's own may be dynamic).
    if (auto precision = dyn_cast_or_null<PrecisionOpInterface>(op))
      flops[id] = precision.getFlopCount();
    if (!op || op->getNumResults() == 0 ||
        !isF32Tensor(op->getResult(0).getType()) ||
        op->hasTrait<mlir::OpTrait::ConstantLike>())
      continue;
    measured[id] = true;
    probes.push_back(op->getResult(0));
    opOfProbe.push_back(id);
  }
}

void RangeRecorder::observe(size_t probe, ArrayRef<float> values) {
  stats[opOfProbe[probe]].add(values);
}

LogicalResult RangeRecorder::annotate(ModuleOp module,
                                      ArrayRef<Operation *> ops,
                                      StringRef calibration) {
  Builder b(module.getContext());
  for (auto [id, op] : llvm::enumerate(ops)) {
    if (op->getNumResults() == 0 || !isF32Tensor(op->getResult(0).getType()) ||
        op->hasTrait<mlir::OpTrait::ConstantLike>())
      continue;
    SmallVector<NamedAttribute> fields;
    if (auto bounds = staticBounds(op)) {
      fields.push_back(
          b.getNamedAttr("static_lo", b.getF64FloatAttr(bounds->first)));
      fields.push_back(
          b.getNamedAttr("static_hi", b.getF64FloatAttr(bounds->second)));
    }
    const RangeStats &s = stats[id];
    if (measured[id] && s.count > 0)
      addCalibratedFields(b, s, fields);
    if (!fields.empty())
      op->setAttr("dsmp.range", b.getDictionaryAttr(fields));
    if (flops[id])
      op->setAttr("dsmp.flops", b.getI64IntegerAttr(*flops[id]));
  }
  if (calibration.empty())
    return success();
  return annotateInputs(module.lookupSymbol<func::FuncOp>("main_graph"),
                        calibration);
}
