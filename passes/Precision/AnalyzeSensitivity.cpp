//===- AnalyzeSensitivity.cpp - ADAPT sensitivities ----------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Adjoint.h"
#include "passes/Precision/Calibration.h"
#include "passes/Precision/Formats.h"
#include "passes/Precision/Passes.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/GraphBuilder.h"

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

/// Where an op's gradient and value (and, for contractions, those of its
/// activation operand) sit among the added outputs (-1: not measured).
struct Probe {
  int grad = -1, value = -1, operandGrad = -1, operandValue = -1;
};

/// sum |g x| and sum (g x)^2, in double.
std::pair<double, double> productSums(const HostTensor &grad,
                                      const HostTensor &value) {
  ArrayRef<float> g = floatsOf(grad), x = floatsOf(value);
  double abs = 0, square = 0;
  for (size_t k = 0, n = std::min(g.size(), x.size()); k < n; ++k) {
    double p = double(g[k]) * double(x[k]);
    abs += std::fabs(p);
    square += p * p;
  }
  return {abs, square};
}

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
    std::vector<Probe> probes(ops.size());
    std::vector<std::string> stoppedBy(ops.size());
    SmallVector<std::string> stopNames;

    auto engineKind = parseHostEngine(engine);
    if (!engineKind) {
      module.emitError("dsmp-analyze-sensitivity: " +
                       llvm::toString(engineKind.takeError()));
      return signalPassFailure();
    }
    auto outputs = runInstrumented(
        module, calibration,
        [&](func::FuncOp graph,
            ArrayRef<Operation *> copy) -> FailureOr<SmallVector<Value>> {
          Block &body = graph.getBody().front();
          Operation *ret = body.getTerminator();
          SmallVector<Operation *> forward;
          for (Operation &op : body.without_terminator())
            forward.push_back(&op);
          OpBuilder b(ret);
          GraphBuilder g(b, ret->getLoc());

          // Seeds r / |y| with r a fixed random +-1 vector per output.
          std::mt19937 rng(0x5eed);
          SmallVector<std::pair<Value, Value>> seeds;
          for (Value y : ret->getOperands()) {
            if (!isF32Tensor(y.getType(), /*requireStaticShape=*/true))
              continue;
            auto type = cast<RankedTensorType>(y.getType());
            std::vector<float> signs(type.getNumElements());
            for (float &s : signs)
              s = (rng() & 1) ? 1.0f : -1.0f;
            Value norm = g.value(
                "dsmp.sqrt", {g.add(g.reduceAll("dsmp.reduce_sum", g.mul(y, y)),
                                    g.scalar(1e-30, type.getElementType()))});
            seeds.push_back({y, g.div(g.floats(type, signs), norm)});
          }
          Adjoint adjoint = buildAdjoint(b, forward, seeds);
          for (Operation *op : adjoint.stoppedAt)
            stopNames.push_back(onnxTypeOf(op) + " '" + nodeName(op) + "'");

          // The sums over g * x are taken here, not in the graph: the
          // probes stay two outputs per op instead of ~10 ops.
          SmallVector<Value> values;
          auto output = [&](Value v) {
            values.push_back(v);
            return static_cast<int>(values.size()) - 1;
          };
          for (auto [id, op] : llvm::enumerate(copy)) {
            if (!op || op->getNumResults() == 0 ||
                !isF32Tensor(op->getResult(0).getType(),
                             /*requireStaticShape=*/true))
              continue;
            Value x = op->getResult(0);
            Value grad = adjoint.grads.lookup(x);
            if (!grad) {
              if (!adjoint.stoppedAt.empty())
                stoppedBy[id] = stopNames.front();
              continue;
            }
            probes[id].grad = output(grad);
            probes[id].value = output(x);
            if (hasOperandTerm(op)) {
              auto it = adjoint.operandGrads.find(op);
              if (it != adjoint.operandGrads.end())
                for (auto [value, operandGrad] : it->second)
                  if (value == op->getOperand(0)) {
                    probes[id].operandGrad = output(operandGrad);
                    probes[id].operandValue = output(value);
                    break;
                  }
            }
          }
          return values;
        },
        *engineKind);
    if (!outputs) {
      module.emitError(llvm::toString(outputs.takeError()));
      return signalPassFailure();
    }

    Builder b(&getContext());
    double sets = static_cast<double>(outputs->size());
    for (auto [id, op] : llvm::enumerate(ops)) {
      const Probe &p = probes[id];
      if (p.grad < 0) {
        if (!stoppedBy[id].empty())
          op->setAttr("dsmp.no_adjoint", b.getStringAttr(stoppedBy[id]));
        continue;
      }
      double adapt = 0, energy = 0, operandEnergy = 0;
      for (const auto &set : *outputs) {
        auto [abs, square] = productSums(set[p.grad], set[p.value]);
        adapt += abs;
        energy += square;
        if (p.operandGrad >= 0)
          operandEnergy +=
              productSums(set[p.operandGrad], set[p.operandValue]).second;
      }
      SmallVector<NamedAttribute> fields{
          b.getNamedAttr("adapt", b.getF64FloatAttr(adapt / sets)),
          b.getNamedAttr("energy", b.getF64FloatAttr(energy / sets))};
      if (p.operandGrad >= 0)
        fields.push_back(b.getNamedAttr(
            "operand_energy", b.getF64FloatAttr(operandEnergy / sets)));
      op->setAttr("dsmp.sensitivity", b.getDictionaryAttr(fields));
    }
    if (!stopNames.empty()) {
      SmallVector<Attribute> names;
      for (const std::string &n : stopNames)
        names.push_back(b.getStringAttr(n));
      module->setAttr("dsmp.adjoint_stopped_at", b.getArrayAttr(names));
    }
  }
};
} // namespace
