//===- TrainingCompile.cpp - Compile a model's training step ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/Training.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "dsmp/Target/TargetDescription.h"
#include "dsmp/runtime/TrainingManifest.h"
#include "passes/Precision/Passes.h"
#include "passes/Training/TrainStep.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace mlir::dsmp;
namespace trainfile = ::dsmp::training;

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

std::string join(StringRef dir, StringRef name) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  return std::string(path);
}

/// The assign-precision format for a config's default (empty: f32 as is).
llvm::Expected<std::string> assignFormat(StringRef config) {
  if (config == "fp32" || config == "f32")
    return std::string();
  if (config == "tf32")
    return std::string("tf32");
  if (config == "fp16" || config == "f16")
    return std::string("f16");
  if (config == "bf16")
    return std::string("bf16");
  return fail("precision default must be fp32, tf32, fp16 or bf16, got '" +
              config + "'");
}

/// Every input's shape at the training batch: a dynamic first dim is the
/// batch; other dynamic dims must be given.
llvm::Expected<InputShapes> stepShapes(func::FuncOp graph, unsigned numInputs,
                                       const TrainingCompileOptions &options) {
  InputShapes shapes;
  for (unsigned i = 0; i < numInputs; ++i) {
    auto nameAttr = graph.getArgAttrOfType<StringAttr>(i, "dsmp.name");
    std::string name = nameAttr ? nameAttr.str() : "input_" + std::to_string(i);
    auto type = dyn_cast<RankedTensorType>(graph.getArgument(i).getType());
    if (!type)
      return fail("input '" + name + "' has no rank");
    if (auto it = options.shapes.find(name); it != options.shapes.end()) {
      shapes[name] = it->second;
      continue;
    }
    SmallVector<int64_t> shape(type.getShape());
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!ShapedType::isDynamic(shape[d]))
        continue;
      if (d != 0)
        return fail("input '" + name + "' has dynamic dim " + llvm::Twine(d) +
                    " besides the batch: give its shape (--shape " + name +
                    "=...)");
      shape[d] = options.batch;
    }
    if (type.getRank() > 0 && !ShapedType::isDynamic(type.getDimSize(0)) &&
        type.getDimSize(0) != options.batch)
      return fail("input '" + name + "' has a fixed first dim of " +
                  llvm::Twine(type.getDimSize(0)) + ", not the batch " +
                  llvm::Twine(options.batch) +
                  " (--batch=" + llvm::Twine(type.getDimSize(0)) + ")");
    shapes[name] = shape;
  }
  return shapes;
}

/// Formats per the precision config, as autocast would choose them; the
/// result is a plain (not budgeted) module for the artifact.
llvm::Error assignFormats(ModuleOp module, StringRef format,
                          StringRef sensitive,
                          const TrainingCompileOptions &options) {
  if (!format.empty()) {
    PassManager pm(module.getContext());
    AssignPrecisionPassOptions assign;
    assign.target = options.target;
    assign.defaultFormat = format.str();
    assign.sensitiveLayers = sensitive.str();
    assign.policyOnly = true;
    pm.addPass(createAssignPrecisionPass(assign));
    addCastPasses(pm);
    std::string errors;
    {
      ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
        if (d.getSeverity() == DiagnosticSeverity::Error)
          errors += describeDiagnostic(d) + "\n";
        return success();
      });
      if (failed(pm.run(module)))
        return fail("assigning formats: " + errors);
    }
  }
  // The artifact is judged by no budget: it is not a precision compile.
  module->removeAttr("dsmp.precision");
  module->removeAttr("dsmp.error_metric");
  return llvm::Error::success();
}

llvm::Error writeFile(StringRef path, StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return fail("cannot write '" + path + "': " + ec.message());
  os << bytes;
  os.close();
  if (os.has_error())
    return fail("cannot write '" + path + "': " + os.error().message());
  return llvm::Error::success();
}

/// Whether `outputDir` may become the training artifact: absent, empty, or
/// an earlier training artifact (others with `force`).
llvm::Error checkOutput(StringRef outputDir, bool force) {
  if (outputDir.empty() || outputDir == "-")
    return fail("--train writes a folder: give -o DIR");
  if (!llvm::sys::fs::exists(outputDir))
    return llvm::Error::success();
  if (!llvm::sys::fs::is_directory(outputDir))
    return fail("'" + outputDir + "' exists and is not a folder");
  std::error_code ec;
  llvm::sys::fs::directory_iterator it(outputDir, ec), end;
  if (ec)
    return fail("cannot read '" + outputDir + "': " + ec.message());
  bool empty = it == end;
  if (empty || force ||
      llvm::sys::fs::exists(join(outputDir, trainfile::kTrainingManifestName)))
    return llvm::Error::success();
  return fail("'" + outputDir +
              "' is a folder that is not a training artifact; refusing to "
              "replace it (--force replaces it)");
}

} // namespace

llvm::Error
mlir::dsmp::compileTrainingArtifact(StringRef modelPath, StringRef outputDir,
                                    const TrainingCompileOptions &options,
                                    MLIRContext &context) {
  auto where = [&](llvm::Error err) {
    return fail(modelPath + ": " + llvm::toString(std::move(err)));
  };
  if (!modelPath.ends_with(".onnx"))
    return fail(modelPath + ": --train reads an .onnx model (its "
                            "initializers are the weights it trains)");
  if (options.batch < 1)
    return fail("--batch must be at least 1");
  auto format = assignFormat(options.defaultFormat);
  if (!format)
    return where(format.takeError());
  if (!format->empty()) {
    auto description = getTargetDescription(options.target);
    if (!description)
      return description.takeError();
    std::optional<Format> f = symbolizeFormat(*format);
    if (!f || !description->allows(OpClass::matmul, *f))
      return fail("target '" + options.target + "' runs no " +
                  options.defaultFormat +
                  " matmuls: its format table keeps them in f32 (sm_80, "
                  "sm_90, gfx90a, aarch64 have 16-bit formats)");
  }
  std::string sensitive; // one regex: any of the patterns, whole names
  for (const std::string &layer : options.sensitiveLayers) {
    llvm::Regex pattern("^(" + layer + ")$");
    std::string error;
    if (!pattern.isValid(error))
      return fail("sensitive layer '" + layer + "': " + error);
    sensitive += (sensitive.empty() ? "^(" : "|^(") + layer + ")$";
  }
  if (options.fallback && format->empty())
    return fail("--fallback switches layers from a 16-bit or tf32 format to "
                "fp32; the default format is already fp32");
  if (llvm::Error err = checkOutput(outputDir, options.artifact.force))
    return err;

  auto loaded = loadModel(modelPath, context);
  if (!loaded)
    return where(loaded.takeError());
  ModuleOp model = *loaded->module;
  auto lifted = liftTrainableWeights(model, options.trainable);
  if (!lifted)
    return where(lifted.takeError());
  auto graph = model.lookupSymbol<func::FuncOp>("main_graph");
  auto shapes = stepShapes(graph, lifted->numInputs, options);
  if (!shapes)
    return where(shapes.takeError());
  if (llvm::Error err = specializeGraph(model, *shapes, options.batch))
    return where(std::move(err));

  if (options.warnings)
    for (const std::string &layer : options.sensitiveLayers) {
      llvm::Regex pattern("^(" + layer + ")$");
      bool matched = false;
      graph.walk([&](Operation *op) {
        std::string node = onnxNodeName(op->getLoc());
        matched |= !node.empty() && pattern.match(node);
      });
      if (!matched)
        options.warnings->push_back("sensitive layer '" + layer +
                                    "' matches no node of the model");
    }

  TrainStepOptions step;
  step.loss = options.loss;
  step.optimizer = options.optimizer;
  step.beta1 = options.beta1;
  step.beta2 = options.beta2;
  step.epsilon = options.epsilon;
  step.weightDecay = options.weightDecay >= 0
                         ? options.weightDecay
                         : (options.optimizer == "adamw" ? 0.01 : 0.0);
  step.momentum = options.momentum;
  step.exposeGradients = options.emitGradients;
  step.faultInjection = options.faultInjection;
  step.monitor = options.monitor || options.fallback;
  step.fallback = options.fallback;
  step.sensitiveLayers = sensitive;
  step.fallbackFormat = *format == "bf16" || *format == "tf32" ? "bf16" : "f16";
  step.optimizerPrecision =
      options.optimizerPrecision == "fp32" ? "f32" : options.optimizerPrecision;
  auto modules = buildTrainingModules(model, *lifted, step);
  if (!modules)
    return where(modules.takeError());
  if (options.warnings)
    for (const std::string &name : modules->frozen)
      options.warnings->push_back("no gradient reaches weight '" + name +
                                  "' from the loss: it stays as it is");

  // Stage everything beside the output; rename it into place at the end.
  StringRef parent = llvm::sys::path::parent_path(outputDir);
  if (!parent.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(parent))
      return fail("cannot create '" + parent + "': " + ec.message());
  llvm::SmallString<256> prefix(outputDir.str() + ".partial"), staging;
  if (std::error_code ec = llvm::sys::fs::make_absolute(prefix))
    return fail("cannot create a folder beside '" + outputDir +
                "': " + ec.message());
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory(prefix, staging))
    return fail("cannot create a folder beside '" + outputDir +
                "': " + ec.message());
  std::string stagingDir(staging);
  auto cleanup = llvm::make_scope_exit(
      [&] { (void)llvm::sys::fs::remove_directories(stagingDir); });

  CompileOptions sub = options.artifact;
  sub.variants.clear();
  sub.batchSizes.clear();
  sub.batchNote = nullptr;
  sub.dynamicVariant = CompileOptions::DynamicVariant::Never;
  sub.force = false;
  std::string source = llvm::sys::path::filename(modelPath).str();
  std::vector<std::pair<ModuleOp, const char *>> parts = {
      {*modules->trainStep, trainfile::kTrainStepDir},
      {*modules->evalStep, trainfile::kEvalStepDir},
      {*modules->predict, trainfile::kPredictDir}};
  if (modules->trainStepMonitor)
    parts.push_back(
        {*modules->trainStepMonitor, trainfile::kTrainStepMonitorDir});
  for (auto [module, dir] : parts) {
    if (llvm::Error err = assignFormats(module, *format, sensitive, options))
      return where(std::move(err));
    if (dir == trainfile::kTrainStepDir && !options.emitTrainStep.empty()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      module.print(os, OpPrintingFlags().elideLargeElementsAttrs(16));
      if (llvm::Error err = writeFile(options.emitTrainStep, text))
        return err;
    }
    if (llvm::Error err = compileModuleArtifact(module, "", source,
                                                join(stagingDir, dir), sub))
      return where(std::move(err));
  }

  // The initial state: the model's weights, the optimizer's state at zero.
  trainfile::TrainingManifest manifest;
  manifest.source = source;
  manifest.loss = options.loss;
  manifest.optimizer = options.optimizer;
  manifest.beta1 = step.beta1;
  manifest.beta2 = step.beta2;
  manifest.epsilon = step.epsilon;
  manifest.weightDecay = step.weightDecay;
  manifest.momentum = step.momentum;
  manifest.learningRate = options.learningRate;
  manifest.defaultFormat = options.defaultFormat;
  manifest.target = options.target;
  manifest.optimizerPrecision = step.optimizerPrecision;
  manifest.batch = options.batch;
  manifest.hasMonitor = static_cast<bool>(modules->trainStepMonitor);
  manifest.layers = modules->layers;
  for (unsigned i = 0; i < lifted->numInputs; ++i)
    manifest.inputs.push_back(
        graph.getArgAttrOfType<StringAttr>(i, "dsmp.name").str());
  manifest.labelsDtype = modules->labelsDtype;
  manifest.labelsDims = modules->labelsShape;
  std::string state;
  for (const StateTensor &s : modules->state) {
    trainfile::StateSpec spec{s.name,  s.role, s.weight, s.dtype,
                              s.shape, s.init, s.fanIn};
    manifest.state.push_back(spec);
    if (s.role == "weight") {
      auto it = llvm::find(lifted->names, s.name);
      const std::vector<float> &values =
          lifted->values[it - lifted->names.begin()];
      state.append(reinterpret_cast<const char *>(values.data()),
                   values.size() * sizeof(float));
    } else {
      state.append(spec.bytes(), '\0');
    }
  }
  manifest.initial = {
      trainfile::kInitialStateName, state.size(),
      ::dsmp::artifact::contentHash(state.data(), state.size())};
  if (llvm::Error err =
          writeFile(join(stagingDir, trainfile::kInitialStateName), state))
    return err;
  if (llvm::Error err =
          writeFile(join(stagingDir, trainfile::kTrainingManifestName),
                    trainfile::writeTrainingManifest(manifest)))
    return err;

  if (llvm::Error err = checkOutput(outputDir, options.artifact.force))
    return err;
  if (llvm::sys::fs::exists(outputDir))
    if (std::error_code ec = llvm::sys::fs::remove_directories(outputDir))
      return fail("cannot replace '" + outputDir + "': " + ec.message());
  if (std::error_code ec = llvm::sys::fs::rename(stagingDir, outputDir))
    return fail("cannot move the artifact to '" + outputDir +
                "': " + ec.message());
  cleanup.release();
  return llvm::Error::success();
}
