//===- ManifestFuzzer.cpp - libFuzzer target for manifest.txt ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Arbitrary bytes as an artifact's manifest.txt. The parser must accept or
// refuse with a reason, and what it accepts must write back to text that
// parses to the same manifest (and the same interface hash).
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/Manifest.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace art = ::dsmp::artifact;

static bool sameTensors(const std::vector<art::TensorSpec> &a,
                        const std::vector<art::TensorSpec> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].dtype != b[i].dtype ||
        a[i].dims != b[i].dims || a[i].fixed != b[i].fixed)
      return false;
  return true;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  art::Manifest manifest;
  std::string error;
  if (!art::parseManifest(text, manifest, error)) {
    if (error.empty())
      std::abort(); // a refusal always says why
    return 0;
  }
  art::Manifest again;
  if (!art::parseManifest(art::writeManifest(manifest), again, error))
    std::abort();
  if (again.target != manifest.target || again.source != manifest.source ||
      again.library.size != manifest.library.size ||
      again.weights.hash != manifest.weights.hash ||
      again.variants.size() != manifest.variants.size() ||
      art::interfaceHash(again) != art::interfaceHash(manifest) ||
      again.hasPrecision != manifest.hasPrecision ||
      again.precision.formatsOf != manifest.precision.formatsOf ||
      again.precision.metric != manifest.precision.metric ||
      again.precision.tolerance != manifest.precision.tolerance ||
      again.precision.opsPerFormat != manifest.precision.opsPerFormat)
    std::abort();
  for (size_t v = 0; v < again.variants.size(); ++v)
    if (again.variants[v].entry != manifest.variants[v].entry ||
        !sameTensors(again.variants[v].inputs, manifest.variants[v].inputs) ||
        !sameTensors(again.variants[v].outputs, manifest.variants[v].outputs))
      std::abort();
  return 0;
}
