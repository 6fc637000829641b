//===- ModelLoading.cpp - Models, input shapes, fixed inputs ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/MainGraph.h"
#include "dsmp/Driver/Artifact.h"
#include "dsmp/Import/ONNXImporter.h"
#include "dsmp/Support/ModelPath.h"
#include "dsmp/Support/WeightFile.h"
#include "dsmp/runtime/TensorFile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace mlir::dsmp {

Expected<LoadedModel> loadModel(StringRef path, MLIRContext &context,
                                StringRef onnxWeightsPath) {
  if (Error err = ::dsmp::checkModelPath(path))
    return std::move(err);
  LoadedModel loaded;
  if (path.ends_with(".onnx")) {
    ONNXImportOptions options;
    options.weightsPath = onnxWeightsPath.str();
    std::vector<std::string> warnings;
    options.warnings = &warnings;
    auto imported = importONNXModel(path, context, options);
    if (!imported)
      return imported.takeError();
    for (const std::string &warning : warnings)
      llvm::errs() << "warning: " << path << ": " << warning << "\n";
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
  if (!lookupMainGraph(*loaded.module))
    return llvm::createStringError(path + ": the model has no @main_graph");
  return loaded;
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

} // namespace mlir::dsmp
