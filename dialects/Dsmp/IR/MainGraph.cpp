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

} // namespace mlir::dsmp
