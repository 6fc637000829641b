//===- CompileAPI.cpp - dsmp-compile as a plain C++ call --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/CompileAPI.h"

#include "dsmp/Driver/Artifact.h"
#include "dsmp/Driver/MixedPrecision.h"
#include "dsmp/InitAll.h"
#include "dsmp/Target/CPUTarget.h"
#include "dsmp/Target/GPUTarget.h"

#include "mlir/IR/Action.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

/// The driver's options for shape variants and fixed inputs given as plain
/// maps (the API has no MLIR/LLVM types).
static mlir::dsmp::CompileOptions
compileOptions(const std::vector<dsmp::ShapeMap> &variants,
               const dsmp::ShapeMap &fixed) {
  mlir::dsmp::CompileOptions options;
  for (const auto &[name, values] : fixed)
    options.fixedInputs[name] = values;
  for (const dsmp::ShapeMap &shapes : variants) {
    mlir::dsmp::InputShapes converted;
    for (const auto &[name, dims] : shapes)
      converted[name] = llvm::SmallVector<int64_t>(dims.begin(), dims.end());
    options.variants.push_back(std::move(converted));
  }
  return options;
}

/// Declines every action once `cancel` is set (DeclinableAction.h).
static void stopWhenCancelled(mlir::MLIRContext &context,
                              const std::atomic<bool> *cancel) {
  if (!cancel)
    return;
  context.registerActionHandler(
      [cancel](llvm::function_ref<void()> run, const mlir::tracing::Action &) {
        if (!cancel->load())
          run();
      });
}

std::string dsmp::compileModel(const std::string &modelPath,
                               const std::string &outputDir,
                               const std::string &target,
                               const std::vector<ShapeMap> &variants,
                               const ShapeMap &fixed,
                               const std::atomic<bool> *cancel, bool profile) {
  // A GPU: kernels for it, and host code for this CPU that launches them.
  auto gpu = mlir::dsmp::lookupGPUTarget(target);
  std::string cpuName = target;
  if (gpu) {
    if (llvm::Error err = mlir::dsmp::checkGPUToolkit(*gpu))
      return llvm::toString(std::move(err));
    llvm::Triple host(llvm::sys::getProcessTriple());
    cpuName = host.getArch() == llvm::Triple::aarch64 ? "aarch64" : "x86_64";
  }
  auto spec = mlir::dsmp::lookupCPUTarget(cpuName);
  if (!spec)
    return "unknown target '" + target +
           "' (known: " + mlir::dsmp::knownCPUTargets().str() + ", " +
           mlir::dsmp::knownGPUTargets().str() + ")";
  mlir::dsmp::CompileOptions options = compileOptions(variants, fixed);
  options.target = *spec;
  if (gpu)
    options.device = target;
  if (profile && gpu)
    return "profile times code that runs on the CPU; '" + target +
           "' kernels run asynchronously on the GPU";
  options.profile = profile;
  mlir::DialectRegistry registry;
  mlir::dsmp::registerAll(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  stopWhenCancelled(context, cancel);
  llvm::Error err =
      mlir::dsmp::compileArtifact(modelPath, outputDir, options, context);
  if (err && cancel && cancel->load()) {
    llvm::consumeError(std::move(err));
    return kInterrupted;
  }
  if (err)
    return llvm::toString(std::move(err));
  return "";
}

std::string dsmp::compileModelWithPrecision(
    const std::string &modelPath, const std::string &outputDir,
    const std::vector<ShapeMap> &variants, const PrecisionOptions &options,
    const std::string &report, const ShapeMap &fixed,
    const std::atomic<bool> *cancel, bool profile) {
  llvm::Triple host(llvm::sys::getProcessTriple());
  std::string cpuName = options.target;
  if (!mlir::dsmp::lookupCPUTarget(cpuName))
    cpuName = host.getArch() == llvm::Triple::aarch64 ? "aarch64" : "x86_64";
  mlir::dsmp::CompileOptions compile = compileOptions(variants, fixed);
  compile.target = *mlir::dsmp::lookupCPUTarget(cpuName);
  compile.profile = profile;
  mlir::dsmp::MixedPrecisionOptions flow;
  static_cast<PrecisionOptions &>(flow) = options;
  mlir::DialectRegistry registry;
  mlir::dsmp::registerAll(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  stopWhenCancelled(context, cancel);
  auto result = mlir::dsmp::compileWithPrecision(modelPath, outputDir, flow,
                                                 compile, report, context);
  if (!result && cancel && cancel->load()) {
    llvm::consumeError(result.takeError());
    return kInterrupted;
  }
  if (!result)
    return llvm::toString(result.takeError());
  if (!result->met)
    return modelPath + ": the budget " + std::to_string(options.tolerance) +
           " was not met on the validation inputs (see the report)";
  return "";
}
