//===- ModelPath.cpp - A model path checked before it is opened -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Support/ModelPath.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <system_error>

namespace dsmp {

llvm::Error checkModelPath(llvm::StringRef path) {
  namespace fs = llvm::sys::fs;
  if (path == "-")
    return llvm::Error::success();
  fs::file_status status;
  if (std::error_code ec = fs::status(path, status))
    return llvm::createStringError("'" + path + "': " + ec.message());
  if (!fs::is_directory(status))
    return llvm::Error::success();
  std::string message = ("'" + path + "' is a folder, not a model file").str();
  // The shared models' and ONNX's test layout: DIR/model.onnx.
  for (const char *name : {"model.onnx", "model.mlir"}) {
    llvm::SmallString<256> inside(path);
    llvm::sys::path::append(inside, name);
    if (fs::is_regular_file(inside))
      return llvm::createStringError(message + "; did you mean '" +
                                     inside.str() + "'?");
  }
  return llvm::createStringError(message + ": give its .onnx or .mlir file");
}

} // namespace dsmp
