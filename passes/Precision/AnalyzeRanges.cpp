//===- AnalyzeRanges.cpp - Static and calibrated value ranges - -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Calibration.h"
#include "passes/Precision/Passes.h"
#include "passes/Precision/RangeStats.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#define DEBUG_TYPE "dsmp-analyze-ranges"

namespace mlir::dsmp {
#define GEN_PASS_DEF_ANALYZERANGESPASS
#include "passes/Precision/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

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
    auto engineKind = parseHostEngine(engine);
    if (!engineKind) {
      module.emitError("dsmp-analyze-ranges: " +
                       llvm::toString(engineKind.takeError()));
      return signalPassFailure();
    }
    RangeRecorder ranges(ops.size());
    if (!calibration.empty()) {
      // Probe result 0 of every op with an f32 tensor result; the
      // statistics are taken as each value is computed.
      llvm::Error err = runProbes(
          module, calibration,
          [&](func::FuncOp, ArrayRef<Operation *> copy,
              ArrayRef<OpParts> parts) -> FailureOr<SmallVector<Value>> {
            SmallVector<Value> values;
            ranges.instrument(copy, parts, values);
            return values;
          },
          [&](size_t probe, ArrayRef<float> values) {
            ranges.observe(probe, values);
          },
          *engineKind);
      if (err) {
        module.emitError(llvm::toString(std::move(err)));
        return signalPassFailure();
      }
    }
    if (failed(ranges.annotate(module, ops, calibration)))
      return signalPassFailure();
  }
};
} // namespace
