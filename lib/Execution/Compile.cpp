//===- Compile.cpp - The pipelines dsmp-compile and dsmp-run drive -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Execution/Compile.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "dsmp/Execution/ArtifactWriter.h"
#include "dsmp/Import/ONNXImporter.h"
#include "dsmp/InitAll.h"
#include "dsmp/Support/WeightFile.h"
#include "dsmp/runtime/Manifest.h"
#include "dsmp/runtime/TensorFile.h"
#include "lib/Conversion/Passes.h"
#include "lib/Conversion/Pipelines.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <mutex>

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace mlir::dsmp {

namespace {

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// Runs `pm` on `module`; the diagnostics the passes emit are collected
/// into the returned error.
Error runPipeline(PassManager &pm, ModuleOp module, StringRef what) {
  std::string diagnostics;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      diagnostics += "\n  " + describeDiagnostic(diag);
    return success();
  });
  // The tool's --mlir-print-ir-* options, where it registered them
  // (dsmp-compile does; the Python module does not).
  (void)applyPassManagerCLOptions(pm);
  if (failed(pm.run(module)))
    return llvm::createStringError(what + " failed" + diagnostics);
  return Error::success();
}
} // namespace

void registerDriverDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  LLVM::LLVMDialect, linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect, tensor::TensorDialect,
                  vector::VectorDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

void registerLoweringPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    registerDsmpConversionPasses();
    mlir::registerAllPasses();
  });
}

Expected<LoadedModel> loadModel(StringRef path, MLIRContext &context,
                                StringRef onnxWeightsPath) {
  LoadedModel loaded;
  if (path.ends_with(".onnx")) {
    ONNXImportOptions options;
    options.weightsPath = onnxWeightsPath.str();
    auto imported = importONNXModel(path, context, options);
    if (!imported)
      return imported.takeError();
    loaded.module = std::move(*imported);
    loaded.weightsPath = onnxWeightsPath.str();
  } else {
    std::string diagnostics;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      diagnostics += "\n  " + diag.str();
      return success();
    });
    loaded.module = parseSourceFile<ModuleOp>(path, &context);
    if (!loaded.module)
      return llvm::createStringError(path + ": cannot parse" + diagnostics);
    if (auto name = (*loaded.module)->getAttrOfType<StringAttr>("dsmp.weights"))
      loaded.weightsPath = resolveWeightsPath(path, name.getValue());
  }
  if (!(*loaded.module).lookupSymbol<func::FuncOp>("main_graph"))
    return llvm::createStringError(path + ": the model has no @main_graph");
  return loaded;
}

std::string graphInputName(func::FuncOp graph, unsigned index) {
  auto name = graph.getArgAttrOfType<StringAttr>(index, "dsmp.name");
  return name ? name.str() : "input_" + std::to_string(index);
}

std::string graphOutputName(func::FuncOp graph, unsigned index) {
  auto name = graph.getResultAttrOfType<StringAttr>(index, "dsmp.name");
  return name ? name.str() : "output_" + std::to_string(index);
}

Expected<InputShapes> readInputShapes(StringRef dir) {
  InputShapes shapes;
  for (int k = 0;; ++k) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, "input_" + Twine(k) + ".pb");
    if (!llvm::sys::fs::exists(path))
      break;
    ::dsmp::runtime::HostTensor tensor;
    std::string error;
    if (!::dsmp::runtime::readTensorFile(std::string(path), tensor, error))
      return llvm::createStringError(error);
    shapes[tensor.name] =
        SmallVector<int64_t>(tensor.dims.begin(), tensor.dims.end());
  }
  if (!llvm::sys::fs::is_directory(dir))
    return llvm::createStringError("'" + dir + "' is not a folder");
  return shapes; // a model without inputs has none
}

Error fixInputValues(func::FuncOp graph, const FixedInputs &fixed) {
  for (auto &entry : fixed) {
    unsigned index = graph.getNumArguments();
    for (unsigned i = 0; i < graph.getNumArguments(); ++i)
      if (graphInputName(graph, i) == entry.getKey())
        index = i;
    if (index == graph.getNumArguments())
      return llvm::createStringError("--fix-input: '" + entry.getKey() +
                                     "' is not an input of the model");
    BlockArgument arg = graph.getArgument(index);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !isa<IntegerType>(type.getElementType()))
      return llvm::createStringError("--fix-input: input '" + entry.getKey() +
                                     "' is not an integer tensor");
    if (!type.hasStaticShape() ||
        type.getNumElements() != static_cast<int64_t>(entry.second.size()))
      return llvm::createStringError("--fix-input: input '" + entry.getKey() +
                                     "' has type " + typeText(type) + ", " +
                                     Twine(entry.second.size()) +
                                     " values were given");
    unsigned width = type.getElementTypeBitWidth();
    SmallVector<APInt> values;
    for (int64_t v : entry.second)
      values.push_back(APInt(width, static_cast<uint64_t>(v),
                             /*isSigned=*/true, /*implicitTrunc=*/true));
    OpBuilder b(graph.getBody());
    auto constant = ConstantOp::create(b, arg.getLoc(), type,
                                       DenseElementsAttr::get(type, values));
    arg.replaceAllUsesWith(constant);
  }
  return Error::success();
}

Error parseFixedInput(StringRef text, FixedInputs &fixed) {
  auto [name, list] = text.rsplit('=');
  if (name.empty() || !text.contains('='))
    return llvm::createStringError("--fix-input expects NAME=V[,V...], got '" +
                                   text + "'");
  std::vector<int64_t> values;
  SmallVector<StringRef> parts;
  list.split(parts, ',', -1, /*KeepEmpty=*/false); // NAME= : no elements
  for (StringRef part : parts) {
    int64_t v;
    if (part.trim().getAsInteger(10, v))
      return llvm::createStringError("--fix-input: '" + part +
                                     "' is not an integer (in '" + text + "')");
    values.push_back(v);
  }
  fixed[name] = std::move(values);
  return Error::success();
}

bool isSpecializedTo(func::FuncOp graph, const InputShapes &shapes) {
  if (shapes.size() != graph.getNumArguments())
    return false;
  for (unsigned i = 0; i < graph.getNumArguments(); ++i) {
    auto given = shapes.find(graphInputName(graph, i));
    auto type = dyn_cast<RankedTensorType>(graph.getArgument(i).getType());
    if (given == shapes.end() || !type ||
        type.getShape() != ArrayRef<int64_t>(given->second))
      return false;
  }
  auto isStatic = [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return isa<NoneType>(t) || (tensor && tensor.hasStaticShape());
  };
  WalkResult result = graph.walk([&](Operation *op) {
    return llvm::all_of(op->getResultTypes(), isStatic)
               ? WalkResult::advance()
               : WalkResult::interrupt();
  });
  return !result.wasInterrupted() &&
         llvm::all_of(graph.getResultTypes(), isStatic);
}

/// The graph inputs an If's condition is computed from, e.g. silero VAD's
/// sample rate: each such input selects a branch that may only be valid for
/// some input shapes.
static std::vector<std::string> branchingInputs(func::FuncOp graph) {
  llvm::SetVector<Value> seen;
  std::vector<std::string> names;
  graph.walk([&](IfOp op) {
    SmallVector<Value> work{op.getCond()};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v))
        continue;
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        auto type = dyn_cast<ShapedType>(arg.getType());
        if (arg.getOwner() == &graph.getBody().front() && type &&
            isa<IntegerType>(type.getElementType())) // what --fix-input takes
          names.push_back(graphInputName(graph, arg.getArgNumber()));
        continue;
      }
      llvm::append_range(work, v.getDefiningOp()->getOperands());
    }
  });
  llvm::sort(names);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

/// `err`, plus which inputs select the graph's branches and the option
/// that compiles one branch, where there are any.
static Error withBranchHint(Error err, ArrayRef<std::string> branching) {
  if (!err || branching.empty())
    return err;
  return llvm::createStringError(
      llvm::toString(std::move(err)) + "\n  the graph branches (If) on " +
      (branching.size() == 1 ? "input '" : "inputs '") +
      llvm::join(branching, "', '") +
      "': a branch that cannot run at these shapes or in this form fails; "
      "--fix-input " +
      branching.front() + "=V compiles the branch your inputs take");
}

Error specializeGraph(ModuleOp module, const InputShapes &shapes,
                      int64_t defaultDim, bool requireAllInputs,
                      const FixedInputs &fixed) {
  auto graph = module.lookupSymbol<func::FuncOp>("main_graph");
  llvm::StringSet<llvm::MallocAllocator> used;
  for (unsigned i = 0; i < graph.getNumArguments(); ++i)
    used.insert(graphInputName(graph, i));
  for (auto &entry : shapes)
    if (!used.contains(entry.getKey()))
      return llvm::createStringError("'" + entry.getKey() +
                                     "' is not an input of the model");
  SmallVector<Type> argTypes;
  for (unsigned i = 0; i < graph.getNumArguments(); ++i) {
    std::string name = graphInputName(graph, i);
    auto type = dyn_cast<RankedTensorType>(graph.getArgument(i).getType());
    if (!type)
      return llvm::createStringError("input '" + name + "' has no rank");
    SmallVector<int64_t> dims(type.getShape());
    auto given = shapes.find(name);
    if (given != shapes.end()) {
      if (given->second.size() != dims.size())
        return llvm::createStringError(
            "input '" + name + "' has rank " + Twine(dims.size()) +
            ", the given shape rank " + Twine(given->second.size()));
      for (auto [want, got] : llvm::zip(dims, given->second)) {
        if (got < 0 || (!ShapedType::isDynamic(want) && want != got))
          return llvm::createStringError("input '" + name + "' has shape " +
                                         typeText(type) +
                                         "; the given shape does not fit");
        want = got;
      }
    } else if (requireAllInputs) {
      return llvm::createStringError("missing input '" + name + "'");
    } else {
      for (int64_t &d : dims)
        if (ShapedType::isDynamic(d))
          d = defaultDim;
    }
    auto concrete = RankedTensorType::get(dims, type.getElementType());
    graph.getArgument(i).setType(concrete);
    argTypes.push_back(concrete);
  }
  graph.setFunctionType(
      FunctionType::get(module.getContext(), argTypes, graph.getResultTypes()));
  if (Error err = fixInputValues(graph, fixed))
    return err;

  PassManager pm(module.getContext());
  buildRefineShapesPipeline(pm);
  // With static shapes, recurrences unroll into ops the lowering, the
  // evaluator and the precision analyses all know.
  pm.addNestedPass<func::FuncOp>(createDecomposeRecurrentPass());
  pm.addPass(mlir::createCSEPass());
  // Every branch is specialized, also one the inputs' values never take
  // at these shapes (onnxruntime fails there too, at run time).
  std::vector<std::string> branching = branchingInputs(graph);
  if (Error err = runPipeline(pm, module, "specializing the shapes"))
    return withBranchHint(std::move(err), branching);
  for (unsigned i = 0; i < graph.getNumResults(); ++i) {
    auto type = dyn_cast<RankedTensorType>(graph.getResultTypes()[i]);
    if (!type || !type.hasStaticShape())
      return llvm::createStringError(
          "output '" + graphOutputName(graph, i) + "' has type " +
          typeText(graph.getResultTypes()[i]) +
          " after specialization; the host runs static shapes");
  }
  return Error::success();
}

/// Specializes one copy of the model to `shapes`, moves its weights to
/// arguments and lowers it to the LLVM dialect with the C entry point
/// `spec.entry`; fills in the variant's inputs and outputs.
static Error lowerVariant(ModuleOp module, const InputShapes &shapes,
                          const CompileOptions &options,
                          ArtifactVariant &spec) {
  MLIRContext &context = *module.getContext();
  if (Error err =
          specializeGraph(module, shapes, options.defaultDim,
                          options.requireAllInputs, options.fixedInputs))
    return err;
  auto graph = module.lookupSymbol<func::FuncOp>("main_graph");

  PassManager weights(&context);
  weights.addNestedPass<func::FuncOp>(createWeightsToArgumentsPass());
  if (Error err = runPipeline(weights, module, "moving weights to arguments"))
    return err;

  // The io array holds the inputs, then the outputs; weights are offsets.
  SmallVector<Attribute> layout;
  Builder b(&context);
  auto entry = [&](StringRef kind, int64_t slot, Type type) {
    layout.push_back(
        b.getDictionaryAttr({b.getNamedAttr("kind", b.getStringAttr(kind)),
                             b.getNamedAttr("slot", b.getI64IntegerAttr(slot)),
                             b.getNamedAttr("type", TypeAttr::get(type))}));
  };
  unsigned numInputs = 0;
  for (unsigned i = 0; i < graph.getNumArguments(); ++i) {
    Type type = graph.getArgument(i).getType();
    if (auto offset =
            graph.getArgAttrOfType<IntegerAttr>(i, "dsmp.weight_offset")) {
      entry("weight", offset.getInt(), type);
      continue;
    }
    spec.inputs.push_back(
        {graphInputName(graph, i), cast<RankedTensorType>(type)});
    entry("io", numInputs++, type);
  }
  for (unsigned i = 0; i < graph.getNumResults(); ++i) {
    Type type = graph.getResultTypes()[i];
    spec.outputs.push_back(
        {graphOutputName(graph, i), cast<RankedTensorType>(type)});
    entry("io", numInputs + i, type);
  }
  module->setAttr("dsmp.entry_layout", b.getArrayAttr(layout));

  PassManager lower(&context);
  LowerToLLVMPipelineOptions lowerOptions;
  lowerOptions.resultsToOutParams = true;
  lowerOptions.useBlas = !options.target.blasLibrary.empty();
  lowerOptions.parallelLoops = options.target.parallelLoops;
  // Buffers through the artifact's cache (linkSharedLibrary links it).
  lowerOptions.genericAllocation = true;
  lowerOptions.blasApi =
      options.target.blasLibrary == "dnnl" ? "dnnl" : "cblas";
  if (failed(buildLowerToLLVMPipeline(lower, lowerOptions)))
    return llvm::createStringError("cannot build the lowering pipeline");
  EmitEntryPointPassOptions entryOptions;
  entryOptions.entryName = spec.entry;
  lower.addPass(createEmitEntryPointPass(entryOptions));
  // The inputs an If still branches on, before lowering consumes the
  // graph: fixing one often removes the branch that fails.
  std::vector<std::string> branching = branchingInputs(graph);
  if (Error err = runPipeline(lower, module, "lowering"))
    return withBranchHint(std::move(err), branching);
  return Error::success();
}

namespace {
/// A folder `outputDir`.partial that becomes `outputDir` on commit() and is
/// removed otherwise, so a failed compile leaves no partial artifact.
class StagingFolder {
public:
  explicit StagingFolder(StringRef outputDir) : outputDir(outputDir.str()) {
    path = this->outputDir + ".partial";
  }
  ~StagingFolder() {
    if (!committed)
      (void)llvm::sys::fs::remove_directories(path);
  }
  Error create() {
    (void)llvm::sys::fs::remove_directories(path);
    if (std::error_code ec = llvm::sys::fs::create_directories(path))
      return llvm::createStringError("cannot create '" + path +
                                     "': " + ec.message());
    return Error::success();
  }
  std::string file(StringRef name) const {
    llvm::SmallString<256> result(path);
    llvm::sys::path::append(result, name);
    return std::string(result);
  }
  /// Replaces an earlier artifact at `outputDir`, never anything else.
  Error commit() {
    if (llvm::sys::fs::exists(outputDir)) {
      llvm::SmallString<256> manifest(outputDir);
      llvm::sys::path::append(manifest, "manifest.txt");
      std::error_code ec;
      bool empty = llvm::sys::fs::directory_iterator(outputDir, ec) ==
                   llvm::sys::fs::directory_iterator();
      if (!empty && !llvm::sys::fs::exists(manifest))
        return llvm::createStringError(
            "'" + outputDir +
            "' exists and is not a dsmp artifact; not replacing it");
      (void)llvm::sys::fs::remove_directories(outputDir);
    }
    if (std::error_code ec = llvm::sys::fs::rename(path, outputDir))
      return llvm::createStringError("cannot move the artifact to '" +
                                     outputDir + "': " + ec.message());
    committed = true;
    return Error::success();
  }

private:
  std::string outputDir, path;
  bool committed = false;
};

/// Makes sure `path` exists (an empty weight file for a model without
/// external weights).
Error touchFile(StringRef path) {
  if (llvm::sys::fs::exists(path))
    return Error::success();
  std::error_code ec;
  llvm::raw_fd_ostream empty(path, ec);
  if (ec)
    return llvm::createStringError("cannot write '" + path +
                                   "': " + ec.message());
  return Error::success();
}

/// Lowers one clone of `module` per variant, links model.so and writes the
/// manifest (which records `source`) and header into the staging folder;
/// errors name `displayName`.
Error buildArtifact(ModuleOp module, StringRef source, StringRef displayName,
                    const CompileOptions &options,
                    const StagingFolder &staging) {
  ArtifactDescription description;
  description.target = options.target.name;
  description.source = source.str();
  for (auto &entry : options.fixedInputs)
    description.fixedInputs[entry.getKey().str()] = entry.second;
  std::vector<InputShapes> variants = options.variants;
  if (variants.empty())
    variants.emplace_back();
  SmallVector<std::string> objects;
  for (auto [index, shapes] : llvm::enumerate(variants)) {
    OwningOpRef<ModuleOp> variant(module.clone());
    ArtifactVariant spec;
    spec.entry = ::dsmp::artifact::kEntryPrefix + std::to_string(index);
    if (Error err = lowerVariant(*variant, shapes, options, spec))
      return llvm::createStringError(displayName + ": " +
                                     llvm::toString(std::move(err)));
    auto variantObjects =
        emitObjectFiles(*variant, options.target,
                        staging.file("model_" + std::to_string(index)));
    if (!variantObjects)
      return variantObjects.takeError();
    llvm::append_range(objects, *variantObjects);
    description.variants.push_back(std::move(spec));
  }
  if (Error err =
          linkSharedLibrary(objects, staging.file("model.so"), options.target))
    return err;
  for (const std::string &object : objects)
    (void)llvm::sys::fs::remove(object);
  return writeArtifactFiles(staging.file(""), description);
}
} // namespace

Error compileArtifact(StringRef modelPath, StringRef outputDir,
                      const CompileOptions &options, MLIRContext &context) {
  StagingFolder staging(outputDir);
  if (Error err = staging.create())
    return err;
  std::string weightsPath = staging.file("weights.bin");
  auto loaded = loadModel(modelPath, context, weightsPath);
  if (!loaded)
    return loaded.takeError();
  ModuleOp module = *loaded->module;
  if (loaded->weightsPath != weightsPath && !loaded->weightsPath.empty()) {
    // A .mlir model: its weights travel with the artifact.
    if (std::error_code ec =
            llvm::sys::fs::copy_file(loaded->weightsPath, weightsPath))
      return llvm::createStringError("cannot copy '" + loaded->weightsPath +
                                     "': " + ec.message());
  }
  if (Error err = touchFile(weightsPath))
    return err;
  if (Error err = externalizeConstants(module, weightsPath))
    return err;
  if (Error err = buildArtifact(module, llvm::sys::path::filename(modelPath),
                                modelPath, options, staging))
    return err;
  return staging.commit();
}

Error compileModuleArtifact(ModuleOp source, StringRef weightsFile,
                            StringRef sourceName, StringRef outputDir,
                            const CompileOptions &options) {
  StagingFolder staging(outputDir);
  if (Error err = staging.create())
    return err;
  std::string weightsPath = staging.file("weights.bin");
  if (!weightsFile.empty()) {
    if (std::error_code ec = llvm::sys::fs::copy_file(weightsFile, weightsPath))
      return llvm::createStringError("cannot copy '" + weightsFile +
                                     "': " + ec.message());
  }
  if (Error err = touchFile(weightsPath))
    return err;
  OwningOpRef<ModuleOp> module(source.clone());
  (*module)->removeAttr("dsmp.weights");
  if (Error err = externalizeConstants(*module, weightsPath))
    return err;
  if (Error err =
          buildArtifact(*module, sourceName, sourceName, options, staging))
    return err;
  return staging.commit();
}

Error externalizeConstants(ModuleOp module, StringRef weightsPath) {
  // Float tensors only: integer constants feed shape folding, which needs
  // their values in the IR.
  constexpr int64_t kMinBytes = 1024, kAlignment = 64;
  SmallVector<ConstantOp> constants;
  module.walk([&](ConstantOp op) {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto elements = dyn_cast<ElementsAttr>(op.getValue());
    if (!type || !elements || !type.hasStaticShape() ||
        !isa<FloatType>(type.getElementType()) ||
        type.getElementTypeBitWidth() % 8 != 0)
      return;
    if (auto dense = dyn_cast<DenseElementsAttr>(elements);
        dense && dense.isSplat())
      return;
    if (type.getNumElements() * (type.getElementTypeBitWidth() / 8) >=
        kMinBytes)
      constants.push_back(op);
  });
  if (constants.empty())
    return Error::success();
  uint64_t size = 0;
  (void)llvm::sys::fs::file_size(weightsPath, size);
  std::error_code ec;
  llvm::raw_fd_ostream out(weightsPath, ec, llvm::sys::fs::OF_Append);
  if (ec)
    return llvm::createStringError("cannot write '" + weightsPath +
                                   "': " + ec.message());
  for (ConstantOp op : constants) {
    ArrayRef<char> bytes;
    Attribute value = op.getValue();
    if (auto dense = dyn_cast<DenseElementsAttr>(value))
      bytes = dense.getRawData();
    else if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
      if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
        bytes = blob->getData();
    }
    auto type = cast<RankedTensorType>(op.getType());
    uint64_t expected =
        type.getNumElements() * (type.getElementTypeBitWidth() / 8);
    if (bytes.size() != expected)
      continue; // not a plain row-major buffer; stays inline
    while (size % kAlignment) {
      out << '\0';
      ++size;
    }
    out.write(bytes.data(), bytes.size());
    op.setValueAttr(
        ExternalAttr::get(module.getContext(), size, bytes.size(), type));
    size += bytes.size();
  }
  if (out.has_error())
    return llvm::createStringError("cannot write '" + weightsPath + "'");
  return Error::success();
}

} // namespace mlir::dsmp
