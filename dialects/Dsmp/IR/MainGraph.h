//===- MainGraph.h - The graph function and its I/O names ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An imported model is one function, @main_graph, whose arguments and
// results carry their ONNX names as `dsmp.name`.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECTS_DSMP_IR_MAINGRAPH_H
#define DSMP_DIALECTS_DSMP_IR_MAINGRAPH_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::dsmp {

/// The symbol of the model's graph function.
inline constexpr llvm::StringLiteral kMainGraph = "main_graph";

/// The module's @main_graph, or null.
func::FuncOp lookupMainGraph(ModuleOp module);

/// The ONNX name of argument or result `index` of the graph, or
/// "input_K"/"output_K" when it has none.
std::string graphInputName(func::FuncOp graph, unsigned index);
std::string graphOutputName(func::FuncOp graph, unsigned index);

/// The argument attribute naming an input's symbolic dims (ONNX
/// dim_param): an array of strings, one per dim, "" where the dim has no
/// name; absent when none has.
inline constexpr llvm::StringLiteral kDimParamsAttr = "dsmp.dim_params";

/// Input `index`'s dim names (kDimParamsAttr), "" where unnamed.
SmallVector<std::string> graphInputDimNames(func::FuncOp graph, unsigned index);

} // namespace mlir::dsmp

#endif // DSMP_DIALECTS_DSMP_IR_MAINGRAPH_H
