//===- dsmp-run.cpp - Run a model on the host through the JIT -----*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   dsmp-run MODEL.onnx|MODEL.mlir|ARTIFACT_DIR --inputs DIR [--compare]
//            [--rtol R] [--save-outputs DIR] [--repeat N]
//
// An artifact folder (from dsmp-compile) runs through libdsmprt, exactly as
// dsmprt-run runs it. A model file runs through the JIT:
//
// Binds DIR/input_*.pb to the graph inputs by name, specializes the model to
// those shapes (dsmp-refine-shapes + canonicalize), lowers it with
// dsmp-lower-to-llvm and runs it with MLIR's ExecutionEngine. Prints each
// output's shape and first values, or with --compare its max abs/rel error
// against DIR/output_*.pb (rel = max abs error / max |reference|); exits 1
// when one exceeds --rtol.
//
// This is the first slice of host execution: static shapes after
// specialization, f32/i64 inputs and outputs, and only the ops that
// dsmp-convert-to-linalg lowers so far.
//
//===----------------------------------------------------------------------===//

#include "dsmp/Import/ONNXImporter.h"
#include "dsmp/InitAll.h"
#include "lib/Conversion/Pipelines.h"
#include "runtime/tools/RunArtifact.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::SmallString;
using llvm::StringRef;
using llvm::Twine;

namespace {
llvm::cl::opt<std::string> modelPath(llvm::cl::Positional,
                                     llvm::cl::desc("<model.onnx|.mlir>"),
                                     llvm::cl::Required);
llvm::cl::opt<std::string> inputsDir("inputs",
                                     llvm::cl::desc("Folder with input_*.pb"),
                                     llvm::cl::Required);
llvm::cl::opt<bool>
    compare("compare",
            llvm::cl::desc("Compare with output_*.pb in the same folder"));
llvm::cl::opt<double> rtol("rtol",
                           llvm::cl::desc("Relative tolerance for --compare"),
                           llvm::cl::init(1e-5));
llvm::cl::opt<double> absTolerance(
    "atol",
    llvm::cl::desc("Absolute tolerance for --compare: an output also "
                   "passes when its max abs error is at most this"),
    llvm::cl::init(0));
llvm::cl::opt<std::string>
    saveOutputs("save-outputs",
                llvm::cl::desc("Artifacts: write output_K.pb to this folder"));
llvm::cl::opt<int> repeat("repeat",
                          llvm::cl::desc("Artifacts: run N times, print the "
                                         "median time"),
                          llvm::cl::init(1));

int fail(const Twine &message) {
  llvm::errs() << "dsmp-run: error: " << message << "\n";
  return 1;
}

/// A tensor read from a .pb file: name, element type code, dims, bytes.
struct HostTensor {
  std::string name;
  int32_t dataType = 0;
  SmallVector<int64_t> dims;
  std::vector<char> bytes;
};

Expected<std::vector<HostTensor>> readTensors(StringRef dir, StringRef prefix) {
  std::vector<HostTensor> tensors;
  for (int i = 0;; ++i) {
    SmallString<256> path(dir);
    llvm::sys::path::append(path, prefix + "_" + Twine(i) + ".pb");
    if (!llvm::sys::fs::exists(path))
      break;
    std::ifstream in(std::string(path), std::ios::binary);
    onnx::TensorProto proto;
    if (!proto.ParseFromIstream(&in))
      return llvm::createStringError("cannot parse '" + path + "'");
    HostTensor t;
    t.name = proto.name();
    t.dataType = proto.data_type();
    t.dims.assign(proto.dims().begin(), proto.dims().end());
    int64_t count = 1;
    for (int64_t d : t.dims)
      count *= d;
    unsigned width = t.dataType == onnx::TensorProto::FLOAT   ? 4
                     : t.dataType == onnx::TensorProto::INT64 ? 8
                                                              : 0;
    if (!width)
      return llvm::createStringError(
          "'" + path +
          "': only float and int64 tensors are supported "
          "by dsmp-run yet");
    if (proto.has_raw_data()) {
      if (proto.raw_data().size() != static_cast<size_t>(count) * width)
        return llvm::createStringError("'" + path +
                                       "': raw_data size mismatch");
      t.bytes.assign(proto.raw_data().begin(), proto.raw_data().end());
    } else if (width == 4 && proto.float_data_size() == count) {
      t.bytes.resize(count * 4);
      std::memcpy(t.bytes.data(), proto.float_data().data(), count * 4);
    } else if (width == 8 && proto.int64_data_size() == count) {
      t.bytes.resize(count * 8);
      std::memcpy(t.bytes.data(), proto.int64_data().data(), count * 8);
    } else {
      return llvm::createStringError("'" + path + "': data size mismatch");
    }
    tensors.push_back(std::move(t));
  }
  return tensors;
}

/// A memref descriptor as the C interface expects it: allocated and
/// aligned pointers, offset, sizes, strides (all 64-bit).
std::vector<int64_t> makeDescriptor(void *data, ArrayRef<int64_t> shape) {
  std::vector<int64_t> d;
  d.push_back(reinterpret_cast<int64_t>(data));
  d.push_back(reinterpret_cast<int64_t>(data));
  d.push_back(0);
  for (int64_t s : shape)
    d.push_back(s);
  int64_t stride = 1;
  std::vector<int64_t> strides(shape.size());
  for (int64_t i = shape.size() - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape[i];
  }
  d.insert(d.end(), strides.begin(), strides.end());
  return d;
}

int32_t onnxTypeOf(Type t) {
  if (t.isF32())
    return onnx::TensorProto::FLOAT;
  if (t.isInteger(64))
    return onnx::TensorProto::INT64;
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(argc, argv, "dsmp host runner\n");
  if (llvm::sys::fs::is_directory(modelPath)) {
    ::dsmp::runtime::RunOptions options;
    options.artifactDir = modelPath;
    options.inputsDir = inputsDir;
    options.compare = compare;
    options.rtol = rtol;
    options.atol = absTolerance;
    options.saveDir = saveOutputs;
    options.repeat = repeat;
    return ::dsmp::runtime::runArtifact(options, "dsmp-run");
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  DialectRegistry registry;
  mlir::dsmp::registerAllDialects(registry);
  registry.insert<arith::ArithDialect, bufferization::BufferizationDialect,
                  linalg::LinalgDialect, tensor::TensorDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerAllPasses(); // the lowering pipeline names upstream passes
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  // Load the model; .mlir weights are read from its weight file.
  OwningOpRef<ModuleOp> module;
  bool isOnnx = StringRef(modelPath).ends_with(".onnx");
  if (isOnnx) {
    auto imported = mlir::dsmp::importONNXModel(modelPath, context);
    if (!imported)
      return fail(llvm::toString(imported.takeError()));
    module = std::move(*imported);
  } else {
    module = parseSourceFile<ModuleOp>(modelPath, &context);
    if (!module)
      return 1;
  }
  auto func = module->lookupSymbol<func::FuncOp>("main_graph");
  if (!func)
    return fail("the model has no @main_graph");

  auto inputs = readTensors(inputsDir, "input");
  if (!inputs)
    return fail(llvm::toString(inputs.takeError()));

  // Bind inputs by name and specialize the signature to their shapes.
  SmallVector<HostTensor *> bound(func.getNumArguments(), nullptr);
  for (HostTensor &t : *inputs) {
    bool found = false;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      auto name = func.getArgAttrOfType<StringAttr>(i, "dsmp.name");
      if (name && name.getValue() == t.name) {
        bound[i] = &t;
        found = true;
      }
    }
    if (!found)
      return fail("input '" + t.name + "' is not an input of the model");
  }
  SmallVector<Type> argTypes;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto name = func.getArgAttrOfType<StringAttr>(i, "dsmp.name");
    if (!bound[i])
      return fail("missing input '" + (name ? name.getValue() : "?") + "'");
    auto type = cast<RankedTensorType>(func.getArgument(i).getType());
    HostTensor &t = *bound[i];
    if (onnxTypeOf(type.getElementType()) != t.dataType)
      return fail("input '" + t.name + "' has the wrong dtype");
    if (type.getRank() != static_cast<int64_t>(t.dims.size()))
      return fail("input '" + t.name + "' has rank " + Twine(t.dims.size()) +
                  ", the model expects " + Twine(type.getRank()));
    for (auto [want, got] : llvm::zip(type.getShape(), t.dims))
      if (!ShapedType::isDynamic(want) && want != got)
        return fail("input '" + t.name + "' has the wrong shape");
    auto concrete = RankedTensorType::get(t.dims, type.getElementType());
    func.getArgument(i).setType(concrete);
    argTypes.push_back(concrete);
  }
  func.setFunctionType(
      FunctionType::get(&context, argTypes, func.getResultTypes()));

  PassManager pm(&context);
  if (!isOnnx) {
    std::string dir = llvm::sys::path::parent_path(modelPath).str();
    mlir::dsmp::LoadWeightsPassOptions load;
    load.weightsDir = dir.empty() ? "." : dir;
    pm.addPass(mlir::dsmp::createLoadWeightsPass(load));
  }
  mlir::dsmp::buildRefineShapesPipeline(pm);
  if (failed(pm.run(*module)))
    return fail("specializing the model to the input shapes failed");
  SmallVector<RankedTensorType> resultTypes;
  for (Type t : func.getResultTypes()) {
    auto ranked = dyn_cast<RankedTensorType>(t);
    if (!ranked || !ranked.hasStaticShape() ||
        !onnxTypeOf(ranked.getElementType())) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << t;
      return fail("output type " + text +
                  " is not a static f32/i64 tensor after specialization");
    }
    resultTypes.push_back(ranked);
  }
  SmallVector<std::string> outputNames;
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    auto name = func.getResultAttrOfType<StringAttr>(i, "dsmp.name");
    outputNames.push_back(name ? name.str() : "output_" + std::to_string(i));
  }
  func->setAttr("llvm.emit_c_interface", UnitAttr::get(&context));

  PassManager lower(&context);
  mlir::dsmp::LowerToLLVMPipelineOptions options;
  options.resultsToOutParams = true;
  if (failed(mlir::dsmp::buildLowerToLLVMPipeline(lower, options)) ||
      failed(lower.run(*module)))
    return fail("lowering failed (see the errors above)");

  // The options hold a function_ref: keep the transformer alive.
  auto optimize = makeOptimizingTransformer(2, 0, nullptr);
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = optimize;
  auto engine = ExecutionEngine::create(*module, engineOptions);
  if (!engine)
    return fail("JIT: " + llvm::toString(engine.takeError()));

  // One descriptor per input, then per output (caller-allocated).
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<std::vector<char>> outputs;
  for (unsigned i = 0; i < argTypes.size(); ++i)
    descriptors.push_back(
        makeDescriptor(bound[i]->bytes.data(), bound[i]->dims));
  for (RankedTensorType t : resultTypes) {
    outputs.emplace_back(t.getNumElements() *
                         (t.getElementType().getIntOrFloatBitWidth() / 8));
    descriptors.push_back(makeDescriptor(outputs.back().data(), t.getShape()));
  }
  std::vector<void *> descriptorPtrs;
  for (auto &d : descriptors)
    descriptorPtrs.push_back(d.data());
  std::vector<void *> args;
  for (void *&p : descriptorPtrs)
    args.push_back(&p);
  if (Error err = (*engine)->invokePacked("_mlir_ciface_main_graph", args))
    return fail("JIT call: " + llvm::toString(std::move(err)));

  std::vector<HostTensor> expected;
  if (compare) {
    auto read = readTensors(inputsDir, "output");
    if (!read)
      return fail(llvm::toString(read.takeError()));
    expected = std::move(*read);
    if (expected.size() != resultTypes.size())
      return fail("the model has " + Twine(resultTypes.size()) +
                  " outputs, the folder " + Twine(expected.size()));
  }
  bool mismatch = false;
  for (unsigned i = 0; i < resultTypes.size(); ++i) {
    RankedTensorType t = resultTypes[i];
    int64_t n = t.getNumElements();
    auto value = [&](const char *data, int64_t k) -> double {
      if (t.getElementType().isF32()) {
        float f;
        std::memcpy(&f, data + 4 * k, 4);
        return f;
      }
      int64_t v;
      std::memcpy(&v, data + 8 * k, 8);
      return static_cast<double>(v);
    };
    llvm::outs() << outputNames[i] << ": " << t;
    if (!compare) {
      llvm::outs() << " [";
      for (int64_t k = 0; k < std::min<int64_t>(n, 8); ++k)
        llvm::outs() << (k ? ", " : "") << value(outputs[i].data(), k);
      llvm::outs() << (n > 8 ? ", ...]\n" : "]\n");
      continue;
    }
    HostTensor &ref = expected[i];
    if (SmallVector<int64_t>(t.getShape()) != ref.dims) {
      llvm::outs() << " shape differs from the reference\n";
      mismatch = true;
      continue;
    }
    double maxAbs = 0, maxRef = 0;
    for (int64_t k = 0; k < n; ++k) {
      double got = value(outputs[i].data(), k);
      double want = value(ref.bytes.data(), k);
      maxAbs = std::max(maxAbs, std::fabs(got - want));
      maxRef = std::max(maxRef, std::fabs(want));
    }
    double rel = maxAbs / std::max(maxRef, 1e-30);
    llvm::outs() << " max abs " << llvm::format("%.3e", maxAbs) << " rel "
                 << llvm::format("%.3e", rel)
                 << (rel <= rtol || maxAbs <= absTolerance ? " ok\n"
                                                           : " MISMATCH\n");
    mismatch |= rel > rtol && maxAbs > absTolerance;
  }
  return mismatch ? 1 : 0;
}
