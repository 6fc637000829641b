//===- AssignPrecision.cpp - Per-op formats under an error ---- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A greedy knapsack: each op that may leave f32 offers its best format
// (the target's highest throughput, then the smallest unit roundoff) with
// a benefit (FLOPs x (1 - 1/throughput)) and a cost (its predicted share of
// the squared relative output error, u^2/3 x energy). Ops are taken by
// cost per benefit until the budget (margin x tolerance)^2 is spent; an op
// that does not fit may still take a cheaper format (tf32 for a matmul, f16
// for one that offered f8 first).
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Calibration.h"
#include "passes/Precision/F8Scaling.h"
#include "passes/Precision/Formats.h"
#include "passes/Precision/Passes.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dsmp/Target/TargetDescription.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Regex.h"

#include <cmath>

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
                                    "BatchNormalization",
                                    "InstanceNormalization",
                                    "GroupNormalization",
                                    "LpNormalization"};

/// Ops whose result is one of their inputs' values: exact in any format,
/// so they follow their input like data movement.
bool selectsInput(Operation *op) { return isa<MaxPoolOp, GlobalMaxPoolOp>(op); }

bool hasF32Result(Operation *op) {
  return llvm::any_of(op->getResultTypes(),
                      [](Type type) { return isF32Tensor(type); });
}

struct Choice {
  Operation *op;
  Format format;
  double benefit, cost;
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
    if (!(margin > 0) || margin > 4) {
      module.emitError("dsmp-assign-precision: margin must be in (0, 4]");
      return signalPassFailure();
    }
    auto description = getTargetDescription(
        target, std::vector<std::string>(features.begin(), features.end()));
    if (!description) {
      module.emitError(llvm::toString(description.takeError()));
      return signalPassFailure();
    }
    std::optional<Format> only;
    if (defaultFormat == "f16")
      only = Format::f16;
    else if (defaultFormat == "bf16")
      only = Format::bf16;
    else if (defaultFormat != "auto") {
      module.emitError("dsmp-assign-precision: default-format must be auto, "
                       "f16 or bf16, got '")
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
    auto mark = [&](Operation *op, Format format, StringRef reason) {
      op->setAttr("dsmp.assigned", FormatAttr::get(&getContext(), format));
      op->setAttr("dsmp.reason", b.getStringAttr(reason));
    };
    const TargetDescription &t = *description;
    double budget = std::pow(margin * tolerance, 2);

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
      if (op->hasAttr("dsmp.keep_f32")) {
        mark(op, Format::f32, "validation");
        continue;
      }
      auto sensitivity = op->getAttrOfType<DictionaryAttr>("dsmp.sensitivity");
      auto number = [&](StringRef key) {
        auto attr = sensitivity ? sensitivity.getAs<FloatAttr>(key) : nullptr;
        return attr ? attr.getValueAsDouble() : 0.0;
      };
      bool contraction = cls == OpClass::matmul || cls == OpClass::conv;
      double energy = number("energy"),
             operandEnergy = number("operand_energy");
      // FLOPs at the calibration shapes when the range analysis saw them.
      auto measuredFlops = op->getAttrOfType<IntegerAttr>("dsmp.flops");
      double flops = static_cast<double>(
          measuredFlops ? measuredFlops.getInt()
                        : precision.getFlopCount().value_or(0));

      // Formats the target and the op both allow, minus overflowing ones.
      SmallVector<Format> allowed = precision.getAllowedFormats();
      bool overflowed = false, underflowed = false;
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
        double u2 = std::pow(unitRoundoff(f), 2) / 3.0;
        double terms =
            operandsOnly ? 2 * operandEnergy
                         : energy + (contraction ? 2 * operandEnergy : energy);
        double benefit = flops * (1.0 - 1.0 / t.throughputOf(f));
        if (benefit <= 0)
          continue;
        choices.push_back({op, f, benefit, u2 * terms});
      }
      if (choices.empty()) {
        if (overflowed)
          mark(op, Format::f32, "overflow");
        else if (underflowed)
          mark(op, Format::f32, "underflow");
        continue;
      }
      if (!sensitivity) {
        mark(op, Format::f32, "no_sensitivity");
        continue;
      }
      auto byBenefit = [](const Choice &a, const Choice &c) {
        if (a.benefit != c.benefit)
          return a.benefit > c.benefit;
        if (a.cost != c.cost)
          return a.cost < c.cost;
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

    // Cheapest error per unit of benefit first; ties in graph order.
    for (auto [index, choices] : llvm::enumerate(offers))
      for (Choice &c : choices)
        c.order = index;
    llvm::sort(offers, [](const auto &a, const auto &c) {
      double left = a.front().cost * c.front().benefit;
      double right = c.front().cost * a.front().benefit;
      if (left != right)
        return left < right;
      return a.front().order < c.front().order;
    });
    double spent = 0;
    llvm::DenseMap<Operation *, Choice> taken;
    llvm::DenseSet<Operation *> fallbacks; // took a cheaper, lesser format
    SmallVector<const SmallVector<Choice, 2> *> rejected;
    for (const auto &choices : offers) {
      const Choice &best = choices.front();
      if (spent + best.cost <= budget) {
        spent += best.cost;
        taken[best.op] = best;
      } else {
        rejected.push_back(&choices);
      }
    }
    for (const auto *choices : rejected) {
      bool fits = false;
      for (const Choice &c : llvm::drop_begin(*choices)) {
        if (spent + c.cost <= budget) {
          spent += c.cost;
          taken[c.op] = c;
          fallbacks.insert(c.op);
          fits = true;
          break;
        }
      }
      if (!fits)
        mark(choices->front().op, Format::f32, "budget");
    }
    // Second phase: what is left of the budget upgrades 16-bit ops to f8,
    // the most benefit per unit of extra error first. f8 adds little over
    // 16 bits (1/30 - 1/60 of the FLOPs on sm_90) at 2^14 times the error,
    // so it must not crowd ops out of 16 bits.
    SmallVector<std::pair<Choice, Choice>> steps; // (from, to)
    for (auto &[op, to] : upgrades)
      if (auto it = taken.find(op);
          it != taken.end() && to.benefit > it->second.benefit)
        steps.push_back({it->second, to});
    llvm::sort(steps, [](const auto &x, const auto &y) {
      double left =
          (x.second.benefit - x.first.benefit) * (y.second.cost - y.first.cost);
      double right =
          (y.second.benefit - y.first.benefit) * (x.second.cost - x.first.cost);
      if (left != right)
        return left > right;
      return x.first.order < y.first.order;
    });
    for (auto &[from, to] : steps) {
      double extra = to.cost - from.cost;
      if (spent + extra <= budget) {
        spent += extra;
        taken[from.op] = to;
      }
    }
    for (const auto &choices : offers)
      if (auto it = taken.find(choices.front().op); it != taken.end())
        accept(it->second, budget, b,
               fallbacks.contains(it->first) ? "budget_fallback"
                                             : "sensitivity");

    // Data movement runs in the format its inputs arrive in.
    for (Operation *op : graphOps(module)) {
      auto precision = dyn_cast<PrecisionOpInterface>(op);
      if (!precision ||
          (precision.getOpClass() != OpClass::data_movement &&
           !selectsInput(op)) ||
          !hasF32Result(op) || isa<CastOp>(op))
        continue;
      // The format of the data operand: the first non-constant f32 one.
      std::optional<Format> common;
      for (Value operand : op->getOperands()) {
        auto type = dyn_cast<RankedTensorType>(operand.getType());
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
             b.getNamedAttr("predicted_error",
                            b.getF64FloatAttr(std::sqrt(spent)))}));
  }

  void accept(const Choice &c, double budget, Builder &b, StringRef reason) {
    c.op->setAttr("dsmp.assigned", FormatAttr::get(&getContext(), c.format));
    c.op->setAttr("dsmp.reason", b.getStringAttr(reason));
    c.op->setAttr("dsmp.error_share", b.getF64FloatAttr(c.cost / budget));
  }

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

  /// Whether the op's result or a float operand (a graph input too) exceeds
  /// `f`'s range in the calibrated (or static) ranges.
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
