//===- ArtifactFuzzer.cpp - libFuzzer target for loading --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Arbitrary bytes as the manifest.txt of a real artifact (the folder named
// by DSMP_FUZZ_ARTIFACT: its model.so and weights.bin are copied into a
// folder of this process). libdsmprt must load it or refuse with a reason;
// an artifact it loads is run on zero inputs of the shapes its manifest
// states, which must stay inside every buffer (ASan watches the runtime,
// the generated code writes only where the manifest says the outputs are).
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/Manifest.h"
#include "dsmp/runtime/dsmprt.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {
std::string folder;

bool copyFile(const std::string &from, const std::string &to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary);
  out << in.rdbuf();
  return in.good() && out.good();
}

size_t dtypeBytes(dsmp_dtype dtype) {
  switch (dtype) {
  case DSMP_F64:
  case DSMP_I64:
  case DSMP_U64:
    return 8;
  case DSMP_F32:
  case DSMP_I32:
  case DSMP_U32:
    return 4;
  case DSMP_F16:
  case DSMP_BF16:
  case DSMP_I16:
  case DSMP_U16:
    return 2;
  default:
    return 1;
  }
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  const char *source = std::getenv("DSMP_FUZZ_ARTIFACT");
  if (!source) {
    std::fprintf(stderr, "dsmp-artifact-fuzzer: set DSMP_FUZZ_ARTIFACT to an "
                         "artifact folder (scripts/fuzz.sh does)\n");
    std::exit(2);
  }
  char pattern[] = "/tmp/dsmp-artifact-fuzz-XXXXXX";
  if (!mkdtemp(pattern))
    std::exit(2);
  folder = pattern;
  for (const char *name :
       {::dsmp::artifact::kLibraryName, ::dsmp::artifact::kWeightsName})
    if (!copyFile(std::string(source) + "/" + name, folder + "/" + name)) {
      std::fprintf(stderr, "dsmp-artifact-fuzzer: cannot copy %s/%s\n", source,
                   name);
      std::exit(2);
    }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  {
    std::ofstream manifest(folder + "/" + ::dsmp::artifact::kManifestName,
                           std::ios::binary | std::ios::trunc);
    manifest.write(reinterpret_cast<const char *>(data),
                   static_cast<std::streamsize>(size));
  }
  dsmp_model *model = nullptr;
  if (dsmp_model_load(folder.c_str(), &model) != 0) {
    if (!*dsmp_last_error())
      std::abort(); // a refusal always says why
    return 0;
  }
  // Zero inputs of the first variant's shapes (the manifest's own; the
  // interface check made sure the code was compiled for them).
  std::vector<std::vector<unsigned char>> buffers;
  bool bound = true;
  for (size_t i = 0; i < dsmp_num_inputs(model) && bound; ++i) {
    const int64_t *dims = dsmp_input_dims(model, i);
    size_t rank = dsmp_input_rank(model, i), count = 1;
    for (size_t d = 0; d < rank; ++d)
      count *= static_cast<size_t>(dims[d]);
    dsmp_dtype dtype = dsmp_input_dtype(model, i);
    if (count * dtypeBytes(dtype) > (size_t(64) << 20))
      bound = false; // stay inside the fuzzer's memory limit
    else {
      buffers.emplace_back(count * dtypeBytes(dtype));
      bound =
          dsmp_bind_input(model, dsmp_input_name(model, i), dtype, dims, rank,
                          buffers.back().data(), buffers.back().size()) == 0;
    }
  }
  if (bound && dsmp_run(model) == 0)
    for (size_t i = 0; i < dsmp_num_outputs(model); ++i)
      if (!dsmp_output_data(model, dsmp_output_name(model, i)))
        std::abort();
  dsmp_model_free(model);
  return 0;
}
