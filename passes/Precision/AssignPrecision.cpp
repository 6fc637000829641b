//===- AssignPrecision.cpp - Per-op formats under an error ---- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A greedy knapsack: each op that may leave f32 offers its best format
// (the target's highest throughput, then the smallest unit roundoff) with
// a benefit (FLOPs x (1 - 1/throughput)) and a cost: what that format adds
// to the predicted squared relative output error of the ops taken so far
// (RoundingCost: the roundings of its result, its inputs and its weights,
// u^2 / (8 ln 2) x their energies). Ops are taken by cost per benefit until the
// budget (margin x tolerance)^2 is spent, their neighbours' costs updated
// as they go; an op that does not fit may still take a cheaper format
// (tf32 for a matmul), and what budget is left upgrades contractions to f8.
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Adjoint.h"
#include "passes/Precision/Calibration.h"
#include "passes/Precision/F8Scaling.h"
#include "passes/Precision/Formats.h"
#include "passes/Precision/Passes.h"
#include "passes/Precision/RoundingCost.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dsmp/Target/TargetDescription.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Regex.h"

#include <cmath>
#include <queue>

#define DEBUG_TYPE "dsmp-assign-precision"

namespace mlir::dsmp {
#define GEN_PASS_DEF_ASSIGNPRECISIONPASS
#include "passes/Precision/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

/// What the peers agree should stay f32 (or accumulate in it): exp, log,
/// pow, softmax and the normalization statistics and reductions.
const char *const kDefaultDeny[] = {"Exp",
                                    "Log",
                                    "Pow",
                                    "Softmax",
                                    "LogSoftmax",
                                    "ReduceMean",
                                    "ReduceSum",
                                    "ReduceSumSquare",
                                    "ReduceMax",
                                    "ReduceMin",
                                    "ReduceProd",
                                    "ReduceL1",
                                    "ReduceL2",
                                    "ReduceLogSum",
                                    "ReduceLogSumExp",
                                    "Sqrt",
                                    "Reciprocal",
                                    "CumSum",
                                    "LayerNormalization",
                                    "InstanceNormalization",
                                    "GroupNormalization",
                                    "LpNormalization"};

/// Ops whose result is one of their inputs' values: exact in any format,
/// so they follow their input like data movement.
bool selectsInput(Operation *op) { return isa<MaxPoolOp, GlobalMaxPoolOp>(op); }

/// An op whose every use ends in a discrete decision (a cast to integers, a
/// comparison, an arg-max, floor/ceil/round/sign) before any output: no
/// gradient reaches it (the derivative is zero almost everywhere), and its
/// rounding can flip an index, a bucket or a mask. T5's relative-position
/// buckets (Log, Div, Mul, then Cast to int64) are such a chain. It stays
/// f32 as `discrete_use`; it is not an unmeasured op.
bool feedsOnlyDiscrete(Operation *op) {
  llvm::SmallVector<Operation *> work{op};
  llvm::DenseSet<Operation *> seen{op};
  while (!work.empty()) {
    Operation *at = work.pop_back_val();
    for (Operation *user : at->getUsers()) {
      if (user->hasTrait<mlir::OpTrait::IsTerminator>())
        return false; // reaches an output (or a branch's result)
      if (isa<GreaterOp, GreaterOrEqualOp, LessOp, LessOrEqualOp, EqualOp,
              ArgMaxOp, ArgMinOp, FloorOp, CeilOp, RoundOp, SignOp>(user))
        continue;
      if (auto cast = dyn_cast<CastOp>(user)) {
        auto type = dyn_cast<ShapedType>(cast.getResult().getType());
        if (type && !isa<FloatType>(type.getElementType()))
          continue;
      }
      if (user->getNumRegions() || user->getNumResults() == 0)
        return false;
      if (seen.insert(user).second)
        work.push_back(user);
    }
  }
  return true;
}

bool hasF32Result(Operation *op) {
  return llvm::any_of(op->getResultTypes(),
                      [](Type type) { return isF32Tensor(type); });
}

struct Choice {
  Operation *op;
  Format format;
  double benefit;
  size_t order = 0; // graph order, to break ties deterministically
};

struct AssignPrecisionPass final
    : mlir::dsmp::impl::AssignPrecisionPassBase<AssignPrecisionPass> {
  using AssignPrecisionPassBase::AssignPrecisionPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!(tolerance > 0)) {
      module.emitError(
          "dsmp-assign-precision: tolerance must be positive, got ")
          << tolerance.getValue();
      return signalPassFailure();
    }
    // Validation widens the margin past 1 where the prediction proved
    // pessimistic, up to 64 (RoundPolicy::run).
    if (!(margin > 0) || margin > 64) {
      module.emitError("dsmp-assign-precision: margin must be in (0, 64]");
      return signalPassFailure();
    }
    auto description = getTargetDescription(
        target, std::vector<std::string>(features.begin(), features.end()));
    if (!description) {
      module.emitError(llvm::toString(description.takeError()));
      return signalPassFailure();
    }
    // The validation rounds' decisions, by graph op index.
    SmallVector<Operation *> indexed = graphOps(module);
    auto markOps = [&](ArrayRef<int64_t> indices, StringRef attr) {
      for (int64_t index : indices) {
        if (index < 0 || index >= static_cast<int64_t>(indexed.size())) {
          module.emitError("dsmp-assign-precision: ")
              << attr << " names op " << index << "; the graph has "
              << indexed.size();
          return false;
        }
        indexed[index]->setAttr(attr, UnitAttr::get(&getContext()));
      }
      return true;
    };
    if (!markOps(keepF32Ops, "dsmp.keep_f32") ||
        !markOps(noF8Ops, "dsmp.no_f8") ||
        !markOps(carrierOps, "dsmp.error_carrier"))
      return signalPassFailure();
    std::optional<Format> only;
    if (defaultFormat == "f16")
      only = Format::f16;
    else if (defaultFormat == "bf16")
      only = Format::bf16;
    else if (defaultFormat == "tf32")
      only = Format::tf32; // matmuls and convs only
    else if (defaultFormat != "auto") {
      module.emitError("dsmp-assign-precision: default-format must be auto, "
                       "f16, bf16 or tf32, got '")
          << defaultFormat.getValue() << "'";
      return signalPassFailure();
    }
    std::optional<llvm::Regex> sensitive;
    if (!sensitiveLayers.empty()) {
      sensitive.emplace(sensitiveLayers.getValue());
      std::string error;
      if (!sensitive->isValid(error)) {
        module.emitError("dsmp-assign-precision: sensitive-layers '")
            << sensitiveLayers.getValue() << "': " << error;
        return signalPassFailure();
      }
    }
    llvm::StringSet<> deny;
    for (const char *name : kDefaultDeny)
      deny.insert(name);
    for (const std::string &name : allowOps)
      deny.erase(name);
    for (const std::string &name : denyOps)
      deny.insert(name);

    Builder b(&getContext());
    assignedName = b.getStringAttr("dsmp.assigned");
    reasonName = b.getStringAttr("dsmp.reason");
    errorShareName = b.getStringAttr("dsmp.error_share");
    auto mark = [&](Operation *op, Format format, StringRef reason) {
      setAttrsOf(op, {{assignedName, FormatAttr::get(&getContext(), format)},
                      {reasonName, b.getStringAttr(reason)}});
    };
    const TargetDescription &t = *description;
    // The energies predict relative L2 errors, or under a max-abs budget the
    // absolute L2 error, of which the expected largest element is a factor.
    double perL2 = 1.0;
    if (auto metric =
            module->getAttrOfType<DictionaryAttr>("dsmp.error_metric"))
      if (auto name = metric.getAs<StringAttr>("metric");
          name && name.getValue() == "max-abs")
        if (auto n = metric.getAs<IntegerAttr>("output_elements"))
          perL2 = maxAbsPerL2(n.getInt());
    double budget = std::pow(margin * tolerance / perL2, 2);

    // A Loop that did not unroll (its trip count depends on shapes the
    // analyses do not fix, or on the data) keeps its body in f32, outside
    // the analyses: marked so, so that the report counts and names them.
    if (auto graph = module.lookupSymbol<func::FuncOp>("main_graph"))
      graph.walk([&](LoopOp loop) {
        loop.getBody().walk([&](Operation *op) {
          if (isa<PrecisionOpInterface>(op) && hasF32Result(op))
            mark(op, Format::f32, "no_sensitivity");
        });
      });

    // Candidates, best format first; f8 apart as an upgrade per op.
    SmallVector<SmallVector<Choice, 2>> offers;
    llvm::DenseMap<Operation *, Choice> upgrades;
    for (Operation *op : graphOps(module)) {
      auto precision = dyn_cast<PrecisionOpInterface>(op);
      if (!precision || !hasF32Result(op))
        continue;
      OpClass cls = precision.getOpClass();
      mark(op, Format::f32, "target");
      if (cls == OpClass::data_movement || selectsInput(op))
        continue; // follows its input below
      if (deny.contains(onnxTypeOf(op))) {
        mark(op, Format::f32, "policy");
        continue;
      }
      if (sensitive && sensitive->match(nodeName(op))) {
        mark(op, Format::f32, "sensitive_layer");
        continue;
      }
      if (op->hasAttr("dsmp.error_carrier")) {
        mark(op, Format::f32, "bisection");
        continue;
      }
      if (op->hasAttr(kTrainingF32Attr)) {
        mark(op, Format::f32, "training");
        continue;
      }
      if (op->hasAttr(kFallbackF32Attr)) {
        mark(op, Format::f32, "fallback");
        continue;
      }
      if (op->hasAttr("dsmp.keep_f32")) {
        mark(op, Format::f32, "validation");
        continue;
      }
      auto sensitivity = op->getAttrOfType<DictionaryAttr>("dsmp.sensitivity");
      bool contraction = cls == OpClass::matmul || cls == OpClass::conv;
      // FLOPs at the calibration shapes when the range analysis saw them.
      auto measuredFlops = op->getAttrOfType<IntegerAttr>("dsmp.flops");
      double flops = static_cast<double>(
          measuredFlops ? measuredFlops.getInt()
                        : precision.getFlopCount().value_or(0));

      // Formats the target and the op both allow, minus overflowing ones.
      SmallVector<Format> allowed = precision.getAllowedFormats();
      bool overflowed = false, underflowed = false, flushed = false;
      SmallVector<Choice, 2> choices;
      for (Format f :
           {Format::f16, Format::bf16, Format::tf32, Format::f8E4M3FN,
            Format::f8E5M2, Format::f8E4M3FNUZ, Format::f8E5M2FNUZ}) {
        if (!t.allows(cls, f) || !llvm::is_contained(allowed, f))
          continue;
        // tf32 and f8 round a contraction's operands; its result stays f32.
        bool operandsOnly = f == Format::tf32 || isF8(f);
        if (operandsOnly && !contraction)
          continue;
        if (only && f != *only && f != Format::tf32)
          continue;
        if (isF8(f) && op->hasAttr("dsmp.no_f8"))
          continue; // a validation round stepped it back to 16 bits
        if (isF8(f) && !scalesToF8(op, f)) {
          underflowed = true;
          continue;
        }
        if (!operandsOnly && overflows(op, f)) {
          overflowed = true;
          continue;
        }
        if (!operandsOnly && subnormalThroughout(op, f)) {
          underflowed = true;
          continue;
        }
        if (!operandsOnly && flushesSingularOperand(op, f)) {
          flushed = true;
          continue;
        }
        double benefit = flops * (1.0 - 1.0 / t.throughputOf(f));
        if (benefit <= 0)
          continue;
        choices.push_back({op, f, benefit});
      }
      if (choices.empty()) {
        if (overflowed)
          mark(op, Format::f32, "overflow");
        else if (underflowed)
          mark(op, Format::f32, "underflow");
        else if (flushed)
          mark(op, Format::f32, "flushed_divisor");
        continue;
      }
      if (policyOnly) {
        llvm::sort(choices, [](const Choice &a, const Choice &c) {
          // f8 only when asked for (default-format); then 16 bits, tf32.
          auto rank = [](Format f) { return isF8(f) ? 2 : f == Format::tf32; };
          return rank(a.format) != rank(c.format)
                     ? rank(a.format) < rank(c.format)
                     : a.format < c.format;
        });
        accept(choices.front(), 0, b, "policy_only");
        continue;
      }
      if (!sensitivity) {
        mark(op, Format::f32,
             feedsOnlyDiscrete(op) ? "discrete_use" : "no_sensitivity");
        continue;
      }
      auto byBenefit = [](const Choice &a, const Choice &c) {
        if (a.benefit != c.benefit)
          return a.benefit > c.benefit;
        if (unitRoundoff(a.format) != unitRoundoff(c.format))
          return unitRoundoff(a.format) < unitRoundoff(c.format);
        return a.format < c.format;
      };
      // f8 choices are upgrades of the 16-bit/tf32 one (second phase).
      SmallVector<Choice, 2> eight;
      llvm::erase_if(choices, [&](const Choice &c) {
        if (isF8(c.format))
          eight.push_back(c);
        return isF8(c.format);
      });
      llvm::sort(choices, byBenefit);
      llvm::sort(eight, byBenefit);
      if (choices.empty()) { // f8 only: the op offers it directly
        offers.push_back(std::move(eight));
        continue;
      }
      if (!eight.empty())
        upgrades[op] = eight.front();
      offers.push_back(std::move(choices));
    }

    // Cheapest error per unit of benefit first, an op's error being what
    // its format adds to the assignment so far (RoundingCost): taking an op
    // changes its neighbours' costs, so they are queued again.
    RoundingCost cost(graphOps(module));
    llvm::DenseMap<Operation *, size_t> offerOf;
    for (auto [index, choices] : llvm::enumerate(offers)) {
      for (Choice &c : choices)
        c.order = index;
      offerOf[choices.front().op] = index;
    }
    struct Entry {
      double key;
      size_t order;
      unsigned version;
      bool operator>(const Entry &o) const {
        return key != o.key ? key > o.key : order > o.order;
      }
    };
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
    std::vector<unsigned> versions(offers.size(), 0);
    std::vector<bool> isTaken(offers.size(), false);
    auto enqueue = [&](size_t index) {
      const Choice &best = offers[index].front();
      queue.push({cost.delta(best.op, best.format) / best.benefit, index,
                  ++versions[index]});
    };
    for (size_t index = 0; index < offers.size(); ++index)
      enqueue(index);
    double spent = 0;
    llvm::DenseMap<Operation *, std::pair<Choice, double>> taken; // + its cost
    llvm::DenseSet<Operation *> fallbacks; // took a cheaper, lesser format
    auto take = [&](const Choice &c, double added) {
      cost.set(c.op, c.format);
      spent += added;
      taken[c.op] = {c, added};
      isTaken[offerOf[c.op]] = true;
      for (Operation *other : cost.neighbours(c.op))
        if (auto it = offerOf.find(other);
            it != offerOf.end() && !isTaken[it->second])
          enqueue(it->second);
    };
    while (!queue.empty()) {
      Entry e = queue.top();
      queue.pop();
      if (e.version != versions[e.order] || isTaken[e.order])
        continue;
      // Its cost now: a widely read neighbour's choice may have changed it
      // without requeueing it (RoundingCost::neighbours).
      const Choice &best = offers[e.order].front();
      double added = cost.delta(best.op, best.format);
      double queued = e.key * best.benefit;
      if (added > queued + 1e-9 * std::fabs(queued)) {
        queue.push({added / best.benefit, e.order, ++versions[e.order]});
        continue;
      }
      if (spent + added <= budget)
        take(best, added);
    }
    // What did not fit may still take a lesser format (tf32 for a matmul).
    for (const auto &choices : offers) {
      if (isTaken[choices.front().order])
        continue;
      bool fits = false;
      for (const Choice &c : llvm::drop_begin(choices)) {
        double added = cost.delta(c.op, c.format);
        if (spent + added <= budget) {
          take(c, added);
          fallbacks.insert(c.op);
          fits = true;
          break;
        }
      }
      if (!fits)
        mark(choices.front().op, Format::f32, "budget");
    }
    // Second phase: what is left of the budget upgrades 16-bit ops to f8,
    // the most benefit per unit of extra error first. f8 adds little over
    // 16 bits (1/30 - 1/60 of the FLOPs on sm_90) at 2^14 times the error,
    // so it must not crowd ops out of 16 bits.
    struct Step {
      Choice from, to;
      double extra;
    };
    SmallVector<Step> steps;
    for (auto &[op, to] : upgrades)
      if (auto it = taken.find(op);
          it != taken.end() && to.benefit > it->second.first.benefit)
        steps.push_back({it->second.first, to, cost.delta(op, to.format)});
    llvm::sort(steps, [](const Step &x, const Step &y) {
      double left = (x.to.benefit - x.from.benefit) * y.extra;
      double right = (y.to.benefit - y.from.benefit) * x.extra;
      if (left != right)
        return left > right;
      return x.from.order < y.from.order;
    });
    for (const Step &step : steps) {
      double extra = cost.delta(step.from.op, step.to.format);
      if (spent + extra <= budget) {
        double before = taken[step.from.op].second;
        cost.set(step.from.op, step.to.format);
        spent += extra;
        taken[step.from.op] = {step.to, before + extra};
      }
    }
    for (const auto &choices : offers)
      if (auto it = taken.find(choices.front().op); it != taken.end())
        accept(it->second.first, it->second.second / budget, b,
               fallbacks.contains(it->first) ? "budget_fallback"
                                             : "sensitivity");

    // Third phase: constant tables that data movement reads (a Gather's
    // embedding, a Slice of packed weights) are stored in 16 bits where what
    // is left of the budget pays for rounding them: no FLOPs, but half their
    // bytes. Free where every reader rounds the values to that format anyway.
    struct Table {
      Operation *op;
      Format format;
      double bytes;
    };
    SmallVector<Table> tables;
    for (Operation *op : graphOps(module)) {
      auto precision = dyn_cast<PrecisionOpInterface>(op);
      if (!precision || precision.getOpClass() != OpClass::data_movement ||
          isa<CastOp>(op) || !hasF32Result(op) ||
          !op->hasAttr("dsmp.sensitivity") || deny.contains(onnxTypeOf(op)) ||
          (sensitive && sensitive->match(nodeName(op))) ||
          op->hasAttr("dsmp.keep_f32"))
        continue;
      double bytes = 0;
      bool constantsOnly = true;
      for (Value operand : op->getOperands()) {
        if (!isF32Tensor(operand.getType()))
          continue;
        Operation *def = operand.getDefiningOp();
        auto type = dyn_cast<RankedTensorType>(operand.getType());
        if (!def || !def->hasTrait<mlir::OpTrait::ConstantLike>() || !type ||
            !type.hasStaticShape()) {
          constantsOnly = false;
          break;
        }
        bytes += 2.0 * type.getNumElements(); // what 16 bits save
      }
      if (!constantsOnly || bytes == 0)
        continue;
      for (Format f : {Format::f16, Format::bf16})
        if ((!only || f == *only) && t.allows(OpClass::data_movement, f) &&
            llvm::is_contained(precision.getAllowedFormats(), f) &&
            !overflows(op, f)) {
          tables.push_back({op, f, bytes});
          break;
        }
    }
    // The most bytes per unit of error first.
    auto bytesPerError = [&](const Table &table) {
      double added = cost.delta(table.op, table.format);
      return added <= 0 ? INFINITY : table.bytes / added;
    };
    llvm::stable_sort(tables, [&](const Table &x, const Table &y) {
      return bytesPerError(x) > bytesPerError(y);
    });
    for (const Table &table : tables) {
      double added = cost.delta(table.op, table.format);
      if (spent + added > budget) {
        mark(table.op, Format::f32, "budget");
        continue;
      }
      cost.set(table.op, table.format);
      spent += added;
      accept({table.op, table.format, 0}, std::max(added, 0.0) / budget, b,
             "weight_storage");
    }

    // Data movement runs in the format its inputs arrive in.
    for (Operation *op : graphOps(module)) {
      auto precision = dyn_cast<PrecisionOpInterface>(op);
      if (!precision ||
          (precision.getOpClass() != OpClass::data_movement &&
           !selectsInput(op)) ||
          !hasF32Result(op) || isa<CastOp>(op) ||
          op->hasAttr(kTrainingF32Attr) || op->hasAttr(kFallbackF32Attr))
        continue;
      // The format of the data operand: the first non-constant f32 one.
      std::optional<Format> common;
      for (Value operand : op->getOperands()) {
        auto type = dyn_cast<TensorType>(operand.getType());
        Operation *def = operand.getDefiningOp();
        if (!type || !type.getElementType().isF32() ||
            (def && def->hasTrait<mlir::OpTrait::ConstantLike>()))
          continue;
        auto assigned =
            def ? def->getAttrOfType<FormatAttr>("dsmp.assigned") : nullptr;
        common = assigned ? assigned.getValue() : Format::f32;
        break;
      }
      if (common && (*common == Format::f16 || *common == Format::bf16) &&
          t.allows(OpClass::data_movement, *common) &&
          llvm::is_contained(precision.getAllowedFormats(), *common))
        mark(op, *common, "data_movement");
    }

    module->setAttr(
        "dsmp.precision",
        b.getDictionaryAttr(
            {b.getNamedAttr("target", b.getStringAttr(target)),
             b.getNamedAttr("tolerance", b.getF64FloatAttr(tolerance)),
             b.getNamedAttr("margin", b.getF64FloatAttr(margin)),
             b.getNamedAttr(
                 "predicted_error",
                 b.getF64FloatAttr(perL2 *
                                   std::sqrt(std::max(cost.total(), 0.0))))}));
  }

  void accept(const Choice &c, double share, Builder &b, StringRef reason) {
    setAttrsOf(c.op, {{assignedName, FormatAttr::get(&getContext(), c.format)},
                      {reasonName, b.getStringAttr(reason)},
                      {errorShareName, b.getF64FloatAttr(share)}});
  }

  // The names of the attributes each decision sets, made once per run.
  StringAttr assignedName, reasonName, errorShareName;

  /// Whether both operands of a contraction can take `f` with a per-tensor
  /// scale: each is measured (a constant, or calibrated) and at most 1 % of
  /// its nonzero values would fall below the scaled format's normals.
  static bool scalesToF8(Operation *op, Format f) {
    for (unsigned i = 0; i < 2 && i < op->getNumOperands(); ++i) {
      auto measured = measureF8Operand(op->getOperand(i), f);
      if (!measured || measured->underflowFraction > 0.01)
        return false;
    }
    return true;
  }

  /// Whether the op divides by (Div's divisor, Reciprocal) or takes the log
  /// of an operand whose calibrated nonzero values include some that `f`
  /// flushes to zero: x / 0 or log 0 where FP32 had a finite result. The
  /// guard of F.normalize, x / clamp_min(||x||, 1e-12), is one: in f16 the
  /// clamp's 1e-12 becomes 0 and a zero row gives 0 / 0 (swin_v2_t).
  static bool flushesSingularOperand(Operation *op, Format f) {
    Value singular = isa<DivOp>(op)                 ? op->getOperand(1)
                     : isa<ReciprocalOp, LogOp>(op) ? op->getOperand(0)
                                                    : Value();
    DictionaryAttr range = singular ? rangeOf(singular) : nullptr;
    auto hist = range ? range.getAs<DenseI64ArrayAttr>("hist") : nullptr;
    if (!hist)
      return false;
    // Values below half the smallest subnormal round to zero: those whose
    // binary exponent is at most its exponent - 2 for certain. Formats
    // whose subnormals lie below the histogram's lowest bin (bf16) flush
    // nothing it can show.
    int flushExponent =
        llvm::ilogb(llvm::APFloat::getSmallest(semanticsOf(f))) - 2;
    if (flushExponent < kRangeHistLowestExponent)
      return false;
    ArrayRef<int64_t> bins = hist.asArrayRef();
    for (int e = kRangeHistLowestExponent; e <= flushExponent; ++e)
      if (size_t bin = e - kRangeHistLowestExponent;
          bin < bins.size() && bins[bin] > 0)
        return true;
    return false;
  }

  /// Whether the op's result or a float operand (a graph input too) exceeds
  /// `f`'s range in the calibrated (or static) ranges.
  /// Whether a value the op reads or makes is so small throughout that
  /// `f` holds it as subnormals: f16's absolute step below 2^-14 (2^-24)
  /// outweighs its relative rounding (2^-11 of the largest value) once the
  /// largest value is under 2^-13. The rounding cost, a relative model, does
  /// not see it, and rel-l2's floor hides it: an untrained network whose
  /// activations shrink to 1e-8 is flushed to zero in f16. bf16 keeps f32's
  /// range. A tensor with large values beside tiny ones (softmax
  /// probabilities) is not: its tiny values' errors are tiny beside them.
  static bool subnormalThroughout(Operation *op, Format f) {
    if (f != Format::f16)
      return false;
    double limit = 2 * smallestNormal(f);
    auto tiny = [&](DictionaryAttr range) {
      auto amax = range ? range.getAs<FloatAttr>("amax") : nullptr;
      return amax && amax.getValueAsDouble() > 0 &&
             amax.getValueAsDouble() < limit;
    };
    if (tiny(op->getAttrOfType<DictionaryAttr>("dsmp.range")))
      return true;
    return llvm::any_of(op->getOperands(),
                        [&](Value v) { return tiny(rangeOf(v)); });
  }

  static bool overflows(Operation *op, Format f) {
    double largest = largestValue(f);
    auto exceeds = [&](DictionaryAttr range) {
      auto amax = range ? range.getAs<FloatAttr>("amax") : nullptr;
      return amax && amax.getValueAsDouble() > largest;
    };
    if (exceeds(op->getAttrOfType<DictionaryAttr>("dsmp.range")))
      return true;
    // Operands: their producers' ranges, or a graph input's.
    return llvm::any_of(op->getOperands(),
                        [&](Value v) { return exceeds(rangeOf(v)); });
  }
};
} // namespace
