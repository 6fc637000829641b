//===- RunPasses.cpp - Run a pipeline, keep its errors ----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Driver/Artifact/RunPasses.h"

#include "dialects/Dsmp/IR/OnnxOpRegistry.h"

namespace mlir::dsmp {

LogicalResult runPasses(PassManager &pm, ModuleOp module, std::string &errors) {
  errors.clear();
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      errors += (errors.empty() ? "" : "\n  ") + describeDiagnostic(diag);
    return success();
  });
  (void)applyPassManagerCLOptions(pm);
  return pm.run(module);
}

std::string pipelineElements(OpPassManager &pm) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  StringRef inner(text);
  // A PassManager's own anchor is `any`.
  if ((inner.consume_front("builtin.module(") || inner.consume_front("any(")) &&
      inner.consume_back(")"))
    return inner.str();
  return text;
}

} // namespace mlir::dsmp
