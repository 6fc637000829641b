//===- AnalyzeRanges.cpp - Static and calibrated value ranges - -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Calibration.h"
#include "passes/Precision/Formats.h"
#include "passes/Precision/Passes.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/ShapeInference.h"

#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>

#define DEBUG_TYPE "dsmp-analyze-ranges"

namespace mlir::dsmp {
#define GEN_PASS_DEF_ANALYZERANGESPASS
#include "passes/Precision/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

constexpr int kLowestExponent = -30, kHighestExponent = 17;
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

struct Stats {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double amax = 0;
  int64_t count = 0, zeros = 0, nonFinite = 0;
  SmallVector<int64_t> hist =
      SmallVector<int64_t>(kHighestExponent - kLowestExponent + 1, 0);
  SmallVector<int64_t> belowNormal =
      SmallVector<int64_t>(std::size(kRangeFormats), 0);

  void add(ArrayRef<float> values) {
    double normals[std::size(kRangeFormats)];
    for (auto [i, f] : llvm::enumerate(kRangeFormats))
      normals[i] = smallestNormal(f);
    for (float x : values) {
      ++count;
      if (!std::isfinite(x)) {
        ++nonFinite;
        continue;
      }
      min = std::min<double>(min, x);
      max = std::max<double>(max, x);
      double a = std::fabs(x);
      amax = std::max(amax, a);
      if (a == 0) {
        ++zeros;
        continue;
      }
      int e = std::ilogb(a);
      e = std::clamp(e, kLowestExponent, kHighestExponent);
      ++hist[e - kLowestExponent];
      for (size_t i = 0; i < std::size(kRangeFormats); ++i)
        if (a < normals[i])
          ++belowNormal[i];
    }
  }
};

struct AnalyzeRangesPass final
    : mlir::dsmp::impl::AnalyzeRangesPassBase<AnalyzeRangesPass> {
  using AnalyzeRangesPassBase::AnalyzeRangesPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops = graphOps(module);
    if (ops.empty()) {
      module.emitError("dsmp-analyze-ranges: the module has no @main_graph");
      return signalPassFailure();
    }
    Builder b(&getContext());
    std::vector<Stats> stats(ops.size());
    std::vector<bool> measured(ops.size(), false);
    std::vector<std::optional<int64_t>> flops(ops.size());
    auto engineKind = parseHostEngine(engine);
    if (!engineKind) {
      module.emitError("dsmp-analyze-ranges: " +
                       llvm::toString(engineKind.takeError()));
      return signalPassFailure();
    }
    if (!calibration.empty()) {
      // Expose result 0 of every op with an f32 tensor result.
      auto outputs = runInstrumented(
          module, calibration,
          [&](func::FuncOp,
              ArrayRef<Operation *> copy) -> FailureOr<SmallVector<Value>> {
            SmallVector<Value> values;
            for (auto [id, op] : llvm::enumerate(copy)) {
              // FLOPs at the calibration shapes (the model's own may be
              // dynamic).
              if (auto precision = dyn_cast_or_null<PrecisionOpInterface>(op))
                flops[id] = precision.getFlopCount();
              if (!op || op->getNumResults() == 0 ||
                  !isF32Tensor(op->getResult(0).getType()) ||
                  op->hasTrait<mlir::OpTrait::ConstantLike>())
                continue;
              measured[id] = true;
              values.push_back(op->getResult(0));
            }
            return values;
          },
          *engineKind);
      if (!outputs) {
        module.emitError(llvm::toString(outputs.takeError()));
        return signalPassFailure();
      }
      for (const auto &set : *outputs) {
        size_t next = 0;
        for (size_t id = 0; id < ops.size(); ++id)
          if (measured[id])
            stats[id].add(floatsOf(set[next++]));
      }
    }

    for (auto [id, op] : llvm::enumerate(ops)) {
      if (op->getNumResults() == 0 ||
          !isF32Tensor(op->getResult(0).getType()) ||
          op->hasTrait<mlir::OpTrait::ConstantLike>())
        continue;
      SmallVector<NamedAttribute> fields;
      if (auto bounds = staticBounds(op)) {
        fields.push_back(
            b.getNamedAttr("static_lo", b.getF64FloatAttr(bounds->first)));
        fields.push_back(
            b.getNamedAttr("static_hi", b.getF64FloatAttr(bounds->second)));
      }
      const Stats &s = stats[id];
      if (measured[id] && s.count > 0) {
        bool any = s.count > s.nonFinite;
        fields.push_back(
            b.getNamedAttr("min", b.getF64FloatAttr(any ? s.min : 0)));
        fields.push_back(
            b.getNamedAttr("max", b.getF64FloatAttr(any ? s.max : 0)));
        fields.push_back(b.getNamedAttr("amax", b.getF64FloatAttr(s.amax)));
        fields.push_back(b.getNamedAttr("count", b.getI64IntegerAttr(s.count)));
        fields.push_back(b.getNamedAttr("zeros", b.getI64IntegerAttr(s.zeros)));
        if (s.nonFinite)
          fields.push_back(
              b.getNamedAttr("non_finite", b.getI64IntegerAttr(s.nonFinite)));
        fields.push_back(
            b.getNamedAttr("hist", b.getDenseI64ArrayAttr(s.hist)));
        SmallVector<Attribute> overflow, underflow;
        int64_t nonzero = s.count - s.zeros - s.nonFinite;
        for (auto [i, f] : llvm::enumerate(kRangeFormats)) {
          StringAttr name = b.getStringAttr(stringifyFormat(f));
          if (s.amax > largestValue(f))
            overflow.push_back(name);
          if (nonzero > 0 && s.belowNormal[i] * 100 > nonzero)
            underflow.push_back(name);
        }
        fields.push_back(b.getNamedAttr("overflow", b.getArrayAttr(overflow)));
        fields.push_back(
            b.getNamedAttr("underflow", b.getArrayAttr(underflow)));
      }
      if (!fields.empty())
        op->setAttr("dsmp.range", b.getDictionaryAttr(fields));
      if (flops[id])
        op->setAttr("dsmp.flops", b.getI64IntegerAttr(*flops[id]));
    }
  }
};
} // namespace
