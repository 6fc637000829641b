//===- CompileAPI.cpp - dsmp-compile as a plain C++ call -----------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/CompileAPI.h"

#include "dsmp/Driver/Registration.h"
#include "dsmp/Execution/Compile.h"

#include "mlir/IR/MLIRContext.h"

#include <mutex>

std::string dsmp::compileModel(const std::string &modelPath,
                               const std::string &outputDir,
                               const std::string &target,
                               const std::vector<ShapeMap> &variants) {
  static std::once_flag registered;
  std::call_once(registered, [] { mlir::dsmp::registerDriverPasses(); });
  auto spec = mlir::dsmp::lookupCPUTarget(target);
  if (!spec)
    return "unknown target '" + target +
           "' (known: " + mlir::dsmp::knownCPUTargets().str() + ")";
  mlir::dsmp::CompileOptions options;
  options.target = *spec;
  for (const ShapeMap &shapes : variants) {
    mlir::dsmp::InputShapes converted;
    for (const auto &[name, dims] : shapes)
      converted[name] = llvm::SmallVector<int64_t>(dims.begin(), dims.end());
    options.variants.push_back(std::move(converted));
  }
  mlir::DialectRegistry registry;
  mlir::dsmp::registerDriverDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  if (llvm::Error err =
          mlir::dsmp::compileArtifact(modelPath, outputDir, options, context))
    return llvm::toString(std::move(err));
  return "";
}
