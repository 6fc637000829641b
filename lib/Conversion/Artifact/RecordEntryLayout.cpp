//===- RecordEntryLayout.cpp - The entry point's layout ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Before lowering erases the tensor types and the ONNX names, records how
// the C entry point passes each of @main_graph's arguments and results.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/MainGraph.h"
#include "lib/Conversion/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_RECORDENTRYLAYOUTPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {
struct RecordEntryLayoutPass final
    : mlir::dsmp::impl::RecordEntryLayoutPassBase<RecordEntryLayoutPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp graph = lookupMainGraph(module);
    if (!graph) {
      module.emitError("dsmp-record-entry-layout needs @main_graph");
      return signalPassFailure();
    }
    Builder b(&getContext());
    SmallVector<Attribute> layout;
    auto entry = [&](StringRef kind, int64_t slot, Type type, StringRef name,
                     ArrayRef<std::string> dimNames = {}) -> LogicalResult {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || (!dynamic && !tensor.hasStaticShape()))
        return graph.emitError() << "'" << name << "' has type " << type
                                 << "; the entry point takes static tensors";
      if (kind == "weight" && !tensor.hasStaticShape())
        return graph.emitError()
               << "a weight has type " << type << "; weights are static";
      SmallVector<NamedAttribute> fields{
          b.getNamedAttr("kind", b.getStringAttr(kind)),
          b.getNamedAttr("slot", b.getI64IntegerAttr(slot)),
          b.getNamedAttr("type", TypeAttr::get(type))};
      if (!name.empty())
        fields.push_back(b.getNamedAttr("name", b.getStringAttr(name)));
      // A dynamic input's dim names: inputs sharing one have one size.
      if (!tensor.hasStaticShape() &&
          llvm::any_of(dimNames,
                       [](const std::string &n) { return !n.empty(); })) {
        SmallVector<Attribute> names;
        for (const std::string &n : dimNames)
          names.push_back(b.getStringAttr(n));
        fields.push_back(b.getNamedAttr("dim_names", b.getArrayAttr(names)));
      }
      layout.push_back(b.getDictionaryAttr(fields));
      return success();
    };
    int64_t numInputs = 0;
    for (unsigned i = 0; i < graph.getNumArguments(); ++i) {
      Type type = graph.getArgument(i).getType();
      LogicalResult recorded = success();
      if (auto offset =
              graph.getArgAttrOfType<IntegerAttr>(i, "dsmp.weight_offset"))
        recorded = entry("weight", offset.getInt(), type, "");
      else
        recorded = entry("input", numInputs++, type, graphInputName(graph, i),
                         graphInputDimNames(graph, i));
      if (failed(recorded))
        return signalPassFailure();
    }
    for (unsigned i = 0; i < graph.getNumResults(); ++i)
      if (failed(entry("output", numInputs + i, graph.getResultTypes()[i],
                       graphOutputName(graph, i))))
        return signalPassFailure();
    module->setAttr("dsmp.entry_layout", b.getArrayAttr(layout));
  }
};
} // namespace
