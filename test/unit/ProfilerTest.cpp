//===- ProfilerTest.cpp - profile.txt and the per-op report ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/Profiler.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

namespace art = dsmp::artifact;

// What a profiled model.so exports for entry point "entry0": three rows of
// {nanoseconds, calls}, written here as the generated code would.
extern "C" __attribute__((visibility("default"), used))
int64_t dsmp_profile_entry0[3][2] = {};

namespace {

/// A matmul (600 FLOPs) and its bias add (200) fused in one loop, a relu in
/// a loop of its own, and a row in a branch never taken that computes the
/// FP32 copy of the matmul.
art::ProfileTable table() {
  art::VariantProfile v;
  v.entry = "entry0";
  v.ops = {{"fc", "MatMul", "f16", 600},
           {"fc_bias", "Add", "f16", 200},
           {"act", "Relu", "f16", 0},
           {"fc", "MatMul", "f32", 600}};
  v.rows = {{"loop", "main_graph_loop0", {0, 1}},
            {"loop", "main_graph_loop1", {2}},
            {"loop", "main_graph_loop2", {3}}};
  art::ProfileTable t;
  t.variants.push_back(v);
  return t;
}

art::Manifest manifest(uint64_t rows) {
  art::Manifest m;
  art::Variant v;
  v.entry = "entry0";
  v.profileRows = rows;
  m.variants.push_back(v);
  return m;
}

TEST(ProfileTableTest, RoundTrips) {
  art::ProfileTable t = table();
  t.variants[0].ops[0].name = "a node/with space";
  art::ProfileTable back;
  std::string error;
  ASSERT_TRUE(art::parseProfileTable(art::writeProfileTable(t), back, error))
      << error;
  ASSERT_EQ(back.variants.size(), 1u);
  EXPECT_EQ(back.variants[0].ops[0].name, "a node/with space");
  EXPECT_EQ(back.variants[0].ops[3].format, "f32");
  EXPECT_EQ(back.variants[0].rows[0].ops, (std::vector<uint32_t>{0, 1}));
}

TEST(ProfileTableTest, RefusesWhatItDidNotWrite) {
  std::string good = art::writeProfileTable(table());
  auto refused = [](const std::string &text) {
    art::ProfileTable t;
    std::string error;
    bool ok = art::parseProfileTable(text, t, error);
    return ok ? std::string() : error;
  };
  EXPECT_EQ(refused(good), "");
  EXPECT_NE(refused(""), "");
  EXPECT_NE(refused("dsmp-profile 2\n"), "");
  // A row naming an op its variant does not have.
  std::string outOfRange = good;
  outOfRange.replace(outOfRange.find("1 2\n"), 4, "1 9\n");
  EXPECT_NE(refused(outOfRange).find("not in its variant"), std::string::npos);
  // Fewer rows than the variant line announces.
  EXPECT_NE(refused(good.substr(0, good.rfind("row "))).find("missing"),
            std::string::npos);
  // An unknown row kind, and a huge count.
  std::string kind = good;
  kind.replace(kind.find("row loop"), 8, "row oops");
  EXPECT_NE(refused(kind), "");
  EXPECT_NE(refused("dsmp-profile 1\nvariant e 99999999999 1\n"), "");
}

TEST(ProfilerTest, SharesFusedTimeByFlopsAndCountsOnlyExecutedOps) {
  std::string error;
  void *self = dlopen(nullptr, RTLD_NOW);
  ASSERT_NE(self, nullptr);
  // The counters' rows must match the manifest's.
  EXPECT_EQ(dsmp::Profiler::create(table(), manifest(2), self, error), nullptr);
  EXPECT_NE(error.find("does not match"), std::string::npos);
  dsmp_profile_entry0[0][0] = 5; // before the profile starts: not counted
  auto profiler = dsmp::Profiler::create(table(), manifest(3), self, error);
  ASSERT_NE(profiler, nullptr) << error;
  // Two runs: the fused loop took 8 ms, the relu 2 ms, the FP32 branch
  // never ran.
  dsmp_profile_entry0[0][0] += 8000000;
  dsmp_profile_entry0[0][1] += 2;
  dsmp_profile_entry0[1][0] += 2000000;
  dsmp_profile_entry0[1][1] += 2;
  profiler->recordRun(0, 6000000);
  profiler->recordRun(0, 6000000);
  dsmp::ProfileReport r = profiler->report("art");
  EXPECT_EQ(r.runs, 2u);
  EXPECT_DOUBLE_EQ(r.seconds, 0.012);
  EXPECT_DOUBLE_EQ(r.timedSeconds, 0.010);
  ASSERT_EQ(r.ops.size(), 4u);
  // By time: the matmul has 3/4 of the fused loop's FLOPs.
  EXPECT_EQ(r.ops[0].name, "fc");
  EXPECT_EQ(r.ops[0].format, "f16");
  EXPECT_DOUBLE_EQ(r.ops[0].seconds, 0.006);
  EXPECT_DOUBLE_EQ(r.ops[0].flops, 1200);
  auto named = [&](const char *name) {
    for (const dsmp::OpProfile &op : r.ops)
      if (op.name == name)
        return op;
    return dsmp::OpProfile();
  };
  EXPECT_DOUBLE_EQ(named("fc_bias").seconds, 0.002);
  EXPECT_DOUBLE_EQ(named("fc_bias").flops, 400);
  EXPECT_DOUBLE_EQ(named("act").seconds, 0.002); // its loop alone
  EXPECT_EQ(named("act").runs, 2u);
  // The FP32 copy never ran: no time, no FLOPs, not in the f32 share.
  EXPECT_EQ(r.ops[3].format, "f32");
  EXPECT_EQ(r.ops[3].runs, 0u);
  EXPECT_DOUBLE_EQ(r.ops[3].flops, 0);
  // The call sites that ran, slowest first.
  ASSERT_EQ(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[0].callee, "main_graph_loop0");
  EXPECT_EQ(r.calls[0].calls, 2u);
  EXPECT_EQ(r.calls[0].ops, (std::vector<std::string>{"fc (MatMul, f16)",
                                                      "fc_bias (Add, f16)"}));
  std::vector<dsmp::FormatProfile> formats = r.formats();
  ASSERT_EQ(formats.size(), 1u);
  EXPECT_EQ(formats[0].format, "f16");
  EXPECT_EQ(formats[0].ops, 3u);
  EXPECT_DOUBLE_EQ(formats[0].flops, 1600);

  // Merged with itself (a train step and its monitored twin): doubled.
  dsmp::ProfileReport twice = r;
  twice.merge(r);
  EXPECT_EQ(twice.runs, 4u);
  EXPECT_EQ(twice.ops.size(), 4u);
  EXPECT_DOUBLE_EQ(twice.ops[0].seconds, 0.012);

  // After a reset the earlier runs are gone.
  profiler->reset();
  EXPECT_EQ(profiler->report("art").runs, 0u);
  EXPECT_DOUBLE_EQ(profiler->report("art").timedSeconds, 0);
}

TEST(ProfilerTest, JsonIsStrict) {
  dsmp::ProfileReport r;
  r.artifact = "a \"quoted\"\nname";
  r.runs = 1;
  r.seconds = 1;
  r.ops.push_back({"n", "Conv", "f16", 0.5, 3e12, 1});
  r.training = true;
  r.skippedSteps = 2;
  std::string json = r.json();
  EXPECT_NE(json.find("\"a \\\"quoted\\\"\\u000aname\""), std::string::npos);
  EXPECT_NE(json.find("\"flops\": 3000000000000"), std::string::npos);
  EXPECT_NE(json.find("\"skipped_steps\": 2"), std::string::npos);
  EXPECT_EQ(json.find("nan"), std::string::npos);
  EXPECT_NE(r.text().find("f16"), std::string::npos);
}

} // namespace
