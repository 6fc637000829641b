//===- TagProfileOps.cpp - The profiler's table of ops ----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Before lowering turns ops into loops, records what the profiler reports
// per op (node, type, format, FLOPs) and tags each op's location with its
// index, which the lowered calls' locations still carry (dsmp-time-calls).
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/MainGraph.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "lib/Conversion/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_TAGPROFILEOPSPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {
/// The format an op computes in: the one a precision assignment chose, else
/// its first result's element type (f32, f16, i64, ...).
std::string formatOf(Operation *op) {
  if (auto assigned = op->getAttrOfType<FormatAttr>("dsmp.assigned"))
    return stringifyFormat(assigned.getValue()).str();
  std::string text;
  llvm::raw_string_ostream os(text);
  getElementTypeOrSelf(op->getResult(0).getType()).print(os);
  return text;
}

struct TagProfileOpsPass final
    : mlir::dsmp::impl::TagProfileOpsPassBase<TagProfileOpsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp graph = lookupMainGraph(module);
    if (!graph) {
      module.emitError("dsmp-tag-profile-ops needs @main_graph");
      return signalPassFailure();
    }
    MLIRContext *context = &getContext();
    Builder b(context);
    auto *dialect = context->getLoadedDialect<DsmpDialect>();
    SmallVector<Attribute> table;
    graph.walk([&](Operation *op) {
      if (op->getDialect() != dialect || op->getNumRegions() != 0 ||
          op->getNumOperands() == 0 || op->getNumResults() == 0)
        return;
      int64_t flops = 0;
      if (auto precision = dyn_cast<PrecisionOpInterface>(op))
        flops = precision.getFlopCount().value_or(0);
      const OnnxOpInfo *info = lookupDsmpOp(op->getName().getStringRef());
      // Ops no ONNX node made: a training step's loss, gradient sums and
      // optimizer (dsmp.training_f32), or other ops the compiler added.
      std::string name = onnxNodeName(op->getLoc());
      if (name.empty())
        name = op->hasAttr("dsmp.training_f32") ? "(loss and optimizer)"
                                                : "(added by dsmp)";
      table.push_back(b.getDictionaryAttr({
          b.getNamedAttr("name", b.getStringAttr(name)),
          b.getNamedAttr("type",
                         b.getStringAttr(info ? StringRef(info->onnxType)
                                              : op->getName().getStringRef())),
          b.getNamedAttr("format", b.getStringAttr(formatOf(op))),
          b.getNamedAttr("flops", b.getI64IntegerAttr(flops)),
      }));
      auto tag = b.getDictionaryAttr(b.getNamedAttr(
          kProfileOpTag, b.getI64IntegerAttr(int64_t(table.size()) - 1)));
      op->setLoc(FusedLoc::get(context, {op->getLoc()}, tag));
    });
    module->setAttr("dsmp.profile_ops", b.getArrayAttr(table));
  }
};
} // namespace
