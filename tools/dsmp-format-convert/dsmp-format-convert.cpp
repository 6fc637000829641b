//===- dsmp-format-convert.cpp - Bulk format conversions --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   dsmp-format-convert FORMAT [--saturate] IN OUT
//   dsmp-format-convert FORMAT --decode IN OUT
//
// Converts raw little-endian f32 values in IN to FORMAT with the runtime's
// conversions (include/dsmp/Support/FloatFormats.h) and writes one uint32
// per value to OUT: the format's code, or for tf32 the rounded f32's bits.
// With --decode, IN holds uint32 codes and OUT gets their f32 values.
// FORMAT: f16 f16-bulk f16-general bf16 tf32 f8E4M3FN f8E5M2 f8E4M3FNUZ
// f8E5M2FNUZ (f16: the runtime's toF16/fromF16 per value; f16-bulk: their
// array forms, F16C where the CPU has it; f16-general: encode/decode with
// kF16).
// The tests compare this against ml_dtypes and numpy.
//
//===----------------------------------------------------------------------===//

#include "dsmp/Support/FloatFormats.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace dsmp::formats;

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: dsmp-format-convert FORMAT [--saturate|--decode] "
               "IN OUT\n");
  return 2;
}

/// "f16" is toF16/fromF16 (the runtime's fast path); "f16-general" the
/// same format through the general encode/decode.
const SmallFloat *smallFormat(const std::string &name) {
  if (name == "f16-general")
    return &kF16;
  if (name == "f8E4M3FN")
    return &kF8E4M3FN;
  if (name == "f8E5M2")
    return &kF8E5M2;
  if (name == "f8E4M3FNUZ")
    return &kF8E4M3FNUZ;
  if (name == "f8E5M2FNUZ")
    return &kF8E5M2FNUZ;
  return nullptr;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4 || argc > 5)
    return usage();
  std::string format = argv[1];
  bool saturate = argc == 5 && std::strcmp(argv[2], "--saturate") == 0;
  bool decodeMode = argc == 5 && std::strcmp(argv[2], "--decode") == 0;
  if (argc == 5 && !saturate && !decodeMode)
    return usage();
  const char *inPath = argv[argc - 2];
  const char *outPath = argv[argc - 1];
  const SmallFloat *small = smallFormat(format);
  if (!small && format != "f16" && format != "f16-bulk" && format != "bf16" &&
      format != "tf32") {
    std::fprintf(stderr, "dsmp-format-convert: unknown format '%s'\n",
                 format.c_str());
    return 2;
  }

  std::FILE *in = std::fopen(inPath, "rb");
  if (!in) {
    std::fprintf(stderr, "dsmp-format-convert: cannot open '%s'\n", inPath);
    return 1;
  }
  std::FILE *out = std::fopen(outPath, "wb");
  if (!out) {
    std::fprintf(stderr, "dsmp-format-convert: cannot write '%s'\n", outPath);
    std::fclose(in);
    return 1;
  }
  std::vector<uint32_t> buffer(1 << 20);
  std::vector<float> floats(buffer.size());
  std::vector<uint16_t> codes(buffer.size());
  size_t count;
  while ((count = std::fread(buffer.data(), 4, buffer.size(), in)) > 0) {
    if (format == "f16-bulk") {
      if (decodeMode) {
        for (size_t i = 0; i < count; ++i)
          codes[i] = static_cast<uint16_t>(buffer[i]);
        fromF16(codes.data(), floats.data(), count);
        for (size_t i = 0; i < count; ++i)
          buffer[i] = bitsOf(floats[i]);
      } else {
        for (size_t i = 0; i < count; ++i)
          floats[i] = floatOf(buffer[i]);
        toF16(floats.data(), codes.data(), count);
        for (size_t i = 0; i < count; ++i)
          buffer[i] = codes[i];
      }
      std::fwrite(buffer.data(), 4, count, out);
      continue;
    }
    for (size_t i = 0; i < count; ++i) {
      uint32_t word = buffer[i];
      if (decodeMode) {
        float value = small              ? decode(*small, word)
                      : format == "f16"  ? fromF16(static_cast<uint16_t>(word))
                      : format == "bf16" ? fromBF16(static_cast<uint16_t>(word))
                                         : floatOf(word);
        buffer[i] = bitsOf(value);
      } else {
        float x = floatOf(word);
        buffer[i] = small              ? encode(*small, x, saturate)
                    : format == "f16"  ? toF16(x)
                    : format == "bf16" ? toBF16(x)
                                       : bitsOf(roundToTF32(x));
      }
    }
    std::fwrite(buffer.data(), 4, count, out);
  }
  std::fclose(in);
  return std::fclose(out) == 0 ? 0 : 1;
}
