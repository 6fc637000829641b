//===- OpSummary.cpp - Per-op-type summary of a dsmp module -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "OpSummary.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"

using namespace mlir;

namespace mlir::dsmp {

/// A copy of `module` whose inputs have every dynamic dim set to 1 and
/// whose other types are refined from them, so FLOPs can be counted per
/// unit of each dynamic dim (per sample, for a dynamic batch).
static OwningOpRef<ModuleOp> withUnitDynamicDims(ModuleOp module,
                                                 bool &changed) {
  OwningOpRef<ModuleOp> copy = module.clone();
  changed = false;
  copy->walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    SmallVector<Type> inputs;
    for (BlockArgument arg : func.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (type && !type.hasStaticShape()) {
        SmallVector<int64_t> dims(type.getShape());
        for (int64_t &d : dims)
          if (ShapedType::isDynamic(d))
            d = 1;
        arg.setType(RankedTensorType::get(dims, type.getElementType()));
        changed = true;
      }
      inputs.push_back(arg.getType());
    }
    func.setFunctionType(
        FunctionType::get(func.getContext(), inputs, func.getResultTypes()));
  });
  if (!changed)
    return copy;
  PassManager pm(module.getContext());
  mlir::dsmp::buildRefineShapesPipeline(pm);
  if (failed(pm.run(*copy)))
    return nullptr;
  return copy;
}

void printOpSummary(ModuleOp module, llvm::raw_ostream &os) {
  bool changed;
  OwningOpRef<ModuleOp> unit = withUnitDynamicDims(module, changed);
  if (unit && changed) {
    os << "FLOPs with every dynamic input dim set to 1:\n";
    module = *unit;
  }
  struct Row {
    int64_t count = 0;
    int64_t flops = 0;
    bool flopsUnknown = false;
    std::string opClass = "-";
  };
  llvm::MapVector<StringRef, Row> rows;
  int64_t total = 0;
  module.walk([&](Operation *op) {
    if (op->getDialect() == nullptr ||
        op->getDialect()->getNamespace() != "dsmp")
      return;
    Row &row = rows[op->getName().getStringRef()];
    ++row.count;
    if (auto precision = dyn_cast<mlir::dsmp::PrecisionOpInterface>(op)) {
      row.opClass = mlir::dsmp::stringifyOpClass(precision.getOpClass()).str();
      if (auto flops = precision.getFlopCount()) {
        row.flops += *flops;
        total += *flops;
      } else {
        row.flopsUnknown = true;
      }
    }
  });
  auto sorted = rows.takeVector();
  llvm::sort(sorted, [](const auto &a, const auto &b) {
    return a.second.count != b.second.count ? a.second.count > b.second.count
                                            : a.first < b.first;
  });
  os << llvm::format("%-32s %7s  %-15s %16s\n", "op", "count", "class",
                     "flops");
  for (const auto &[name, row] : sorted) {
    // FLOPs of ops with dynamic dims are unknown until run time.
    std::string flops = std::to_string(row.flops);
    if (row.flopsUnknown)
      flops = row.flops ? flops + " + ?" : "?";
    os << llvm::format("%-32s %7lld  %-15s %16s\n", name.str().c_str(),
                       (long long)row.count, row.opClass.c_str(),
                       flops.c_str());
  }
  os << llvm::format("%-32s %7s  %-15s %16lld\n", "total", "", "",
                     (long long)total);
}

} // namespace mlir::dsmp
