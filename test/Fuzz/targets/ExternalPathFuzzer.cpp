//===- ExternalPathFuzzer.cpp - libFuzzer target for data paths -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Arbitrary bytes as an ONNX external-data `location`, resolved against a
// model folder of this process that holds a file, a subfolder and symlinks
// leading in and out. The resolver must refuse or return a path that is
// inside the folder once every link is followed.
//
//===----------------------------------------------------------------------===//

#include "lib/Import/ONNX/ImportUtils.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include <unistd.h>

namespace {
std::string modelDir, realModelDir;
} // namespace

// LLVM's BumpPtrAllocator poisons memory from header code compiled into this
// instrumented binary that the uninstrumented libMLIR.so then writes
// legitimately (docs/testing.md): keep every other check.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  char pattern[] = "/tmp/dsmp-path-fuzz-XXXXXX";
  if (!mkdtemp(pattern))
    std::exit(2);
  modelDir = std::string(pattern) + "/model";
  std::string sub = modelDir + "/sub";
  if (llvm::sys::fs::create_directories(sub))
    std::exit(2);
  std::ofstream(modelDir + "/weights.bin") << "0123456789abcdef";
  std::ofstream(sub + "/w.bin") << "0123456789abcdef";
  std::ofstream(std::string(pattern) + "/outside.bin") << "secret";
  (void)!symlink("../outside.bin", (modelDir + "/out_link").c_str());
  (void)!symlink("weights.bin", (modelDir + "/in_link").c_str());
  (void)!symlink("..", (sub + "/up").c_str());
  (void)!symlink("/etc", (modelDir + "/etc").c_str());
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(modelDir, real))
    std::exit(2);
  realModelDir = std::string(real);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef location(reinterpret_cast<const char *>(data), size);
  auto resolved =
      mlir::dsmp::onnx_import::resolveExternalLocation(location, modelDir);
  if (!resolved) {
    std::string message = llvm::toString(resolved.takeError());
    if (message.empty())
      std::abort();
    return 0;
  }
  // A path the resolver accepts names a file inside the folder (links
  // followed) and holds no NUL, which would end it early for open().
  if (llvm::StringRef(*resolved).contains('\0') ||
      !llvm::sys::fs::is_regular_file(*resolved))
    std::abort();
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(*resolved, real) ||
      !llvm::StringRef(real).starts_with(realModelDir + "/"))
    std::abort(); // escaped the model's folder
  return 0;
}
