//===- RangeStats.cpp - Calibrated value ranges --------------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/RangeStats.h"
#include "passes/Precision/Calibration.h"
#include "passes/Precision/Formats.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/MainGraph.h"

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
  int64_t zeros = 0;
  /// Counts by f32 exponent field (0: zeros and subnormals, 255: inf and
  /// NaN) for the fields [firstField, firstField + size) seen so far: a
  /// tensor spans a few dozen, and a 100k-op graph kept 2 KiB per op.
  int firstField = 0;
  SmallVector<int64_t, 0> byField;

  int64_t countOf(int field) const {
    int k = field - firstField;
    return k >= 0 && k < int(byField.size()) ? byField[k] : 0;
  }

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

    size_t n = values.size();
    const float *v = values.data();
    auto field = [&](size_t at) { return int((bitsOf(v[at]) >> 23) & 0xFF); };
    if (n <= 512) { // a few elements: straight into the bins
      int first = 255, last = 0;
      for (size_t k = 0; k < n; ++k) {
        first = std::min(first, field(k));
        last = std::max(last, field(k));
      }
      if (n)
        cover(first, last);
      for (size_t k = 0; k < n; ++k)
        ++byField[field(k) - firstField];
      return;
    }
    // Four partial histograms, so that runs of equal fields do not wait on
    // one counter.
    std::array<std::array<uint32_t, 256>, 4> part{};
    for (size_t base = 0; base < n;) { // uint32 partials: at most 2^32 - 1
      size_t end = std::min(n, base + (size_t(1) << 31)), k = base;
      for (; k + 4 <= end; k += 4)
        for (int j = 0; j < 4; ++j)
          ++part[j][field(k + j)];
      for (; k < end; ++k)
        ++part[0][field(k)];
      int first = 255, last = 0;
      for (int f = 0; f < 256; ++f)
        if (part[0][f] | part[1][f] | part[2][f] | part[3][f]) {
          first = std::min(first, f);
          last = f;
        }
      cover(first, last);
      for (int f = first; f <= last; ++f)
        byField[f - firstField] +=
            int64_t(part[0][f]) + part[1][f] + part[2][f] + part[3][f];
      part = {};
      base = end;
    }
  }
  int64_t nonFinite() const { return countOf(255); }
  /// |x| by binary exponent, clamped to [kLowestExponent, kHighestExponent].
  SmallVector<int64_t> hist() const {
    SmallVector<int64_t> h(kHighestExponent - kLowestExponent + 1, 0);
    for (auto [k, n] : llvm::enumerate(byField)) {
      int field = firstField + int(k);
      if (field == 255)
        continue;
      int e = field == 0 ? -127 : field - 127; // subnormals lie below -126
      h[std::clamp(e, kLowestExponent, kHighestExponent) - kLowestExponent] +=
          n - (field == 0 ? zeros : 0);
    }
    return h;
  }
  /// Nonzero finite values below 2^exponent.
  int64_t below(int exponent) const {
    int end = std::min(255, exponent + 127);
    int64_t n = countOf(0) - zeros;
    for (auto [k, count] : llvm::enumerate(byField))
      if (int field = firstField + int(k); field >= 1 && field < end)
        n += count;
    return n;
  }

private:
  /// Widens the bins to hold fields [first, last].
  void cover(int first, int last) {
    if (byField.empty()) {
      firstField = first;
      byField.assign(last - first + 1, 0);
      return;
    }
    if (first < firstField) {
      byField.insert(byField.begin(), firstField - first, 0);
      firstField = first;
    }
    if (last >= firstField + int(byField.size()))
      byField.resize(last - firstField + 1, 0);
  }
};

namespace {

/// The field names of `dsmp.range` and the formats' names, made once per
/// annotation rather than once per op (each StringAttr::get hashes and
/// locks: 5 % of a 10k-op flow).
struct RangeFieldNames {
  explicit RangeFieldNames(Builder &b)
      : min(b.getStringAttr("min")), max(b.getStringAttr("max")),
        amax(b.getStringAttr("amax")), count(b.getStringAttr("count")),
        zeros(b.getStringAttr("zeros")),
        nonFinite(b.getStringAttr("non_finite")), hist(b.getStringAttr("hist")),
        overflow(b.getStringAttr("overflow")),
        underflow(b.getStringAttr("underflow")),
        staticLo(b.getStringAttr("static_lo")),
        staticHi(b.getStringAttr("static_hi")),
        range(b.getStringAttr("dsmp.range")),
        flops(b.getStringAttr("dsmp.flops")) {
    for (Format f : kRangeFormats) {
      formats.push_back(b.getStringAttr(stringifyFormat(f)));
      largest.push_back(largestValue(f));
      // Every smallest normal is a power of two.
      normalExponent.push_back(std::ilogb(smallestNormal(f)));
    }
  }
  StringAttr min, max, amax, count, zeros, nonFinite, hist, overflow, underflow,
      staticLo, staticHi, range, flops;
  // By kRangeFormats: the name, the largest finite value, and the binary
  // exponent of the smallest normal.
  SmallVector<StringAttr, 6> formats;
  SmallVector<double, 6> largest;
  SmallVector<int, 6> normalExponent;
};

/// min, max, amax, counts, the |x| histogram and the formats the data
/// overflows or (more than 1 % of its nonzeros) underflows.
void addCalibratedFields(Builder &b, const RangeFieldNames &names,
                         const RangeStats &s,
                         SmallVectorImpl<NamedAttribute> &fields) {
  bool any = s.count > s.nonFinite();
  fields.emplace_back(names.min, b.getF64FloatAttr(any ? s.min : 0));
  fields.emplace_back(names.max, b.getF64FloatAttr(any ? s.max : 0));
  fields.emplace_back(names.amax, b.getF64FloatAttr(s.amax));
  fields.emplace_back(names.count, b.getI64IntegerAttr(s.count));
  fields.emplace_back(names.zeros, b.getI64IntegerAttr(s.zeros));
  if (s.nonFinite())
    fields.emplace_back(names.nonFinite, b.getI64IntegerAttr(s.nonFinite()));
  fields.emplace_back(names.hist, b.getDenseI64ArrayAttr(s.hist()));
  SmallVector<Attribute> overflow, underflow;
  int64_t nonzero = s.count - s.zeros - s.nonFinite();
  for (auto [name, largest, exponent] :
       llvm::zip_equal(names.formats, names.largest, names.normalExponent)) {
    if (s.amax > largest)
      overflow.push_back(name);
    if (nonzero > 0 && s.below(exponent) * 100 > nonzero)
      underflow.push_back(name);
  }
  fields.emplace_back(names.overflow, b.getArrayAttr(overflow));
  fields.emplace_back(names.underflow, b.getArrayAttr(underflow));
}

/// The calibrated range of each f32 graph input, as a `dsmp.range` argument
/// attribute: what an f8 scale or an overflow check of an op reading the
/// input needs (no op computes it).
LogicalResult annotateInputs(func::FuncOp graph, StringRef dir) {
  auto sets = readInputSets(dir);
  if (!sets)
    return graph.emitError(llvm::toString(sets.takeError()));
  Builder b(graph.getContext());
  RangeFieldNames names(b);
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
    addCalibratedFields(b, names, s, fields);
    graph.setArgAttr(i, names.range, b.getDictionaryAttr(fields));
  }
  return success();
}

} // namespace

RangeRecorder::RangeRecorder(size_t numOps)
    : probeOfOp(numOps, kUnmeasured), flops(numOps) {}

RangeRecorder::~RangeRecorder() = default;

void RangeRecorder::instrument(ArrayRef<Operation *> copy,
                               ArrayRef<OpParts> parts,
                               SmallVectorImpl<Value> &probes) {
  for (auto [id, op] : llvm::enumerate(copy)) {
    if (!op && id < parts.size() && !parts[id].empty()) {
      int64_t total = 0;
      SmallVector<Value> values;
      for (Operation *part : parts[id]) {
        if (auto precision = dyn_cast<PrecisionOpInterface>(part))
          total += precision.getFlopCount().value_or(0);
        if (part->getNumResults() && isF32Tensor(part->getResult(0).getType(),
                                                 /*requireStaticShape=*/true))
          values.push_back(part->getResult(0));
      }
      flops[id] = total;
      if (values.empty())
        continue;
      probeOfOp[id] = stats.size();
      stats.emplace_back();
      probes.push_back(concatFlattened(
          parts[id].front()->getBlock()->getTerminator(), values));
      continue;
    }
    // FLOPs at the calibration shapes (the model's own may be dynamic).
    if (auto precision = dyn_cast_or_null<PrecisionOpInterface>(op))
      flops[id] = precision.getFlopCount();
    if (!op || op->getNumResults() == 0 ||
        !isF32Tensor(op->getResult(0).getType()) ||
        op->hasTrait<mlir::OpTrait::ConstantLike>())
      continue;
    probeOfOp[id] = stats.size();
    stats.emplace_back();
    probes.push_back(op->getResult(0));
  }
}

void RangeRecorder::observe(size_t probe, ArrayRef<float> values) {
  stats[probe].add(values);
}

LogicalResult RangeRecorder::annotate(ModuleOp module,
                                      ArrayRef<Operation *> ops,
                                      StringRef calibration) {
  Builder b(module.getContext());
  RangeFieldNames names(b);
  for (auto [id, op] : llvm::enumerate(ops)) {
    if (op->getNumResults() == 0 || !isF32Tensor(op->getResult(0).getType()) ||
        op->hasTrait<mlir::OpTrait::ConstantLike>())
      continue;
    SmallVector<NamedAttribute> fields;
    if (auto bounds = staticBounds(op)) {
      fields.emplace_back(names.staticLo, b.getF64FloatAttr(bounds->first));
      fields.emplace_back(names.staticHi, b.getF64FloatAttr(bounds->second));
    }
    if (probeOfOp[id] != kUnmeasured && stats[probeOfOp[id]].count > 0)
      addCalibratedFields(b, names, stats[probeOfOp[id]], fields);
    if (fields.empty() && !flops[id])
      continue;
    SmallVector<NamedAttribute, 2> attrs;
    if (!fields.empty())
      attrs.emplace_back(names.range, b.getDictionaryAttr(fields));
    if (flops[id])
      attrs.emplace_back(names.flops, b.getI64IntegerAttr(*flops[id]));
    setAttrsOf(op, attrs);
  }
  if (calibration.empty())
    return success();
  return annotateInputs(module.lookupSymbol<func::FuncOp>("main_graph"),
                        calibration);
}
