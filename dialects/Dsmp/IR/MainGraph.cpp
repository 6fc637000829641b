//===- MainGraph.cpp - The graph function and its I/O names ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/MainGraph.h"

namespace mlir::dsmp {

func::FuncOp lookupMainGraph(ModuleOp module) {
  return module.lookupSymbol<func::FuncOp>(kMainGraph);
}

std::string graphInputName(func::FuncOp graph, unsigned index) {
  auto name = graph.getArgAttrOfType<StringAttr>(index, "dsmp.name");
  return name ? name.str() : "input_" + std::to_string(index);
}

std::string graphOutputName(func::FuncOp graph, unsigned index) {
  auto name = graph.getResultAttrOfType<StringAttr>(index, "dsmp.name");
  return name ? name.str() : "output_" + std::to_string(index);
}

SmallVector<std::string> graphInputDimNames(func::FuncOp graph,
                                            unsigned index) {
  SmallVector<std::string> names;
  auto type = dyn_cast<RankedTensorType>(graph.getArgument(index).getType());
  auto params = graph.getArgAttrOfType<ArrayAttr>(index, kDimParamsAttr);
  for (int64_t d = 0; type && d < type.getRank(); ++d) {
    auto name = params && d < int64_t(params.size())
                    ? dyn_cast<StringAttr>(params[d])
                    : StringAttr();
    names.push_back(name ? name.str() : std::string());
  }
  return names;
}

} // namespace mlir::dsmp
