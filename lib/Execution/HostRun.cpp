//===- HostRun.cpp - Run an in-memory module on the host ------ -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Execution/HostRun.h"

#include "dialects/Dsmp/IR/MainGraph.h"
#include "dsmp/Driver/Artifact.h"

#include "dsmp/Execution/Evaluator.h"
#include "dsmp/runtime/dsmprt.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <cstring>

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace mlir::dsmp {

StringRef hostCPUTarget() {
  llvm::Triple host(llvm::sys::getProcessTriple());
  return host.getArch() == llvm::Triple::aarch64 ? "aarch64" : "x86_64";
}

Expected<std::unique_ptr<HostProgram>>
HostProgram::compile(ModuleOp module, StringRef weightsFile,
                     const InputShapes &shapes, unsigned optLevel) {
  auto target = lookupCPUTarget(hostCPUTarget());
  if (!target)
    return llvm::createStringError("the host is not a dsmp CPU target");
  CompileOptions options;
  options.target = *target;
  options.target.optLevel = optLevel;
  options.variants.push_back(shapes);
  // One run at these shapes: nothing to gain from a dynamic variant.
  options.dynamicVariant = CompileOptions::DynamicVariant::Never;

  std::unique_ptr<HostProgram> program(new HostProgram());
  llvm::SmallString<128> folder;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("dsmp-host", folder))
    return llvm::createStringError("cannot create a temporary folder: " +
                                   ec.message());
  program->folder = std::string(folder);
  llvm::SmallString<128> artifact(folder);
  llvm::sys::path::append(artifact, "artifact");
  if (Error err = compileModuleArtifact(module, weightsFile, "host-run",
                                        artifact, options))
    return std::move(err);
  if (dsmp_model_load(artifact.c_str(), &program->model) != 0)
    return llvm::createStringError(dsmp_last_error());
  return program;
}

Expected<std::unique_ptr<HostProgram>>
HostProgram::open(StringRef artifactDir) {
  std::unique_ptr<HostProgram> program(new HostProgram());
  if (dsmp_model_load(artifactDir.str().c_str(), &program->model) != 0)
    return llvm::createStringError(dsmp_last_error());
  return program;
}

HostProgram::~HostProgram() {
  if (model)
    dsmp_model_free(model);
  if (!folder.empty())
    (void)llvm::sys::fs::remove_directories(folder);
}

Expected<std::vector<HostTensor>> HostProgram::run(const HostInputs &inputs) {
  for (const HostTensor &input : inputs) {
    if (dsmp_bind_input(model, input.name.c_str(),
                        static_cast<dsmp_dtype>(input.dtype), input.dims.data(),
                        input.dims.size(), input.data.data(),
                        input.data.size()) != 0)
      return llvm::createStringError(dsmp_last_error());
  }
  if (dsmp_run(model) != 0)
    return llvm::createStringError(dsmp_last_error());
  std::vector<HostTensor> outputs(dsmp_num_outputs(model));
  for (size_t i = 0; i < outputs.size(); ++i) {
    HostTensor &out = outputs[i];
    out.name = dsmp_output_name(model, i);
    out.dtype = dsmp_output_dtype(model, i);
    const int64_t *dims = dsmp_output_dims(model, i);
    out.dims.assign(dims, dims + dsmp_output_rank(model, i));
    size_t count = 1;
    for (int64_t d : out.dims)
      count *= static_cast<size_t>(d);
    size_t bytes = count * ::dsmp::runtime::dtypeSize(out.dtype);
    const auto *data = static_cast<const unsigned char *>(
        dsmp_output_data(model, out.name.c_str()));
    out.data.assign(data, data + bytes);
  }
  return outputs;
}

Expected<HostEngine> parseHostEngine(StringRef name) {
  if (name == "auto")
    return HostEngine::Auto;
  if (name == "evaluate")
    return HostEngine::Evaluate;
  if (name == "compile")
    return HostEngine::Compile;
  return llvm::createStringError("unknown engine '" + name +
                                 "' (auto, evaluate, compile)");
}

Expected<std::vector<std::vector<HostTensor>>>
runOnInputSets(ModuleOp module, llvm::ArrayRef<HostInputs> sets,
               HostEngine engine, std::string *whyCompiled) {
  if (sets.empty())
    return llvm::createStringError("no input sets to run");
  InputShapes shapes = shapesOf(sets.front());
  std::vector<std::vector<HostTensor>> outputs;
  std::string whyNotEvaluated;
  if (engine != HostEngine::Compile) {
    OwningOpRef<ModuleOp> specialized;
    ModuleOp ready = module;
    if (!isSpecializedTo(module.lookupSymbol<func::FuncOp>("main_graph"),
                         shapes)) {
      specialized = module.clone();
      if (Error err = specializeGraph(*specialized, shapes, 1,
                                      /*requireAllInputs=*/true))
        return std::move(err);
      ready = *specialized;
    }
    auto evaluator =
        GraphEvaluator::create(ready.lookupSymbol<func::FuncOp>("main_graph"));
    if (evaluator) {
      for (const HostInputs &set : sets) {
        auto out = (*evaluator)->run(set);
        if (!out)
          return out.takeError();
        outputs.push_back(std::move(*out));
      }
      return outputs;
    }
    if (engine == HostEngine::Evaluate)
      return evaluator.takeError();
    whyNotEvaluated = llvm::toString(evaluator.takeError());
    if (whyCompiled)
      *whyCompiled = whyNotEvaluated;
  }
  auto program = HostProgram::compile(module, "", shapes);
  if (!program) {
    // Both ways failed: say why the evaluator did not run it either.
    if (whyNotEvaluated.empty())
      return program.takeError();
    return llvm::createStringError(
        llvm::toString(program.takeError()) +
        "\n  (compiled because the evaluator cannot run it: " +
        whyNotEvaluated + ")");
  }
  for (const HostInputs &set : sets) {
    auto out = (*program)->run(set);
    if (!out)
      return out.takeError();
    outputs.push_back(std::move(*out));
  }
  return outputs;
}

namespace {
/// The files DIR/<prefix>_0.pb, DIR/<prefix>_1.pb, ... as one set.
Expected<HostInputs> readNumberedTensors(StringRef dir, StringRef prefix) {
  HostInputs tensors;
  for (int k = 0;; ++k) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, prefix + "_" + Twine(k) + ".pb");
    if (!llvm::sys::fs::exists(path))
      break;
    HostTensor tensor;
    std::string error;
    if (!::dsmp::runtime::readTensorFile(std::string(path), tensor, error))
      return llvm::createStringError(error);
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

Expected<std::vector<HostInputs>> readSets(StringRef dir, StringRef prefix) {
  if (!llvm::sys::fs::is_directory(dir))
    return llvm::createStringError("'" + dir + "' is not a folder");
  std::vector<HostInputs> sets;
  auto own = readNumberedTensors(dir, prefix);
  if (!own)
    return own.takeError();
  if (!own->empty()) {
    sets.push_back(std::move(*own));
    return sets;
  }
  std::vector<std::string> subfolders;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::filename(it->path()).starts_with("test_data_set_") &&
        llvm::sys::fs::is_directory(it->path()))
      subfolders.push_back(it->path());
  std::sort(subfolders.begin(), subfolders.end());
  for (const std::string &sub : subfolders) {
    auto set = readNumberedTensors(sub, prefix);
    if (!set)
      return set.takeError();
    if (!set->empty())
      sets.push_back(std::move(*set));
  }
  if (sets.empty())
    return llvm::createStringError(
        "'" + dir + "' holds no " + prefix +
        "_*.pb files (nor test_data_set_* folders with them)");
  return sets;
}
} // namespace

Expected<std::vector<HostInputs>> readInputSets(StringRef dir) {
  return readSets(dir, "input");
}

Expected<std::vector<HostInputs>> readOutputSets(StringRef dir) {
  return readSets(dir, "output");
}

InputShapes shapesOf(const HostInputs &inputs) {
  InputShapes shapes;
  for (const HostTensor &tensor : inputs)
    shapes[tensor.name] =
        SmallVector<int64_t>(tensor.dims.begin(), tensor.dims.end());
  return shapes;
}

} // namespace mlir::dsmp
