//===- RuntimeFilesTest.cpp - Manifest and .pb files ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// libdsmprt parses two kinds of untrusted files without protobuf or LLVM:
// the artifact manifest and ONNX TensorProto test data. Both must reject
// malformed input with a reason and never read out of bounds.
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/Manifest.h"
#include "dsmp/runtime/TensorFile.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace art = dsmp::artifact;
using dsmp::runtime::HostTensor;
using dsmp::runtime::parseTensorProto;

namespace {
art::Manifest sample() {
  art::Manifest m;
  m.target = "x86_64";
  m.source = "my model.onnx";
  m.library = {"model.so", 1234, 0x0123456789abcdefull};
  m.weights = {"weights.bin", 64, 0xfedcba9876543210ull};
  art::Variant v;
  v.entry = "dsmp_model_run_0";
  v.inputs.push_back({"input 0/%x", "f32", {1, 3, 224, 224}});
  v.outputs.push_back({"", "i64", {}});
  m.variants.push_back(v);
  return m;
}

TEST(Manifest, RoundTripsNamesWithSpacesAndPercent) {
  art::Manifest parsed;
  std::string error;
  ASSERT_TRUE(art::parseManifest(art::writeManifest(sample()), parsed, error))
      << error;
  EXPECT_EQ(parsed.source, "my model.onnx");
  EXPECT_EQ(parsed.library.hash, 0x0123456789abcdefull);
  ASSERT_EQ(parsed.variants.size(), 1u);
  EXPECT_EQ(parsed.variants[0].inputs[0].name, "input 0/%x");
  EXPECT_EQ(parsed.variants[0].inputs[0].dims,
            (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(parsed.variants[0].outputs[0].name, "");
  EXPECT_TRUE(parsed.variants[0].outputs[0].dims.empty());
}

TEST(Manifest, EveryTruncationIsRejectedOrStillConsistent) {
  std::string text = art::writeManifest(sample());
  for (size_t cut = 0; cut < text.size(); ++cut) {
    art::Manifest parsed;
    std::string error;
    if (art::parseManifest(text.substr(0, cut), parsed, error)) {
      // A cut at a line end can leave a shorter but valid manifest; it
      // still has every required entry.
      EXPECT_FALSE(parsed.variants.empty());
      EXPECT_FALSE(parsed.target.empty());
    } else {
      EXPECT_FALSE(error.empty());
    }
  }
}

// contentHash against test/Execution/Inputs/rehash.py's content_hash (numpy,
// written from the description) on bytes (37 i + 11) mod 256: no whole
// round, part of one, exactly one, three and a tail.
TEST(Manifest, ContentHashMatchesItsDescription) {
  std::vector<unsigned char> bytes(100);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<unsigned char>((i * 37 + 11) & 255);
  EXPECT_EQ(art::contentHash(bytes.data(), 0), 0x168f08da24aec7dcull);
  EXPECT_EQ(art::contentHash(bytes.data(), 5), 0x20d7cc45900de89cull);
  EXPECT_EQ(art::contentHash(bytes.data(), 32), 0x2c01fd1067fb8b21ull);
  EXPECT_EQ(art::contentHash(bytes.data(), 100), 0x237926a41be09b52ull);
  // Any one flipped bit, and any truncation, changes it.
  uint64_t whole = art::contentHash(bytes.data(), bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      bytes[i] ^= 1u << bit;
      EXPECT_NE(art::contentHash(bytes.data(), bytes.size()), whole) << i;
      bytes[i] ^= 1u << bit;
    }
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_NE(art::contentHash(bytes.data(), n), whole) << n;
}

/// `good` with its first `from` replaced by `to` is refused, with a reason
/// that names the line.
void expectRejected(const std::string &good, const std::string &from,
                    const std::string &to) {
  std::string text = good;
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  art::Manifest parsed;
  std::string error;
  EXPECT_FALSE(art::parseManifest(text, parsed, error)) << to;
  EXPECT_NE(error.find("manifest line"), std::string::npos) << error;
}

TEST(Manifest, RejectsBadFields) {
  std::string good = art::writeManifest(sample());
  auto reject = [&](const std::string &from, const std::string &to) {
    expectRejected(good, from, to);
  };
  reject("dsmp-artifact 9", "dsmp-artifact 2");
  reject("dsmp-artifact 9", "dsmp-artifact 10");
  reject("f32 4", "f31 4");
  reject("f32 4 1 3", "f32 4 -1 3");
  reject("0123456789abcdef", "0123456789abcdeg");
  reject("i64 0", "i64 99");
  reject("input", "inptu");
}

art::Manifest precisionSample() {
  art::Manifest m = sample();
  m.hasPrecision = true;
  m.precision.formatsOf = "sm_80";
  m.precision.metric = "rel-l2";
  m.precision.tolerance = 0.01;
  m.precision.opsPerFormat = {{"f16", 40}, {"f32", 3}};
  m.precision.errorFloors.assign(m.variants[0].outputs.size(), 0.25);
  return m;
}

TEST(Manifest, RoundTripsAPrecisionCompilesBudget) {
  std::string text = art::writeManifest(precisionSample());
  EXPECT_NE(text.find("precision sm_80 rel-l2 0.01\nformats f16 40 f32 3\n"),
            std::string::npos)
      << text;
  art::Manifest parsed;
  std::string error;
  ASSERT_TRUE(art::parseManifest(text, parsed, error)) << error;
  EXPECT_TRUE(parsed.hasPrecision);
  EXPECT_EQ(parsed.precision.formatsOf, "sm_80");
  EXPECT_EQ(parsed.precision.metric, "rel-l2");
  EXPECT_EQ(parsed.precision.tolerance, 0.01);
  EXPECT_EQ(parsed.precision.opsPerFormat,
            precisionSample().precision.opsPerFormat);
  EXPECT_EQ(parsed.precision.errorFloors,
            precisionSample().precision.errorFloors);
  // One floor per output, each positive.
  for (auto [from, to] : {std::pair<std::string, std::string>{
                              "error-floor 1 0.25", "error-floor 1 0"},
                          {"error-floor 1 0.25", "error-floor 2 0.25 0.25"},
                          {"error-floor 1 0.25", "error-floor 1 nan"}})
    expectRejected(text, from, to);
  // A plain compile's manifest has neither line, and version 3 still loads.
  std::string plain = art::writeManifest(sample());
  EXPECT_EQ(plain.find("precision"), std::string::npos);
  plain.replace(0, std::string("dsmp-artifact 9").size(), "dsmp-artifact 3");
  ASSERT_TRUE(art::parseManifest(plain, parsed, error)) << error;
}

TEST(Manifest, RoundTripsADynamicVariant) {
  art::Manifest m = sample();
  art::Variant dynamic = m.variants[0];
  dynamic.entry = "dsmp_model_run_1";
  dynamic.dynamic = true;
  for (art::TensorSpec &t : dynamic.inputs) {
    t.dims[0] = art::kDynamicDim;
    t.dimNames.assign(t.dims.size(), "");
    t.dimNames[0] = "batch size";
  }
  dynamic.outputs.push_back({"y", "f32", {art::kDynamicDim, 10}});
  m.variants[0].outputs.push_back({"y", "f32", {1, 10}});
  m.variants.push_back(dynamic);
  std::string text = art::writeManifest(m);
  EXPECT_NE(text.find("variant dsmp_model_run_1 dynamic\ninput "),
            std::string::npos)
      << text;
  // A named dim is `?NAME`, percent-encoded; an unnamed one `?`.
  EXPECT_NE(text.find(" ?batch%20size "), std::string::npos) << text;
  art::Manifest parsed;
  std::string error;
  ASSERT_TRUE(art::parseManifest(text, parsed, error)) << error;
  ASSERT_EQ(parsed.variants.size(), 2u);
  EXPECT_FALSE(parsed.variants[0].dynamic);
  EXPECT_TRUE(parsed.variants[1].dynamic);
  EXPECT_EQ(parsed.variants[1].inputs[0].dims, dynamic.inputs[0].dims);
  EXPECT_EQ(parsed.variants[1].inputs[0].dimNames[0], "batch size");
  EXPECT_EQ(parsed.variants[1].outputs[1].dims[0], art::kDynamicDim);
  EXPECT_EQ(art::interfaceHash(parsed), art::interfaceHash(m));
  // `?` only in a dynamic variant, and the flag is the only word allowed.
  expectRejected(text, " f32 4 1 3 224 224", " f32 4 ? 3 224 224");
  expectRejected(text, "variant dsmp_model_run_1 dynamic",
                 "variant dsmp_model_run_1 dynamics");
}

TEST(Manifest, RoundTripsAProfiledArtifactsLines) {
  art::Manifest m = sample();
  m.profile = {"profile.txt", 1234, 0xfeedull};
  m.variants[0].profileRows = 17;
  std::string text = art::writeManifest(m);
  EXPECT_NE(text.find("\nprofile profile.txt 1234 000000000000feed\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nprofile-rows 17\n"), std::string::npos) << text;
  art::Manifest parsed;
  std::string error;
  ASSERT_TRUE(art::parseManifest(text, parsed, error)) << error;
  EXPECT_EQ(parsed.profile.size, 1234u);
  EXPECT_EQ(parsed.variants[0].profileRows, 17u);
  // The rows are part of what the library was compiled for.
  EXPECT_NE(art::interfaceHash(parsed), art::interfaceHash(sample()));
  expectRejected(text, "profile-rows 17", "profile-rows 0");
  expectRejected(text, "profile-rows 17", "profile-rows 99999999999");
  expectRejected(text, "profile profile.txt 1234", "profile profile.txt x");
}

TEST(Manifest, RoundTripsTheDeviceLine) {
  art::Manifest m = sample();
  m.device = "sm_80";
  std::string text = art::writeManifest(m);
  EXPECT_NE(text.find("\ndevice sm_80\n"), std::string::npos) << text;
  art::Manifest parsed;
  std::string error;
  ASSERT_TRUE(art::parseManifest(text, parsed, error)) << error;
  EXPECT_EQ(parsed.device, "sm_80");
  // model.so's code is for that device: another one is another interface.
  art::Manifest other = m;
  other.device = "sm_90";
  EXPECT_NE(art::interfaceHash(m), art::interfaceHash(other));
  EXPECT_NE(art::interfaceHash(m), art::interfaceHash(sample()));
  expectRejected(text, "device sm_80", "device sm_80 sm_90");
  expectRejected(text, "device sm_80", "device SM-80");
}

TEST(Manifest, RoundTripsTheBatchLine) {
  art::Manifest m = sample();
  m.batchInputs.assign(m.variants[0].inputs.size(), true);
  m.batchOutputs.assign(m.variants[0].outputs.size(), false);
  std::string text = art::writeManifest(m);
  art::Manifest parsed;
  std::string error;
  ASSERT_TRUE(art::parseManifest(text, parsed, error)) << error;
  EXPECT_EQ(parsed.batchInputs, m.batchInputs);
  EXPECT_EQ(parsed.batchOutputs, m.batchOutputs);
  // The line is part of what model.so was compiled against.
  EXPECT_NE(art::interfaceHash(parsed), art::interfaceHash(sample()));
  // Flags for another number of tensors, or not 0/1, are refused.
  size_t at = text.find("batch ");
  ASSERT_NE(at, std::string::npos);
  std::string line = text.substr(at, text.find('\n', at) - at);
  for (const std::string &bad :
       {std::string("batch 0 0"), std::string("batch 1 1 1 1"), line + " 1",
        line.substr(0, 8) + "2" + line.substr(9)}) {
    std::string edited = text;
    edited.replace(at, line.size(), bad);
    EXPECT_FALSE(art::parseManifest(edited, parsed, error)) << bad;
  }
}

TEST(Manifest, RejectsBadPrecisionEntries) {
  std::string good = art::writeManifest(precisionSample());
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"rel-l2 0.01", "rel-l2 0"},
           {"rel-l2 0.01", "rel-l2 nan"},
           {"rel-l2 0.01", "rel-l2 inf"},
           {"rel-l2 0.01", "rel-l2 0.01x"},
           {"rel-l2 0.01", "linf 0.01"},
           {"rel-l2 0.01", "rel-l2"},
           {"rel-l2 0.01", "rel-l2 0.01 extra"},
           {"f16 40 f32 3", "f16 40 f32"},
           {"formats f16 40 f32 3", "formats"},
           {"precision sm_80", "precisionx sm_80"},
           // formats needs its precision line before it.
           {"precision sm_80 rel-l2 0.01\n", ""}})
    expectRejected(good, from, to);
}

std::vector<unsigned char> floatTensor() {
  // dims [2, 3] (packed), data_type FLOAT, name "x", raw_data 24 bytes.
  std::vector<unsigned char> b = {0x0a, 0x02, 0x02, 0x03, 0x10, 0x01,
                                  0x42, 0x01, 'x',  0x4a, 24};
  for (int i = 0; i < 6; ++i) {
    float f = float(i) + 0.5f;
    unsigned char bytes[4];
    std::memcpy(bytes, &f, 4);
    b.insert(b.end(), bytes, bytes + 4);
  }
  return b;
}

TEST(TensorFile, ParsesPackedDimsAndRawData) {
  HostTensor t;
  std::string error;
  std::vector<unsigned char> b = floatTensor();
  ASSERT_TRUE(parseTensorProto(b.data(), b.size(), t, error)) << error;
  EXPECT_EQ(t.name, "x");
  EXPECT_EQ(t.dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(dsmp::runtime::elementAsDouble(t, 5), 5.5);
}

TEST(TensorFile, EveryTruncationFailsCleanly) {
  std::vector<unsigned char> b = floatTensor();
  for (size_t cut = 0; cut < b.size(); ++cut) {
    // A copy of exactly `cut` bytes, so ASan sees any read past the end.
    std::vector<unsigned char> prefix(b.begin(), b.begin() + cut);
    HostTensor t;
    std::string error;
    EXPECT_FALSE(parseTensorProto(prefix.data(), prefix.size(), t, error))
        << cut;
    EXPECT_FALSE(error.empty());
  }
}

TEST(TensorFile, RandomBytesNeverCrash) {
  std::mt19937 rng(7);
  for (int round = 0; round < 20000; ++round) {
    std::vector<unsigned char> b = floatTensor();
    int flips = 1 + rng() % 4;
    for (int i = 0; i < flips; ++i)
      b[rng() % b.size()] = static_cast<unsigned char>(rng());
    std::vector<unsigned char> copy(b);
    HostTensor t;
    std::string error;
    if (parseTensorProto(copy.data(), copy.size(), t, error)) {
      size_t count = 1;
      for (int64_t d : t.dims)
        count *= static_cast<size_t>(d);
      EXPECT_EQ(t.data.size(), count * dsmp::runtime::dtypeSize(t.dtype));
    }
  }
}

TEST(TensorFile, RejectsHugeDimsWithoutAllocating) {
  // dims [2^40, 2^40]: the element count overflows any buffer.
  std::vector<unsigned char> b = {0x08, 0x80, 0x80, 0x80, 0x80, 0x80,
                                  0x80, 0x20, 0x08, 0x80, 0x80, 0x80,
                                  0x80, 0x80, 0x80, 0x20, 0x10, 0x01};
  HostTensor t;
  std::string error;
  EXPECT_FALSE(parseTensorProto(b.data(), b.size(), t, error));
  EXPECT_EQ(error, "bad dims");
}
} // namespace
