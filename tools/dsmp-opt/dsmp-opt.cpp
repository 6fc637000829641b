//===- dsmp-opt.cpp - dsmp pass driver ------------------------ -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with dsmp's dialect, passes and pipelines: any dsmp-compile run
// can be replayed pass by pass. The precision passes compile and run
// calibration inputs on the host, so the context has what the lowering to
// LLVM needs as well. An .onnx input is imported first (weights stay in
// memory), so `dsmp-opt model.onnx --pass-pipeline=...` needs no separate
// dsmp-translate step.
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/Artifact.h"
#include "dsmp/InitAll.h"
#include "dsmp/Support/CommandLine.h"
#include "dsmp/Support/ModelPath.h"
#include "test/lib/Passes.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Debug/CLOptionsSetup.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

/// What MlirOptMain does beyond parse, passes and print: an .onnx input
/// asking for any of it goes through MlirOptMain as bytecode.
static bool needsMlirOptMain(const MlirOptMainConfig &config) {
  return config.shouldVerifyRoundtrip() || config.shouldRunReproducer() ||
         !config.getReproducerFilename().empty() ||
         config.shouldVerifyDiagnostics() ||
         !config.inputSplitMarker().empty() || !config.getIrdlFile().empty() ||
         config.shouldEmitRemarks() || config.shouldShowDialects() ||
         config.shouldListPasses() || config.shouldDumpPassPipeline();
}

/// The imported module through the pass pipeline and out, as MlirOptMain's
/// parse-run-print does; the module stays in the context it was imported
/// into (a round trip through bytecode cost 0.7 s at 100k ops).
static LogicalResult runPipeline(ModuleOp module, raw_ostream &os,
                                 const MlirOptMainConfig &config,
                                 TimingScope &timing) {
  MLIRContext *context = module.getContext();
  PassManager pm(context, module.getOperationName(),
                 PassManager::Nesting::Implicit);
  pm.enableVerifier(config.shouldVerifyPasses());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  pm.enableTiming(timing);
  if (failed(config.setupPassPipeline(pm)) || failed(pm.run(module)))
    return failure();
  TimingScope outputTiming = timing.nest("Output");
  if (config.shouldEmitBytecode()) {
    BytecodeWriterConfig writerConfig;
    if (auto version = config.bytecodeVersionToEmit())
      writerConfig.setDesiredBytecodeVersion(*version);
    if (config.shouldElideResourceDataFromBytecode())
      writerConfig.setElideResourceDataFlag();
    return writeBytecodeToFile(module, os, writerConfig);
  }
  if (config.bytecodeVersionToEmit())
    return emitError(UnknownLoc::get(context))
           << "bytecode version while not emitting bytecode";
  module->print(os);
  os << '\n';
  return success();
}

/// Imports the ONNX model and runs dsmp-opt's pipeline on it; the options
/// only MlirOptMain implements get the module as bytecode instead.
static int runOnOnnx(StringRef input, StringRef output,
                     DialectRegistry &registry) {
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  std::string error;
  auto out = openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << "dsmp-opt: error: " << error << "\n";
    return 1;
  }
  MLIRContext context(registry);
  context.allowUnregisteredDialects(config.shouldAllowUnregisteredDialects());
  context.loadAllAvailableDialects();
  DefaultTimingManager tm;
  applyDefaultTimingManagerCLOptions(tm);
  TimingScope timing = tm.getRootScope();
  TimingScope importTiming = timing.nest("import");
  auto loaded = mlir::dsmp::loadModel(input, context);
  importTiming.stop();
  if (!loaded) {
    llvm::errs() << "dsmp-opt: error: " << llvm::toString(loaded.takeError())
                 << "\n";
    return 1;
  }
  if (!needsMlirOptMain(config)) {
    llvm::SourceMgr sourceMgr; // diagnostics carry the model's locations
    SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
    tracing::InstallDebugHandler debugHandler(context, config.getDebugConfig());
    if (failed(runPipeline(*loaded->module, out->os(), config, timing)))
      return 1;
    out->keep();
    return 0;
  }
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  if (failed(writeBytecodeToFile(*loaded->module, os))) {
    llvm::errs() << "dsmp-opt: error: cannot serialize '" << input << "'\n";
    return 1;
  }
  loaded->module = OwningOpRef<ModuleOp>(); // MlirOptMain parses its own
  if (failed(MlirOptMain(out->os(),
                         llvm::MemoryBuffer::getMemBufferCopy(bytes, input),
                         registry, config)))
    return 1;
  out->keep();
  return 0;
}

int main(int argc, char **argv) {
  // --help lists MlirOptMain's options, the passes and their options.
  ::dsmp::hideLLVMOptionsFromHelp();
  ::dsmp::installVersionPrinter();
  DialectRegistry registry;
  mlir::dsmp::registerAll(registry);
  mlir::dsmp::registerDsmpTestPasses();
  auto [input, output] = registerAndParseCLIOptions(
      argc, argv,
      "dsmp optimizer driver: dsmp dialect and passes (.mlir or .onnx in)\n",
      registry);
  if (llvm::Error err = ::dsmp::checkModelPath(input)) {
    llvm::errs() << "dsmp-opt: error: " << llvm::toString(std::move(err))
                 << "\n";
    return 1;
  }
  if (StringRef(input).ends_with(".onnx"))
    return runOnOnnx(input, output, registry);
  return asMainReturnCode(MlirOptMain(argc, argv, input, output, registry));
}
