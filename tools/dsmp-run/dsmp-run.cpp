//===- dsmp-run.cpp - Run a model or an artifact on the host ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   dsmp-run MODEL.onnx|MODEL.mlir|ARTIFACT_DIR --inputs DIR [--compare]
//            [--rtol R] [--atol A] [--save-outputs DIR] [--repeat N]
//            [--engine=compile|evaluate] [--fix-input NAME=V,...]
//
// An artifact folder (from dsmp-compile) runs through libdsmprt. A model
// file is first compiled for the host, specialized to the shapes of
// DIR/input_*.pb, into a temporary artifact (the same driver dsmp-compile
// uses), then run the same way. With --engine=evaluate a model file runs
// through the reference evaluator instead (nothing is compiled; what the
// precision analyses use for calibration). Prints each output's shape and first
// values, or with --compare its max abs/rel error against DIR/output_*.pb
// (rel = max abs error / max |reference|); exits 1 on any error or when an
// output exceeds both tolerances.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/MainGraph.h"
#include "dsmp/Driver/Artifact.h"
#include "dsmp/Execution/Evaluator.h"
#include "dsmp/InitAll.h"
#include "dsmp/Support/CommandLine.h"
#include "dsmp/Support/ModelPath.h"
#include "dsmp/runtime/Manifest.h"
#include "runtime/tools/RunArtifact.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

using namespace mlir;

namespace {
llvm::cl::OptionCategory runCategory("Run");
llvm::cl::opt<std::string>
    modelPath(llvm::cl::Positional,
              llvm::cl::desc("<model.onnx|model.mlir|artifact folder>"),
              llvm::cl::Required, llvm::cl::cat(runCategory));
llvm::cl::opt<std::string> inputsDir("inputs",
                                     llvm::cl::desc("Folder with input_*.pb"),
                                     llvm::cl::Required,
                                     llvm::cl::cat(runCategory));
llvm::cl::opt<bool>
    compare("compare",
            llvm::cl::desc("Compare with output_*.pb in the same folder"),
            llvm::cl::cat(runCategory));
llvm::cl::opt<double> rtol("rtol",
                           llvm::cl::desc("Relative tolerance for --compare"),
                           llvm::cl::init(1e-5), llvm::cl::cat(runCategory));
llvm::cl::opt<double>
    absTolerance("atol",
                 llvm::cl::desc("Absolute tolerance for --compare: an output "
                                "also passes when its max abs error is at "
                                "most this"),
                 llvm::cl::init(0), llvm::cl::cat(runCategory));
llvm::cl::opt<std::string>
    saveOutputs("save-outputs",
                llvm::cl::desc("Write output_K.pb to this folder (made "
                               "if missing)"),
                llvm::cl::cat(runCategory));
llvm::cl::opt<int> repeat("repeat",
                          llvm::cl::desc("Run N times, print the median time"),
                          llvm::cl::init(1), llvm::cl::cat(runCategory));

llvm::cl::list<std::string> fixInputs(
    "fix-input",
    llvm::cl::desc("Compile a model file for one value of an integer input "
                   "(as dsmp-compile --fix-input)"),
    llvm::cl::value_desc("name=V[,V...]"), llvm::cl::cat(runCategory));

enum class Engine { Compile, Evaluate };
llvm::cl::opt<Engine> engine(
    "engine", llvm::cl::desc("How a model file runs"),
    llvm::cl::values(
        clEnumValN(Engine::Compile, "compile",
                   "compile it for the host and run the artifact (default)"),
        clEnumValN(Engine::Evaluate, "evaluate",
                   "run it op by op in the reference evaluator")),
    llvm::cl::init(Engine::Compile), llvm::cl::cat(runCategory));

int fail(const llvm::Twine &message) {
  llvm::errs() << "dsmp-run: error: " << message << "\n";
  return 1;
}
/// Runs the model file through the reference evaluator.
int evaluateModel(const ::dsmp::runtime::RunOptions &options,
                  const mlir::dsmp::InputShapes &shapes,
                  const mlir::dsmp::FixedInputs &fixed) {
  DialectRegistry registry;
  mlir::dsmp::registerAll(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  auto loaded = mlir::dsmp::loadModel(modelPath, context);
  if (!loaded)
    return fail(llvm::toString(loaded.takeError()));
  ModuleOp module = *loaded->module;
  if (llvm::Error err =
          mlir::dsmp::loadExternalWeights(module, loaded->weightsPath))
    return fail(modelPath + ": " + llvm::toString(std::move(err)));
  if (llvm::Error err = mlir::dsmp::specializeGraph(
          module, shapes, 1, /*requireAllInputs=*/true, fixed))
    return fail(modelPath + ": " + llvm::toString(std::move(err)));
  auto evaluator =
      mlir::dsmp::GraphEvaluator::create(mlir::dsmp::lookupMainGraph(module));
  if (!evaluator)
    return fail(modelPath + ": " + llvm::toString(evaluator.takeError()));
  std::vector<::dsmp::runtime::HostTensor> inputs;
  std::string error;
  if (!::dsmp::runtime::readInputFiles(options.inputsDir, inputs, error))
    return fail(error);
  auto outputs = (*evaluator)->run(inputs);
  if (!outputs)
    return fail(modelPath + ": " + llvm::toString(outputs.takeError()));
  return ::dsmp::runtime::reportOutputs(options, *outputs, "dsmp-run");
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  ::dsmp::installVersionPrinter();
  llvm::cl::HideUnrelatedOptions(runCategory); // LLVM's stay accepted
  llvm::cl::ParseCommandLineOptions(argc, argv, "dsmp host runner\n");
  ::dsmp::runtime::RunOptions options;
  options.artifactDir = modelPath;
  options.inputsDir = inputsDir;
  options.compare = compare;
  options.rtol = rtol;
  options.atol = absTolerance;
  options.tolerancesGiven =
      rtol.getNumOccurrences() > 0 || absTolerance.getNumOccurrences() > 0;
  options.saveDir = saveOutputs;
  options.repeat = repeat;
  // A folder with a manifest is an artifact; any other folder is not a
  // model either (checkModelPath names the model file in it).
  llvm::SmallString<256> manifest(modelPath);
  llvm::sys::path::append(manifest, ::dsmp::artifact::kManifestName);
  if (llvm::sys::fs::exists(manifest))
    return ::dsmp::runtime::runArtifact(options, "dsmp-run");
  if (llvm::Error err = ::dsmp::checkModelPath(modelPath))
    return fail(llvm::toString(std::move(err)));

  // A model file: compile it for this host into a temporary artifact.
  auto shapes = mlir::dsmp::readInputShapes(inputsDir);
  if (!shapes)
    return fail(llvm::toString(shapes.takeError()));
  mlir::dsmp::FixedInputs fixed;
  for (const std::string &text : fixInputs)
    if (llvm::Error err = mlir::dsmp::parseFixedInput(text, fixed))
      return fail(llvm::toString(std::move(err)));
  if (engine == Engine::Evaluate)
    return evaluateModel(options, *shapes, fixed);
  llvm::SmallString<128> tempDir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("dsmp-run", tempDir))
    return fail("cannot create a temporary folder: " + ec.message());
  llvm::SmallString<128> artifact(tempDir);
  llvm::sys::path::append(artifact, "artifact");
  int status;
  {
    DialectRegistry registry;
    mlir::dsmp::registerAll(registry);
    MLIRContext context(registry);
    context.loadAllAvailableDialects();
    mlir::dsmp::CompileOptions compileOptions;
    compileOptions.target = *mlir::dsmp::lookupCPUTarget(
#if defined(__aarch64__)
        "aarch64"
#else
        "x86_64"
#endif
    );
    compileOptions.variants.push_back(std::move(*shapes));
    compileOptions.requireAllInputs = true;
    // One run at the inputs' shapes: no dynamic variant to build.
    compileOptions.dynamicVariant =
        mlir::dsmp::CompileOptions::DynamicVariant::Never;
    compileOptions.fixedInputs = fixed;
    if (llvm::Error err = mlir::dsmp::compileArtifact(modelPath, artifact,
                                                      compileOptions, context))
      status = fail(llvm::toString(std::move(err)));
    else {
      options.artifactDir = std::string(artifact);
      status = ::dsmp::runtime::runArtifact(options, "dsmp-run");
    }
  }
  (void)llvm::sys::fs::remove_directories(tempDir);
  return status;
}
