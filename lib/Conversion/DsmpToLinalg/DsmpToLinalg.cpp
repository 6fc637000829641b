//===- DsmpToLinalg.cpp - Lower dsmp ops to linalg --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The pass: dsmp ops on static shapes become linalg/tensor/arith/math/scf
// on the same tensor types (no type conversion; tf32 tensors become f32
// first). The patterns live in one file per op family (Common.h lists
// them); this file runs them and reports what is left.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "lib/Conversion/DsmpToLinalg/Common.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "dialects/Dsmp/IR/ShapeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <functional>
#include <limits>

#define DEBUG_TYPE "dsmp-convert-to-linalg"

namespace mlir::dsmp {
#define GEN_PASS_DEF_CONVERTDSMPTOLINALGPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

using namespace mlir::dsmp::lowering;

namespace {
/// The last reason a pattern gave for declining an op, by its location
/// (the error for an op left unlowered quotes it).
class MatchFailureReasons : public RewriterBase::Listener {
public:
  void
  notifyMatchFailure(Location loc,
                     function_ref<void(Diagnostic &)> reasonCallback) override {
    Diagnostic diag(loc, DiagnosticSeverity::Remark);
    reasonCallback(diag);
    std::string text = diag.str();
    if (!text.empty())
      byLocation[loc] = std::move(text);
  }
  std::string of(Location loc) const { return byLocation.lookup(loc); }

private:
  llvm::DenseMap<Location, std::string> byLocation;
};

struct ConvertDsmpToLinalgPass final
    : mlir::dsmp::impl::ConvertDsmpToLinalgPassBase<ConvertDsmpToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    legalizeTF32(getOperation());
    if (convAsGemm) // the GPU path: f8 GEMMs on the codes
      foldF8OperandsIntoGemms(getOperation());
    RewritePatternSet patterns(ctx);
    populateElementwisePatterns(patterns);
    populateActivationPatterns(patterns);
    populateIndexingPatterns(patterns);
    populateScatterPatterns(patterns);
    populateRoiAlignPatterns(patterns);
    populateQuantizationPatterns(patterns);
    populateContractionPatterns(patterns, convAsGemm, widen16BitGemm);
    populateWindowPatterns(patterns);
    populateNormalizationPatterns(patterns);
    populateDataMovementPatterns(patterns);
    populateControlFlowPatterns(patterns);
    populateDynamicShapePatterns(patterns);
    populateGradientScanPatterns(patterns, interleavedScans);
    int64_t before = 0;
    getOperation().walk([&](Operation *op) {
      if (isa<DsmpDialect>(op->getDialect()))
        ++before;
    });
    // Folding is off: it would fold dsmp ops before they are lowered.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    // Producers first: a pattern that sizes its result at run time traces
    // its operands' dims through the linalg ops they became
    // (provablySameSize); an operand still a dsmp op hides where its size
    // comes from.
    config.setUseTopDownTraversal(true);
    MatchFailureReasons reasons;
    config.setListener(&reasons);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
    auto module = getOperation()->getParentOfType<ModuleOp>();
    auto opset = module ? module->getAttrOfType<IntegerAttr>("dsmp.opset")
                        : IntegerAttr();
    auto isDynamic = [](Type type) {
      auto shaped = dyn_cast<ShapedType>(type);
      return shaped && !shaped.hasStaticShape();
    };
    bool failedAny = false;
    int64_t after = 0;
    getOperation().walk([&](Operation *op) {
      if (!isa<DsmpDialect>(op->getDialect()))
        return;
      ++after;
      if (isa<NoneOp>(op)) // stands for an absent value; its users matter
        return;
      auto constant = dyn_cast<ConstantOp>(op);
      if (constant && isa<ExternalAttr>(constant.getValue()))
        op->emitOpError("holds a weight still in the weight file "
                        "(#dsmp.external): run --dsmp-load-weights first");
      else if (llvm::any_of(op->getOperandTypes(), isDynamic) ||
               llvm::any_of(op->getResultTypes(), isDynamic)) {
        InFlightDiagnostic diag = op->emitOpError();
        if (const OnnxOpInfo *info = lookupDsmpOp(op->getName().getStringRef()))
          diag << "(" << info->onnxType << ") ";
        diag << "has dynamic dims, which its lowering does not take yet: "
                "give the inputs' shapes (dsmp-specialize-shapes, "
                "dsmp-compile --shape)";
      } else {
        // Which ONNX op, and why its pattern declined it, in one line.
        InFlightDiagnostic diag = op->emitOpError();
        if (const OnnxOpInfo *info = lookupDsmpOp(op->getName().getStringRef()))
          diag << "(" << info->onnxType
               << (opset ? ", opset " + std::to_string(opset.getInt()) : "")
               << ") ";
        auto reason = reasons.of(op->getLoc());
        diag << "is not lowered to linalg yet: "
             << (reason.empty() ? "static shapes and the ops listed in the "
                                  "pass description only"
                                : reason);
      }
      failedAny = true;
    });
    numLowered += before - after;
    if (failedAny)
      return signalPassFailure();
    // Drop the `none` values the lowered ops no longer use.
    getOperation().walk([](NoneOp op) {
      if (op->use_empty())
        op->erase();
    });
  }
};

} // namespace
