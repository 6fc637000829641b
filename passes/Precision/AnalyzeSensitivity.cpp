//===- AnalyzeSensitivity.cpp - ADAPT sensitivities ----------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Adjoint.h"
#include "passes/Precision/Calibration.h"
#include "passes/Precision/CoherentRounding.h"
#include "passes/Precision/ErrorFloor.h"
#include "passes/Precision/Formats.h"
#include "passes/Precision/Passes.h"
#include "passes/Precision/RangeStats.h"
#include "passes/Precision/RoundingCost.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/GraphBuilder.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <random>

#define DEBUG_TYPE "dsmp-analyze-sensitivity"

namespace mlir::dsmp {
#define GEN_PASS_DEF_ANALYZESENSITIVITYPASS
#include "passes/Precision/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

bool hasOperandTerm(Operation *op) {
  auto precision = dyn_cast<PrecisionOpInterface>(op);
  return precision && (precision.getOpClass() == OpClass::matmul ||
                       precision.getOpClass() == OpClass::conv);
}

/// Whether `part` of an unrolled recurrence only moves values another part
/// computed (a step's Squeeze of its Slice, the Concat of the steps'
/// states): in 16 bits it copies values already rounded, so it adds no
/// rounding of its own. A data-movement part reading from outside the
/// recurrence (a step's Slice of X) rounds that input and counts.
bool copiesARoundedPart(Operation *part, ArrayRef<Operation *> parts) {
  auto precision = dyn_cast<PrecisionOpInterface>(part);
  if (!precision || precision.getOpClass() != OpClass::data_movement)
    return false;
  return llvm::all_of(part->getOperands(), [&](Value operand) {
    Operation *producer = operand.getDefiningOp();
    return !isa<FloatType>(getElementTypeOrSelf(operand.getType())) ||
           (producer && (producer->hasTrait<mlir::OpTrait::ConstantLike>() ||
                         llvm::is_contained(parts, producer)));
  });
}

/// Which probes carry an op's g * x (and that of its first operand where
/// keepsOperandGradient, and of a contraction's constant weights); -1: not
/// measured.
struct Probe {
  // one per seed vector
  SmallVector<int, 1> products, operandProducts, weightProducts;
  // Under max-abs, the same from seeds restricted to the outputs' peaks.
  SmallVector<int, 1> peakProducts, peakOperandProducts, peakWeightProducts;
};

/// Under max-abs, the output elements within this fraction of an output's
/// largest magnitude are its peaks: where a softmax's errors gather (in
/// ppocr_rec_v4's 265k probabilities, the 40-odd winners and runners-up).
constexpr double kPeakFraction = 0.1;

bool hasConstantWeight(Operation *op) {
  Operation *def =
      op->getNumOperands() > 1 ? op->getOperand(1).getDefiningOp() : nullptr;
  return def && def->hasTrait<mlir::OpTrait::ConstantLike>() &&
         isF32Tensor(op->getOperand(1).getType(), /*requireStaticShape=*/true);
}

/// The comparisons of float values that decide an If's condition (through
/// boolean logic, casts and reshapes), by graphOps index: rounding upstream
/// of one can flip the branch, which no gradient shows.
SmallVector<size_t> branchDecisions(ArrayRef<Operation *> ops) {
  llvm::DenseMap<Operation *, size_t> indexOf;
  for (auto [index, op] : llvm::enumerate(ops))
    indexOf[op] = index;
  llvm::SetVector<size_t> found;
  llvm::DenseSet<Value> seen;
  for (Operation *op : ops) {
    auto branch = dyn_cast<IfOp>(op);
    if (!branch)
      continue;
    SmallVector<Value> work{branch.getCond()};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!seen.insert(v).second || !def)
        continue;
      if (isa<GreaterOp, GreaterOrEqualOp, LessOp, LessOrEqualOp, EqualOp>(
              def)) {
        if (isF32Tensor(def->getOperand(0).getType(), true) &&
            indexOf.contains(def))
          found.insert(indexOf.lookup(def));
        continue;
      }
      if (isa<NotOp, AndOp, OrOp, XorOp, CastOp, ReshapeOp, SqueezeOp,
              UnsqueezeOp, FlattenOp, IdentityOp>(def))
        llvm::append_range(work, def->getOperands());
    }
  }
  return SmallVector<size_t>(found.begin(), found.end());
}

/// Outputs of at most this many elements in all are seeded with every row
/// of a Hadamard matrix (one backward pass each): their energies are exact,
/// not a one-vector estimate.
constexpr int64_t kExactOutputElements = 8;

/// Row `row` of the Sylvester-Hadamard matrix, columns [first, first + n):
/// (-1)^popcount(row & column).
std::vector<float> hadamardSigns(unsigned row, int64_t first, int64_t n) {
  std::vector<float> signs(n);
  for (int64_t i = 0; i < n; ++i)
    signs[i] = llvm::popcount(row & static_cast<uint64_t>(first + i)) & 1
                   ? -1.0f
                   : 1.0f;
  return signs;
}

/// What rounding to f16 adds where values are below its smallest normal,
/// 2^-14: it holds them on a fixed grid of 2^-24, an absolute error of
/// variance 2^-48 / 12 (x^2 where x rounds to 0), which the relative model,
/// u^2 (g x)^2, does not see. sum g^2 min(2^-48 / 12, x^2) over those
/// elements, with g = p / x. basic-pitch's log-magnitude spectrogram adds
/// 1e-10 to powers down to 1e-11 before a Log: f16 there erred 17x its
/// relative prediction.
double f16SubnormalError(ArrayRef<float> p, ArrayRef<float> x) {
  const double normal = smallestNormal(Format::f16);
  const double variance = std::ldexp(1.0, -48) / 12;
  double sum = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double v = x[i];
    if (v == 0 || !(std::fabs(v) < normal))
      continue;
    double g = p[i] / v;
    sum += g * g * std::min(variance, v * v);
  }
  return sum;
}

/// sum |p| and sum p^2 over the calibration sets, in double.
struct Sums {
  double abs = 0, square = 0;
  /// f16's absolute rounding of the values it holds as subnormals, in the
  /// metric's squared units (f16SubnormalError).
  double subnormal = 0;
  /// sum p^2 of paired probes, as if every element erred on its own: what
  /// `square` would be without CoherentRounding.h.
  double independent = 0;
  size_t sets = 0; // calibration sets seen
  void add(ArrayRef<float> p) {
    // Eight independent partial sums: the loop vectorizes (one chain of
    // double additions would not).
    constexpr size_t kLanes = 8;
    double a[kLanes] = {}, q[kLanes] = {};
    size_t k = 0;
    for (; k + kLanes <= p.size(); k += kLanes)
      for (size_t j = 0; j < kLanes; ++j) {
        double v = p[k + j];
        a[j] += std::fabs(v);
        q[j] += v * v;
      }
    for (; k < p.size(); ++k) {
      double v = p[k];
      a[0] += std::fabs(v);
      q[0] += v * v;
    }
    double sumAbs = 0, sumSquare = 0;
    for (size_t j = 0; j < kLanes; ++j) {
      sumAbs += a[j];
      sumSquare += q[j];
    }
    // A product g x is infinite or NaN only where x is (a -inf mask entry
    // before a Softmax, whose gradient there is 0: -inf * 0): such a value
    // rounds to itself, so it adds nothing. Summed again without them, off
    // the fast path.
    if (!std::isfinite(sumAbs) || !std::isfinite(sumSquare)) {
      sumAbs = sumSquare = 0;
      for (float v : p)
        if (std::isfinite(v)) {
          sumAbs += std::fabs(v);
          sumSquare += double(v) * v;
        }
    }
    abs += sumAbs;
    square += sumSquare;
  }
  /// Products p then their x, n each: their squares summed over the groups
  /// of equal x that round (roundingSquareSum).
  void addPaired(ArrayRef<float> px, bool leaveOutExact) {
    ArrayRef<float> p = px.take_front(px.size() / 2),
                    x = px.drop_front(px.size() / 2);
    double before = square;
    add(p);
    double alone = square - before;
    independent += alone;
    // A NaN gradient (none is expected) leaves the grouping NaN: the
    // finite products' independent sum stands in.
    double grouped = roundingSquareSum(p, x, leaveOutExact);
    square = before + (std::isfinite(grouped) ? grouped : alone);
    if (double sub = f16SubnormalError(p, x); std::isfinite(sub))
      subnormal += sub;
  }
};

struct AnalyzeSensitivityPass final
    : mlir::dsmp::impl::AnalyzeSensitivityPassBase<AnalyzeSensitivityPass> {
  using AnalyzeSensitivityPassBase::AnalyzeSensitivityPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops = graphOps(module);
    if (ops.empty()) {
      module.emitError(
          "dsmp-analyze-sensitivity: the module has no @main_graph");
      return signalPassFailure();
    }
    if (calibration.empty()) {
      module.emitError("dsmp-analyze-sensitivity needs calibration=DIR");
      return signalPassFailure();
    }
    if (metric != "rel-l2" && metric != "max-abs") {
      module.emitError("dsmp-analyze-sensitivity: metric must be rel-l2 or "
                       "max-abs, got '" +
                       metric + "'");
      return signalPassFailure();
    }
    bool relative = metric == "rel-l2";
    std::vector<Probe> probes(ops.size());
    SmallVector<size_t> decisions = branchDecisions(ops);
    std::vector<std::string> stoppedBy(ops.size());
    SmallVector<std::string> stopNames, estimateNames;

    auto engineKind = parseHostEngine(engine);
    if (!engineKind) {
      module.emitError("dsmp-analyze-sensitivity: " +
                       llvm::toString(engineKind.takeError()));
      return signalPassFailure();
    }
    std::vector<Sums> sums;
    // With record-ranges the first probes are dsmp-analyze-ranges' (the
    // forward values), observed in the same run.
    RangeRecorder ranges(ops.size());
    size_t rangeProbes = 0;
    size_t sets = 0;
    int64_t outputElements = 0;
    // Under max-abs, the probes holding the outputs' peak seeds.
    SmallVector<int> peakCounts;
    // The backward passes' seed vectors, and whether they are all rows of
    // a Hadamard matrix (exact for every error, not an estimate).
    unsigned seedVectorCount = 0;
    bool exactSeeds = false;
    std::vector<bool> reached;
    // Which probes hold products followed by their x.
    std::vector<bool> paired;
    llvm::Error err = runProbes(
        module, calibration,
        [&](func::FuncOp graph, ArrayRef<Operation *> copy,
            ArrayRef<OpParts> parts) -> FailureOr<SmallVector<Value>> {
          Block &body = graph.getBody().front();
          Operation *ret = body.getTerminator();
          SmallVector<Operation *> forward;
          for (Operation &op : body.without_terminator())
            forward.push_back(&op);
          OpBuilder b(ret);
          GraphBuilder g(b, ret->getLoc());
          // (the copy has the calibration shapes)
          for (Value y : ret->getOperands())
            if (auto type = dyn_cast<RankedTensorType>(y.getType());
                type && type.hasStaticShape())
              outputElements += type.getNumElements();

          // The graph computes g * x (one op per probe); the sums are taken
          // as each product is computed, in double.
          SmallVector<Value> values;
          paired.clear();
          if (recordRanges)
            ranges.instrument(copy, parts, values);
          rangeProbes = values.size();
          // A probe carries g * x and then x: elements holding one value
          // share its rounding error (CoherentRounding.h).
          auto probe = [&](Value grad, Value x) {
            values.push_back(concatFlattened(ret, {g.mul(grad, x), x}));
            paired.resize(values.size(), false);
            paired.back() = true;
            return static_cast<int>(values.size()) - 1;
          };
          // Seeds r / max(|y|, floor sqrt(n)) (rel-l2) or r (max-abs) with r
          // a fixed random +-1 vector per output, one backward pass per seed
          // vector.
          std::mt19937 rng(0x5eed);
          // One backward pass from `seedValues`; the products go to the
          // probes' lists `products`, `operand` and `weight`.
          using List = SmallVector<int, 1> Probe::*;
          auto backward = [&](ArrayRef<std::pair<Value, Value>> seedValues,
                              bool first, List products, List operand,
                              List weight) {
            Adjoint adjoint = buildAdjoint(b, forward, seedValues);
            if (first) {
              for (Operation *op : adjoint.stoppedAt)
                stopNames.push_back(onnxTypeOf(op) + " '" + nodeName(op) + "'");
              for (Operation *op : adjoint.estimatedAt)
                estimateNames.push_back(onnxTypeOf(op) + " '" + nodeName(op) +
                                        "'");
            }
            for (auto [id, op] : llvm::enumerate(copy)) {
              if (!op && !parts[id].empty()) {
                // An op specialization replaced by parts (an unrolled
                // recurrence) in 16 bits rounds every computed part's
                // result and constant weights: their products, each as one
                // probe.
                SmallVector<Value> results, weights;
                for (Operation *part : parts[id]) {
                  if (part->getNumResults() == 0 ||
                      copiesARoundedPart(part, parts[id]) ||
                      !isF32Tensor(part->getResult(0).getType(),
                                   /*requireStaticShape=*/true))
                    continue;
                  Value x = part->getResult(0);
                  Value grad = adjoint.grads.lookup(x);
                  if (!grad)
                    continue;
                  results.push_back(g.mul(grad, x));
                  if (hasOperandTerm(part) && hasConstantWeight(part))
                    if (Value dW = weightGradient(b, part, grad))
                      weights.push_back(g.mul(dW, part->getOperand(1)));
                }
                std::pair<List, SmallVector<Value> *> lists[] = {
                    {products, &results}, {weight, &weights}};
                for (auto [list, found] : lists)
                  if (!found->empty()) {
                    values.push_back(concatFlattened(ret, *found));
                    (probes[id].*list).push_back(values.size() - 1);
                  }
                continue;
              }
              if (!op || op->getNumResults() == 0 ||
                  !isF32Tensor(op->getResult(0).getType(),
                               /*requireStaticShape=*/true))
                continue;
              Value x = op->getResult(0);
              Value grad = adjoint.grads.lookup(x);
              if (!grad) {
                if (first && !adjoint.stoppedAt.empty())
                  stoppedBy[id] = stopNames.front();
                continue;
              }
              (probes[id].*products).push_back(probe(grad, x));
              if (keepsOperandGradient(op)) {
                auto it = adjoint.operandGrads.find(op);
                if (it != adjoint.operandGrads.end())
                  for (auto [value, operandGrad] : it->second)
                    if (value == op->getOperand(0)) {
                      (probes[id].*operand)
                          .push_back(probe(operandGrad, value));
                      break;
                    }
              }
              if (!hasOperandTerm(op))
                continue;
              // The rounding of constant weights, (dW * W)^2, and of a
              // constant bias, (dC * C)^2: one probe of both.
              SmallVector<Value, 2> weights;
              if (hasConstantWeight(op))
                if (Value dW = weightGradient(b, op, grad))
                  weights.push_back(g.mul(dW, op->getOperand(1)));
              if (auto [bias, dBias] = biasGradient(b, op, grad); dBias)
                weights.push_back(g.mul(dBias, bias));
              if (!weights.empty()) {
                values.push_back(weights.size() == 1
                                     ? weights.front()
                                     : concatFlattened(ret, weights));
                (probes[id].*weight).push_back(values.size() - 1);
              }
            }
          };
          auto randomSigns = [&](RankedTensorType type) {
            std::vector<float> signs(type.getNumElements());
            for (float &s : signs)
              s = (rng() & 1) ? 1.0f : -1.0f;
            return signs;
          };
          // Few output elements: a random r often cancels the error's few
          // large components (a 2-class softmax moves both probabilities by
          // +-a: r = (1, 1) sees 0), so the seeds are the rows of a
          // Hadamard matrix instead, whose mean of (r . e)^2 is |e|^2 for
          // every error e.
          int64_t seededElements = 0;
          for (Value y : ret->getOperands())
            if (isF32Tensor(y.getType(), /*requireStaticShape=*/true))
              seededElements +=
                  cast<RankedTensorType>(y.getType()).getNumElements();
          unsigned hadamardRows =
              seededElements > 0 && seededElements <= kExactOutputElements
                  ? static_cast<unsigned>(llvm::PowerOf2Ceil(seededElements))
                  : 0;
          unsigned seedVectors = std::max({1u, unsigned(seeds), hadamardRows});
          seedVectorCount = seedVectors;
          exactSeeds = hadamardRows > 0;
          for (unsigned k = 0; k < seedVectors; ++k) {
            SmallVector<std::pair<Value, Value>> seedValues, peakSeeds;
            int64_t firstElement = 0;
            for (Value y : ret->getOperands()) {
              if (!isF32Tensor(y.getType(), /*requireStaticShape=*/true))
                continue;
              auto type = cast<RankedTensorType>(y.getType());
              std::vector<float> signs =
                  hadamardRows
                      ? hadamardSigns(k, firstElement, type.getNumElements())
                      : randomSigns(type);
              firstElement += type.getNumElements();
              if (!relative) {
                seedValues.push_back({y, g.floats(type, signs)});
                // The same signs on the peaks only, |y| >= 0.1 max |y|;
                // probing the seed counts them (sum |seed|).
                Value magnitude = g.value("dsmp.abs", {y});
                Value floor =
                    g.mul(g.reduceAll("dsmp.reduce_max", magnitude),
                          g.scalar(kPeakFraction, type.getElementType()));
                Value peaks =
                    g.value("dsmp.greater_or_equal", {magnitude, floor});
                Value seed = g.selectOrZero(peaks, g.floats(type, signs));
                peakSeeds.push_back({y, seed});
                if (k == 0) {
                  peakCounts.push_back(static_cast<int>(values.size()));
                  values.push_back(seed);
                }
                continue;
              }
              // |y|, or the floor times sqrt(n) where that is larger.
              Type element = type.getElementType();
              Value floor =
                  errorFloor > 0
                      ? g.scalar(errorFloor, element)
                      : g.value("dsmp.max",
                                {g.mul(g.reduceAll("dsmp.reduce_max",
                                                   g.value("dsmp.abs", {y})),
                                       g.scalar(kErrorFloorFraction, element)),
                                 g.scalar(kSmallestErrorFloor, element)});
              Value floorSquare =
                  g.mul(g.mul(floor, floor),
                        g.scalar(static_cast<double>(type.getNumElements()),
                                 element));
              Value norm = g.value(
                  "dsmp.sqrt",
                  {g.add(g.value("dsmp.max",
                                 {g.reduceAll("dsmp.reduce_sum", g.mul(y, y)),
                                  floorSquare}),
                         g.scalar(1e-30, element))});
              seedValues.push_back({y, g.div(g.floats(type, signs), norm)});
            }
            // A compared value counts as an output whose error is relative
            // to its distance from what it is compared with: the budget lets
            // rounding move it by tau times its margin (seed r / |a - b|).
            for (size_t id : decisions) {
              Operation *compare = copy[id];
              if (!compare)
                continue;
              Value a = compare->getOperand(0), c = compare->getOperand(1);
              Value margin = g.add(g.value("dsmp.abs", {g.sub(a, c)}),
                                   g.scalar(1e-30, b.getF32Type()));
              for (Value side : {a, c}) {
                auto type = dyn_cast<RankedTensorType>(side.getType());
                if (!type || type != margin.getType() ||
                    !isF32Tensor(type, /*requireStaticShape=*/true) ||
                    matchPattern(side, m_Constant()))
                  continue;
                seedValues.push_back(
                    {side, g.div(g.floats(type, randomSigns(type)), margin)});
              }
            }
            backward(seedValues, k == 0, &Probe::products,
                     &Probe::operandProducts, &Probe::weightProducts);
            if (!peakSeeds.empty())
              backward(peakSeeds, false, &Probe::peakProducts,
                       &Probe::peakOperandProducts, &Probe::peakWeightProducts);
          }
          sums.assign(values.size(), Sums());
          return values;
        },
        [&](size_t probe, ArrayRef<float> product) {
          if (probe < rangeProbes)
            return ranges.observe(probe, product);
          if (probe < paired.size() && paired[probe])
            sums[probe].addPaired(product, exactValues);
          else
            sums[probe].add(product);
          sets = std::max(sets, ++sums[probe].sets);
        },
        *engineKind, &reached);
    if (err) {
      module.emitError(llvm::toString(std::move(err)));
      return signalPassFailure();
    }

    if (recordRanges && failed(ranges.annotate(module, ops, calibration)))
      return signalPassFailure();

    Builder b(&getContext());
    double perSet = 1.0 / std::max<size_t>(sets, 1);
    // Under max-abs: where the outputs' error gathers in their peaks, the
    // largest element is a larger part of the L2 error than n independent
    // errors give. An op's energy is then the larger of its L2 energy and
    // its peaks' energy scaled by (maxAbsPerL2(peaks) / maxAbsPerL2(n))^2,
    // so that dsmp-assign-precision's factor maxAbsPerL2(n) turns either into
    // its expected largest element.
    double peakScale = 0;
    int64_t peakElements = 0;
    if (!peakCounts.empty()) {
      double count = 0;
      for (int index : peakCounts)
        count += sums[index].abs;
      peakElements = std::max<int64_t>(1, std::llround(count * perSet));
      peakScale =
          std::pow(maxAbsPerL2(peakElements) / maxAbsPerL2(outputElements), 2);
    }
    // What the energies measure, for dsmp-assign-precision: under max-abs
    // it needs the outputs' element count (maxAbsPerL2, RoundingCost.h).
    SmallVector<NamedAttribute> metricFields{
        b.getNamedAttr("metric", b.getStringAttr(metric)),
        b.getNamedAttr("output_elements", b.getI64IntegerAttr(outputElements)),
        b.getNamedAttr("seed_vectors", b.getI64IntegerAttr(seedVectorCount)),
        b.getNamedAttr("exact_seeds", b.getBoolAttr(exactSeeds))};
    if (!peakCounts.empty())
      metricFields.push_back(
          b.getNamedAttr("peak_elements", b.getI64IntegerAttr(peakElements)));
    module->setAttr("dsmp.error_metric", b.getDictionaryAttr(metricFields));
    for (auto [id, op] : llvm::enumerate(ops)) {
      const Probe &p = probes[id];
      if (!reached.empty() && !reached[id]) {
        // Its gradient there is zero, but only because no set ran it.
        op->setAttr("dsmp.no_adjoint",
                    b.getStringAttr("a branch no calibration set takes"));
        continue;
      }
      if (p.products.empty()) {
        if (!stoppedBy[id].empty())
          op->setAttr("dsmp.no_adjoint", b.getStringAttr(stoppedBy[id]));
        continue;
      }
      // Means over the sets and the seed vectors.
      auto mean = [&](ArrayRef<int> list, double Sums::*field) {
        double total = 0;
        for (int index : list)
          total += sums[index].*field;
        return total * perSet / list.size();
      };
      // An energy, or under max-abs the larger of it and its peaks'.
      auto energy = [&](ArrayRef<int> list, ArrayRef<int> peaks) {
        double l2 = mean(list, &Sums::square);
        if (peaks.empty())
          return l2;
        return std::max(l2, peakScale * mean(peaks, &Sums::square));
      };
      SmallVector<NamedAttribute> fields{
          b.getNamedAttr("adapt",
                         b.getF64FloatAttr(mean(p.products, &Sums::abs))),
          b.getNamedAttr(
              "energy", b.getF64FloatAttr(energy(p.products, p.peakProducts)))};
      // Where equal values' shared rounding (or values that round
      // exactly) moved the energy over 2x from the independent sum: the
      // report says why.
      double independent = mean(p.products, &Sums::independent);
      double grouped = mean(p.products, &Sums::square);
      if (independent > 0 &&
          (grouped > 2 * independent || 2 * grouped < independent))
        fields.push_back(b.getNamedAttr("independent_energy",
                                        b.getF64FloatAttr(independent)));
      if (!p.peakProducts.empty())
        fields.push_back(b.getNamedAttr(
            "peak_energy",
            b.getF64FloatAttr(mean(p.peakProducts, &Sums::square))));
      if (!p.operandProducts.empty())
        fields.push_back(b.getNamedAttr(
            "operand_energy", b.getF64FloatAttr(energy(
                                  p.operandProducts, p.peakOperandProducts))));
      // f16's subnormal rounding, in squared error (not times u^2).
      std::pair<StringRef, ArrayRef<int>> subnormals[] = {
          {"subnormal_error", p.products},
          {"operand_subnormal_error", p.operandProducts}};
      for (auto [key, list] : subnormals)
        if (!list.empty())
          if (double sub = mean(list, &Sums::subnormal); sub > 0)
            fields.push_back(b.getNamedAttr(key, b.getF64FloatAttr(sub)));
      if (!p.weightProducts.empty())
        fields.push_back(b.getNamedAttr(
            "weight_energy",
            b.getF64FloatAttr(energy(p.weightProducts, p.peakWeightProducts))));
      op->setAttr("dsmp.sensitivity", b.getDictionaryAttr(fields));
    }
    if (!stopNames.empty()) {
      SmallVector<Attribute> names;
      for (const std::string &n : stopNames)
        names.push_back(b.getStringAttr(n));
      module->setAttr("dsmp.adjoint_stopped_at", b.getArrayAttr(names));
    }
    if (!estimateNames.empty()) {
      SmallVector<Attribute> names;
      for (const std::string &n : estimateNames)
        names.push_back(b.getStringAttr(n));
      module->setAttr("dsmp.adjoint_estimated_at", b.getArrayAttr(names));
    }
  }
};
} // namespace
