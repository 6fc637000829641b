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

#include "dsmp/Driver/Registration.h"
#include "dsmp/Execution/Compile.h"
#include "lib/Conversion/Pipelines.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

/// Imports the ONNX model and hands it to MlirOptMain as bytecode.
static int runOnOnnx(StringRef input, StringRef output,
                     DialectRegistry &registry) {
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  std::string bytes;
  {
    MLIRContext context(registry);
    context.loadAllAvailableDialects();
    auto loaded = mlir::dsmp::loadModel(input, context);
    if (!loaded) {
      llvm::errs() << "dsmp-opt: error: " << llvm::toString(loaded.takeError())
                   << "\n";
      return 1;
    }
    llvm::raw_string_ostream os(bytes);
    if (failed(writeBytecodeToFile(*loaded->module, os))) {
      llvm::errs() << "dsmp-opt: error: cannot serialize '" << input << "'\n";
      return 1;
    }
  }
  std::string error;
  auto out = openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << "dsmp-opt: error: " << error << "\n";
    return 1;
  }
  if (failed(MlirOptMain(out->os(),
                         llvm::MemoryBuffer::getMemBufferCopy(bytes, input),
                         registry, config)))
    return 1;
  out->keep();
  return 0;
}

int main(int argc, char **argv) {
  DialectRegistry registry;
  mlir::dsmp::registerDriverDialects(registry);
  mlir::dsmp::registerDriverPasses();
  mlir::dsmp::registerDsmpConversionPipelines();
  auto [input, output] = registerAndParseCLIOptions(
      argc, argv,
      "dsmp optimizer driver: dsmp dialect and passes (.mlir or .onnx in)\n",
      registry);
  if (StringRef(input).ends_with(".onnx"))
    return runOnOnnx(input, output, registry);
  return asMainReturnCode(MlirOptMain(argc, argv, input, output, registry));
}
