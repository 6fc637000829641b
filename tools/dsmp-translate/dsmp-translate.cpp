//===- dsmp-translate.cpp - ONNX <-> dsmp IR --------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   dsmp-translate --import-onnx MODEL.onnx -o OUT.mlir [--op-summary]
//   dsmp-translate --export-onnx IN.mlir -o OUT.onnx
//
// Import writes large weights to OUT.mlir.weights beside the IR. No output
// file is left behind when a translation fails.
//
//===----------------------------------------------------------------------===//

#include "OpSummary.h"
#include "dsmp/Export/ONNXExporter.h"
#include "dsmp/Import/ONNXImporter.h"
#include "dsmp/InitAll.h"
#include "dsmp/Support/CommandLine.h"
#include "dsmp/Support/ModelPath.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace llvm;

namespace {
enum class Direction { None, Import, Export };

cl::OptionCategory translateCategory("dsmp-translate options");

cl::opt<Direction>
    direction(cl::desc("Translation:"), cl::init(Direction::None),
              cl::values(clEnumValN(Direction::Import, "import-onnx",
                                    "ONNX model -> dsmp IR (.mlir)"),
                         clEnumValN(Direction::Export, "export-onnx",
                                    "dsmp IR (.mlir) -> ONNX model")),
              cl::cat(translateCategory));
cl::opt<std::string> inputPath(cl::Positional, cl::desc("<input>"),
                               cl::Required, cl::cat(translateCategory));
cl::opt<std::string> outputPath("o", cl::desc("Output file"),
                                cl::value_desc("path"), cl::init("-"),
                                cl::cat(translateCategory));
cl::opt<std::string> weightsPath(
    "weights-file",
    cl::desc("Import: where to write large weights (default: OUTPUT.weights; "
             "with -o - every weight stays inline)"),
    cl::init(""), cl::cat(translateCategory));
cl::opt<int64_t> inlineLimit(
    "inline-limit",
    cl::desc("Import: constants with more elements go to the weight file"),
    cl::init(16), cl::cat(translateCategory));
cl::opt<bool> opSummary(
    "op-summary",
    cl::desc("Import: print a per-op-type summary (count, class, FLOPs) to "
             "stderr"),
    cl::init(false), cl::cat(translateCategory));
cl::opt<int64_t> exportOpset("opset", cl::desc("Export: default-domain opset"),
                             cl::init(21), cl::cat(translateCategory));
cl::opt<std::string> weightsDir(
    "weights-dir",
    cl::desc("Export: folder the module's weight file is relative to "
             "(default: the input's folder)"),
    cl::init(""), cl::cat(translateCategory));

int fail(const Twine &message) {
  errs() << "dsmp-translate: error: " << message << "\n";
  return 1;
}

/// Writes `bytes` to `path` only once they are complete.
int writeOutput(StringRef bytes) {
  std::string error;
  auto output = mlir::openOutputFile(outputPath, &error);
  if (!output)
    return fail(error);
  output->os() << bytes;
  output->keep();
  return 0;
}

int runImport(mlir::MLIRContext &context) {
  mlir::dsmp::ONNXImportOptions options;
  options.inlineElementLimit = inlineLimit;
  if (!weightsPath.empty()) {
    options.weightsPath = weightsPath;
  } else if (outputPath != "-") {
    options.weightsPath = outputPath + ".weights";
    options.weightsName = sys::path::filename(options.weightsPath).str();
  }
  std::vector<std::string> warnings;
  options.warnings = &warnings;
  auto module = mlir::dsmp::importONNXModel(inputPath, context, options);
  if (!module)
    return fail(toString(module.takeError()));
  for (const std::string &warning : warnings)
    errs() << "dsmp-translate: warning: " << inputPath << ": " << warning
           << "\n";
  if (opSummary)
    mlir::dsmp::printOpSummary(**module, errs());
  std::string text;
  raw_string_ostream os(text);
  (*module)->print(os);
  os << '\n';
  return writeOutput(text);
}

int runExport(mlir::MLIRContext &context) {
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  auto module =
      mlir::parseSourceFile<mlir::ModuleOp>(inputPath, sourceMgr, &context);
  if (!module)
    return 1;
  mlir::dsmp::ONNXExportOptions options;
  options.opset = exportOpset;
  options.weightsDir = weightsDir.empty()
                           ? sys::path::parent_path(inputPath).str()
                           : std::string(weightsDir);
  if (options.weightsDir.empty())
    options.weightsDir = ".";
  std::vector<mlir::dsmp::WidenedNode> widened;
  options.widened = &widened;
  auto bytes = mlir::dsmp::exportONNXModel(*module, options);
  if (!bytes)
    return fail(inputPath + ": " + toString(bytes.takeError()));
  for (const auto &w : widened)
    llvm::errs() << inputPath << ": note: node '" << w.node << "' (" << w.opType
                 << ") runs in f32 between Casts: ONNX opset " << options.opset
                 << " " << w.opType << " has no " << w.type << "\n";
  return writeOutput(*bytes);
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  dsmp::installVersionPrinter();
  // --help lists the translation options and MLIR's printing options.
  dsmp::hideLLVMOptionsFromHelp({&translateCategory});
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::ParseCommandLineOptions(argc, argv, "dsmp ONNX translator\n");
  if (direction != Direction::None)
    if (Error err = dsmp::checkModelPath(inputPath))
      return fail(toString(std::move(err)));
  mlir::DialectRegistry registry;
  mlir::dsmp::registerAll(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  switch (direction) {
  case Direction::Import:
    return runImport(context);
  case Direction::Export:
    return runExport(context);
  case Direction::None:
    break;
  }
  return fail("choose --import-onnx or --export-onnx");
}
