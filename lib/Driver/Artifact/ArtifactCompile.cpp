//===- ArtifactCompile.cpp - A model to an artifact folder -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The artifact is built in OUT.partial and renamed to OUT when whole: the
// weights go to its weight file once (dsmp-externalize-constants), then each
// shape variant runs dsmp-compile-artifact on a copy of the module, and its
// LLVM dialect module becomes objects; model.so links them all.
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/Artifact.h"
#include "dsmp/Support/DeclinableAction.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/MainGraph.h"
#include "dsmp/Driver/ArtifactWriter.h"
#include "dsmp/runtime/Manifest.h"
#include "lib/Driver/Artifact/ArtifactPipeline.h"
#include "lib/Driver/Artifact/BatchSplit.h"
#include "lib/Driver/Artifact/RunPasses.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"

#include <map>
#include <mutex>
#include <optional>

using llvm::Error;
using llvm::StringRef;
using llvm::Twine;

namespace mlir::dsmp {

namespace {

/// Runs `pm` on `module`; the passes' errors follow "`what` failed".
Error runStep(PassManager &pm, ModuleOp module, StringRef what) {
  std::string errors;
  if (failed(runPasses(pm, module, errors)))
    return llvm::createStringError(what + " failed" +
                                   (errors.empty() ? "" : "\n  " + errors));
  return Error::success();
}

/// The files dsmp writes into an artifact folder.
bool isArtifactFile(StringRef name) {
  namespace art = ::dsmp::artifact;
  return name == art::kManifestName || name == art::kLibraryName ||
         name == art::kWeightsName || name == art::kHeaderName ||
         name == art::kProfileName;
}

/// Staging folders alive in this process; an interrupt removes them.
std::mutex liveStagingMutex;
std::vector<std::string> &liveStaging() {
  static std::vector<std::string> folders;
  return folders;
}

/// A fresh folder OUT.partial-XXXXXX beside `outputDir` that becomes
/// `outputDir` on commit() and is removed otherwise (also on SIGINT or
/// SIGTERM, where the tool asked for it), so a failed or interrupted
/// compile leaves nothing behind.
class StagingFolder {
public:
  StagingFolder(StringRef outputDir, bool force)
      : outputDir(outputDir.str()), force(force) {}
  ~StagingFolder() {
    if (path.empty())
      return;
    if (!committed)
      (void)llvm::sys::fs::remove_directories(path);
    std::lock_guard<std::mutex> lock(liveStagingMutex);
    llvm::erase(liveStaging(), path);
  }
  /// Checks that `outputDir` may become the artifact (see checkTarget),
  /// then creates the staging folder beside it.
  Error create() {
    if (Error err = checkTarget())
      return err;
    // Absolute: createUniqueDirectory puts a relative prefix under the
    // system's temporary folder, not beside the output.
    llvm::SmallString<256> prefix(outputDir + ".partial"), made;
    if (std::error_code ec = llvm::sys::fs::make_absolute(prefix))
      return llvm::createStringError("cannot create a folder beside '" +
                                     outputDir + "': " + ec.message());
    if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(prefix, made))
      return llvm::createStringError("cannot create a folder beside '" +
                                     outputDir + "': " + ec.message());
    path = std::string(made);
    std::lock_guard<std::mutex> lock(liveStagingMutex);
    liveStaging().push_back(path);
    return Error::success();
  }
  std::string file(StringRef name) const { return join(path, name); }
  std::string finalFile(StringRef name) const { return join(outputDir, name); }
  /// Replaces an earlier artifact at `outputDir`, never anything else.
  Error commit() {
    if (Error err = checkTarget())
      return err;
    if (llvm::sys::fs::exists(outputDir))
      if (std::error_code ec = llvm::sys::fs::remove_directories(outputDir))
        return llvm::createStringError("cannot replace '" + outputDir +
                                       "': " + ec.message());
    if (std::error_code ec = llvm::sys::fs::rename(path, outputDir))
      return llvm::createStringError("cannot move the artifact to '" +
                                     outputDir + "': " + ec.message());
    committed = true;
    return Error::success();
  }

private:
  Error checkTarget() const { return checkArtifactOutput(outputDir, force); }
  static std::string join(StringRef dir, StringRef name) {
    llvm::SmallString<256> result(dir);
    llvm::sys::path::append(result, name);
    return std::string(result);
  }
  std::string outputDir, path;
  bool force;
  bool committed = false;
};

/// The variant's inputs and outputs, from the layout
/// dsmp-record-entry-layout recorded.
Error describeVariant(ModuleOp lowered, ArtifactVariant &spec) {
  auto layout = lowered->getAttrOfType<ArrayAttr>("dsmp.entry_layout");
  if (!layout)
    return llvm::createStringError("the lowered module has no entry layout");
  for (Attribute item : layout) {
    auto dict = cast<DictionaryAttr>(item);
    StringRef kind = dict.getAs<StringAttr>("kind").getValue();
    if (kind == "weight")
      continue;
    auto type = cast<RankedTensorType>(dict.getAs<TypeAttr>("type").getValue());
    std::string name = dict.getAs<StringAttr>("name").str();
    if (auto names = dict.getAs<ArrayAttr>("dim_names"))
      for (Attribute n : names)
        spec.dimNames[name].push_back(cast<StringAttr>(n).str());
    (kind == "input" ? spec.inputs : spec.outputs).push_back({name, type});
  }
  return Error::success();
}

/// The runtime takes one rank per output across an artifact's variants;
/// an output whose rank follows the input shapes (a Squeeze of every dim
/// of size 1) cannot have variants of shapes that change it.
Error sameRanks(const ArtifactVariant &spec,
                ArrayRef<ArtifactVariant> earlier) {
  if (earlier.empty())
    return Error::success();
  auto shapesOf = [](const ArtifactVariant &v) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::interleave(
        v.inputs, os,
        [&](const auto &input) {
          os << input.first << "=";
          llvm::interleave(input.second.getShape(), os, "x");
        },
        " ");
    return text;
  };
  for (auto [output, first] : llvm::zip(spec.outputs, earlier.front().outputs))
    if (output.second.getRank() != first.second.getRank())
      return llvm::createStringError(llvm::formatv(
          "output '{0}' has rank {1} at {2} and rank {3} at {4}: an "
          "artifact's outputs keep one rank, so compile these shapes into "
          "artifacts of their own",
          output.first, output.second.getRank(), shapesOf(spec),
          first.second.getRank(), shapesOf(earlier.front())));
  return Error::success();
}

/// The variant's profiled ops and timed rows, from what
/// dsmp-tag-profile-ops and dsmp-time-calls recorded.
Error describeProfile(ModuleOp lowered, ArtifactVariant &spec) {
  auto ops = lowered->getAttrOfType<ArrayAttr>("dsmp.profile_ops");
  auto rows = lowered->getAttrOfType<ArrayAttr>("dsmp.profile_regions");
  if (!ops || !rows)
    return llvm::createStringError("the lowered module has no profile table");
  spec.profile.entry = spec.entry;
  for (Attribute item : ops) {
    auto dict = cast<DictionaryAttr>(item);
    spec.profile.ops.push_back(
        {dict.getAs<StringAttr>("name").str(),
         dict.getAs<StringAttr>("type").str(),
         dict.getAs<StringAttr>("format").str(),
         static_cast<uint64_t>(dict.getAs<IntegerAttr>("flops").getInt())});
  }
  for (Attribute item : rows) {
    auto dict = cast<DictionaryAttr>(item);
    ::dsmp::artifact::ProfiledRow row;
    row.kind = dict.getAs<StringAttr>("kind").str();
    row.callee = dict.getAs<StringAttr>("callee").str();
    for (int64_t op : dict.getAs<DenseI64ArrayAttr>("ops").asArrayRef())
      row.ops.push_back(static_cast<uint32_t>(op));
    spec.profile.rows.push_back(std::move(row));
  }
  return Error::success();
}

/// An object defining `const uint64_t dsmp_interface_hash = hash`.
llvm::Expected<std::vector<std::string>>
emitInterfaceObject(MLIRContext &context, uint64_t hash,
                    const CPUTargetSpec &target, StringRef stem) {
  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(module->getBody());
  LLVM::GlobalOp::create(b, b.getUnknownLoc(), b.getI64Type(),
                         /*isConstant=*/true, LLVM::Linkage::External,
                         ::dsmp::artifact::kInterfaceSymbol,
                         b.getI64IntegerAttr(static_cast<int64_t>(hash)));
  return emitObjectFiles(*module, target, stem, /*threads=*/1,
                         /*dumpable=*/false);
}

/// Writes the weights, lowers one clone of `module` per variant, links
/// model.so and writes the manifest (which records `source`) and header
/// into the staging folder; errors name `displayName`.
/// The budget and formats a precision compile left on the module
/// (dsmp.precision, dsmp.error_metric, each op's dsmp.assigned), for the
/// manifest; false when the module went through no precision assignment.
bool describePrecision(ModuleOp module, ::dsmp::artifact::PrecisionSpec &spec) {
  auto precision = module->getAttrOfType<DictionaryAttr>("dsmp.precision");
  if (!precision)
    return false;
  auto target = precision.getAs<StringAttr>("target");
  auto tolerance = precision.getAs<FloatAttr>("tolerance");
  if (!target || !tolerance)
    return false;
  spec.formatsOf = target.getValue().str();
  spec.tolerance = tolerance.getValueAsDouble();
  spec.metric = "rel-l2";
  if (auto metric = module->getAttrOfType<DictionaryAttr>("dsmp.error_metric"))
    if (auto name = metric.getAs<StringAttr>("metric"))
      spec.metric = name.getValue().str();
  std::map<std::string, uint64_t> counts;
  module->walk([&](Operation *op) {
    if (auto format = op->getAttrOfType<FormatAttr>("dsmp.assigned"))
      ++counts[stringifyFormat(format.getValue()).str()];
  });
  spec.opsPerFormat.assign(counts.begin(), counts.end());
  return true;
}

/// Whether to add a dynamic variant, with the dims that call for one
/// ("input 'ids' dim 1"); nullopt for none.
std::optional<std::string>
dynamicVariantReason(ModuleOp module, const CompileOptions &options,
                     const std::vector<bool> &batchInputs) {
  using Mode = CompileOptions::DynamicVariant;
  // --batch-sizes=0 asks for the given shapes only.
  if (options.dynamicVariant == Mode::Never ||
      (options.dynamicVariant == Mode::Auto && options.batchSizes.empty()))
    return std::nullopt;
  func::FuncOp graph = lookupMainGraph(module);
  if (!graph)
    return std::nullopt;
  std::string dims;
  for (unsigned i = 0; i < graph.getNumArguments(); ++i) {
    auto type = dyn_cast<RankedTensorType>(graph.getArgument(i).getType());
    if (!type || options.fixedInputs.count(graphInputName(graph, i)))
      continue;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      bool split = d == 0 && i < batchInputs.size() && batchInputs[i];
      if (type.isDynamicDim(d) &&
          (!split || options.dynamicVariant == Mode::Always))
        dims +=
            (dims.empty() ? "" : ", ") + ("input '" + graphInputName(graph, i) +
                                          "' dim " + std::to_string(d));
    }
  }
  if (dims.empty())
    return std::nullopt;
  // Kernels launch at compiled sizes and the profiler's table has one row
  // per op: a device or profiled artifact has static variants only.
  if (options.dynamicVariant == Mode::Auto &&
      (!options.device.empty() || options.profile))
    return std::nullopt;
  return dims;
}

/// What a failed lowering says first: the line after "lowering failed"
/// (which names the node and why).
std::string firstErrorLine(StringRef text) {
  SmallVector<StringRef> lines;
  text.split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines)
    if (line.trim() != "lowering failed")
      return line.trim().str();
  return text.trim().str();
}

Error buildArtifact(ModuleOp module, StringRef source, StringRef displayName,
                    const CompileOptions &options,
                    const StagingFolder &staging) {
  MLIRContext &context = *module.getContext();
  auto named = [&](Error err) {
    return llvm::createStringError(displayName + ": " +
                                   llvm::toString(std::move(err)));
  };
  // Every large float constant to the artifact's weight file, once for
  // all variants. The printed pipeline names the file where it ends up.
  ExternalizeConstantsPassOptions weights;
  weights.weightsFile = staging.file("weights.bin");
  PassManager externalize(&context);
  externalize.addPass(createExternalizeConstantsPass(weights));
  if (Error err = runStep(externalize, module, "writing the weights"))
    return named(std::move(err));
  weights.weightsFile = staging.finalFile("weights.bin");
  PassManager printedWeights(&context);
  printedWeights.addPass(createExternalizeConstantsPass(weights));
  std::string weightsStep = pipelineElements(printedWeights);

  ArtifactDescription description;
  description.target = options.target.name;
  description.device = options.device;
  // The host code of a device artifact launches its kernels through the
  // GPU launch shim that the library links.
  CPUTargetSpec hostTarget = options.target;
  hostTarget.deviceLaunches = !options.device.empty();
  description.source = source.str();
  description.profiled = options.profile;
  description.hasPrecision = describePrecision(module, description.precision);
  if (description.hasPrecision)
    description.precision.errorFloors = options.errorFloors;
  for (auto &entry : options.fixedInputs)
    description.fixedInputs[entry.getKey().str()] = entry.second;
  std::vector<InputShapes> variants = options.variants;
  if (variants.empty())
    variants.emplace_back();
  // Any batch, when the model computes each sample alone: variants at the
  // batch sizes too, and the manifest lets the runtime split a batch.
  if (!options.batchSizes.empty()) {
    func::FuncOp graph = lookupMainGraph(module);
    if (!graph)
      return named(llvm::createStringError("the model has no @main_graph"));
    auto split = analyzeBatchSplit(module, variants.front(), options.defaultDim,
                                   options.fixedInputs);
    if (split) {
      variants = withBatchSizes(graph, variants, *split, options.batchSizes,
                                options.defaultDim);
      description.batchInputs = split->inputs;
      description.batchOutputs = split->outputs;
    } else {
      std::string why = llvm::toString(split.takeError());
      if (options.batchNote && why != kNoDynamicBatch)
        *options.batchNote = why;
    }
  }
  SmallVector<std::string> objects;
  // Each step as an action: progress lines name it, and an interrupted
  // compile declines it (DeclinableAction.h).
  auto step = [&](std::string what, llvm::function_ref<Error()> fn) {
    return runDeclinable<ArtifactStepAction>(&context, fn, std::move(what));
  };
  // Lowers one variant (dynamic: its unnamed dynamic dims stay dynamic)
  // and emits its objects; why the dynamic variant's lowering failed.
  std::string dynamicRefused;
  auto buildVariant = [&](const InputShapes &shapes, bool dynamic,
                          std::string variantName) -> Error {
    size_t number = description.variants.size();
    OwningOpRef<ModuleOp> variant(module.clone());
    ArtifactVariant spec;
    spec.entry = ::dsmp::artifact::kEntryPrefix + std::to_string(number);
    spec.dynamic = dynamic;
    CompileArtifactPipelineOptions pipeline;
    pipeline.target = options.target.name;
    pipeline.device = options.device;
    SpecializeShapesPassOptions specialize =
        specializeShapesOptions(shapes, options.defaultDim,
                                options.requireAllInputs, options.fixedInputs);
    for (const std::string &text : specialize.shapes)
      pipeline.shapes.push_back(text);
    for (const std::string &text : specialize.fixInputs)
      pipeline.fixInputs.push_back(text);
    pipeline.defaultDim = options.defaultDim;
    // A dynamic variant takes every input at run time, named or not.
    pipeline.requireAllInputs = options.requireAllInputs && !dynamic;
    pipeline.entry = spec.entry;
    pipeline.profile = options.profile;
    pipeline.dynamic = dynamic;
    // Inputs that do not fit are reported as they are, not as a failed
    // lowering: the same checks on a throwaway copy of the graph.
    func::FuncOp graph = lookupMainGraph(*variant);
    if (!graph)
      return named(llvm::createStringError("the model has no @main_graph"));
    {
      OwningOpRef<func::FuncOp> probe(graph.clone());
      if (Error err = applyInputShapes(
              *probe, shapes,
              dynamic ? ShapedType::kDynamic : options.defaultDim,
              pipeline.requireAllInputs, options.fixedInputs))
        return named(std::move(err));
    }
    PassManager pm(&context);
    if (failed(buildCompileArtifactPipeline(pm, pipeline)))
      return llvm::createStringError("no dsmp-compile-artifact pipeline for '" +
                                     options.target.name + "'");
    // The inputs an If still branches on, before lowering consumes the
    // graph: fixing one often removes the branch that fails.
    std::string hint = branchHint(graph);
    if (Error err = step(variantName + "lowering",
                         [&] { return runStep(pm, *variant, "lowering"); })) {
      std::string text = llvm::toString(std::move(err));
      if (dynamic && text != "interrupted")
        dynamicRefused = text;
      return named(llvm::createStringError(
          text + (hint.empty() ? std::string() : "\n  " + hint)));
    }
    if (options.pipelines) {
      SmallVector<std::string> steps;
      if (!options.precedingPipeline.empty())
        steps.push_back(options.precedingPipeline);
      steps.push_back(weightsStep);
      steps.push_back(pipelineElements(pm));
      options.pipelines->push_back("builtin.module(" + llvm::join(steps, ",") +
                                   ")");
    }
    if (Error err = describeVariant(*variant, spec))
      return named(std::move(err));
    if (Error err = sameRanks(spec, description.variants))
      return named(std::move(err));
    if (options.profile)
      if (Error err = describeProfile(*variant, spec))
        return named(std::move(err));
    if (Error err = step(variantName + "LLVM code generation", [&]() -> Error {
          auto variantObjects =
              emitObjectFiles(*variant, hostTarget,
                              staging.file("model_" + std::to_string(number)));
          if (!variantObjects)
            return variantObjects.takeError();
          llvm::append_range(objects, *variantObjects);
          return Error::success();
        }))
      return std::move(err);
    description.variants.push_back(std::move(spec));
    return Error::success();
  };
  std::optional<std::string> dynamicWhy =
      dynamicVariantReason(module, options, description.batchInputs);
  size_t total = variants.size() + (dynamicWhy ? 1 : 0);
  for (auto [index, shapes] : llvm::enumerate(variants)) {
    std::string variantName =
        total > 1 ? llvm::formatv("variant {0}/{1}: ", index + 1, total).str()
                  : std::string();
    if (Error err = buildVariant(shapes, /*dynamic=*/false, variantName))
      return err;
  }
  if (dynamicWhy) {
    // Shapes given for the fixed inputs only (a fixed value has a size).
    InputShapes fixedShapes;
    for (auto &entry : options.fixedInputs)
      if (variants.front().count(entry.getKey()))
        fixedShapes[entry.getKey()] = variants.front().lookup(entry.getKey());
    std::string variantName =
        llvm::formatv("variant {0}/{0} (dynamic dims): ", total).str();
    Error built = buildVariant(fixedShapes, /*dynamic=*/true, variantName);
    // The dynamic variant runs any batch: no note that the artifact does not.
    if (!built && options.batchNote)
      options.batchNote->clear();
    if (Error err = std::move(built)) {
      if (options.dynamicVariant == CompileOptions::DynamicVariant::Always ||
          dynamicRefused.empty())
        return err;
      // Auto: the static variants stand; say why there is no dynamic one.
      llvm::consumeError(std::move(err));
      if (options.dynamicNote)
        *options.dynamicNote = firstErrorLine(dynamicRefused);
    }
  }
  // model.so carries what its code assumes of the manifest, so that the
  // runtime refuses a manifest edited to other shapes or weights.
  uint64_t weightsSize = 0;
  (void)llvm::sys::fs::file_size(staging.file("weights.bin"), weightsSize);
  auto interface = interfaceHashOf(description, weightsSize);
  if (!interface)
    return named(interface.takeError());
  auto interfaceObjects = emitInterfaceObject(
      context, *interface, options.target, staging.file("interface"));
  if (!interfaceObjects)
    return interfaceObjects.takeError();
  llvm::append_range(objects, *interfaceObjects);
  if (Error err =
          linkSharedLibrary(objects, staging.file("model.so"), hostTarget))
    return err;
  for (const std::string &object : objects)
    (void)llvm::sys::fs::remove(object);
  return writeArtifactFiles(staging.file(""), description);
}

/// Copies `from` to the staging folder's weight file and points the
/// module's #dsmp.external constants at it.
Error adoptWeightFile(ModuleOp module, StringRef from,
                      const StagingFolder &staging) {
  std::string to = staging.file("weights.bin");
  if (std::error_code ec = llvm::sys::fs::copy_file(from, to))
    return llvm::createStringError("cannot copy '" + from +
                                   "': " + ec.message());
  module->setAttr("dsmp.weights",
                  StringAttr::get(module.getContext(), "weights.bin"));
  return Error::success();
}

} // namespace

Error checkArtifactOutput(StringRef outputDir, bool force) {
  if (outputDir.empty() || outputDir == "-")
    return llvm::createStringError(
        "-o names the artifact folder; '" + outputDir +
        "' is not one (an artifact is several files, not a stream)");
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(outputDir, status, /*follow=*/false))
    return Error::success(); // absent
  if (status.type() != llvm::sys::fs::file_type::directory_file)
    return llvm::createStringError(
        "'" + outputDir +
        "' exists and is not a folder; not replacing it (remove it or "
        "choose another -o)");
  std::error_code ec;
  bool sawManifest = false;
  std::vector<std::string> foreign;
  for (llvm::sys::fs::directory_iterator it(outputDir, ec), end;
       it != end && !ec; it.increment(ec)) {
    StringRef name = llvm::sys::path::filename(it->path());
    sawManifest |= name == ::dsmp::artifact::kManifestName;
    if (!isArtifactFile(name))
      foreign.push_back(name.str());
  }
  if (ec)
    return llvm::createStringError("cannot read '" + outputDir +
                                   "': " + ec.message());
  if (foreign.empty())
    return Error::success();
  if (!sawManifest)
    return llvm::createStringError(
        "'" + outputDir +
        "' exists and is not a dsmp artifact; not replacing it");
  if (force)
    return Error::success();
  llvm::sort(foreign);
  return llvm::createStringError(
      "'" + outputDir + "' holds files dsmp did not write ('" +
      llvm::join(foreign, "', '") +
      "'); not replacing it (--force replaces the folder with them)");
}

void removeStagingFoldersOnInterrupt() {
  llvm::sys::SetInterruptFunction([] {
    // Called once, from the signal handler, before the process ends.
    for (const std::string &folder : liveStaging())
      (void)llvm::sys::fs::remove_directories(folder);
  });
}

Error compileArtifact(StringRef modelPath, StringRef outputDir,
                      const CompileOptions &options, MLIRContext &context) {
  StagingFolder staging(outputDir, options.force);
  if (Error err = staging.create())
    return err;
  std::string weightsPath = staging.file("weights.bin");
  auto loaded = loadModel(modelPath, context, weightsPath);
  if (!loaded)
    return loaded.takeError();
  ModuleOp module = *loaded->module;
  // A .mlir model: its weights travel with the artifact.
  if (loaded->weightsPath != weightsPath && !loaded->weightsPath.empty())
    if (Error err = adoptWeightFile(module, loaded->weightsPath, staging))
      return err;
  if (Error err = buildArtifact(module, llvm::sys::path::filename(modelPath),
                                modelPath, options, staging))
    return err;
  return staging.commit();
}

Error compileModuleArtifact(ModuleOp source, StringRef weightsFile,
                            StringRef sourceName, StringRef outputDir,
                            const CompileOptions &options) {
  StagingFolder staging(outputDir, options.force);
  if (Error err = staging.create())
    return err;
  OwningOpRef<ModuleOp> module(source.clone());
  (*module)->removeAttr("dsmp.weights");
  if (!weightsFile.empty())
    if (Error err = adoptWeightFile(*module, weightsFile, staging))
      return err;
  if (Error err =
          buildArtifact(*module, sourceName, sourceName, options, staging))
    return err;
  return staging.commit();
}

} // namespace mlir::dsmp
