//===- LayerFallbackTest.cpp - When a layer falls back to FP32 --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/LayerFallback.h"

#include <gtest/gtest.h>

using dsmp::FallbackConfig;
using dsmp::FallbackPolicy;
using dsmp::LayerStats;

namespace {

std::vector<LayerStats> stats(std::vector<float> forward,
                              std::vector<float> reverse) {
  std::vector<LayerStats> out(forward.size());
  for (size_t k = 0; k < forward.size(); ++k) {
    out[k].forwardNonFinite = forward[k];
    out[k].reverseNonFinite = reverse[k];
  }
  return out;
}

FallbackConfig config(double threshold, int64_t window, int64_t probation = 0) {
  FallbackConfig c;
  c.threshold = threshold;
  c.window = window;
  c.probation = probation;
  return c;
}

} // namespace

TEST(FallbackPolicy, TheFirstLayerWhoseForwardPassOverflowedIsTheCulprit) {
  FallbackPolicy p(config(0.5, 4), {"a", "b", "c"});
  bool forward = false;
  // b overflowed and c carried it on.
  EXPECT_EQ(p.culprit(stats({0, 3, 9}, {0, 0, 0}), false, forward), 1);
  EXPECT_TRUE(forward);
  // A gradient overflow is the scaler's, unless its scale is at the floor;
  // then the layer nearest the loss whose gradients overflowed.
  EXPECT_EQ(p.culprit(stats({0, 0, 0}, {2, 2, 0}), false, forward), -1);
  EXPECT_FALSE(forward);
  EXPECT_EQ(p.culprit(stats({0, 0, 0}, {2, 2, 0}), true, forward), 1);
  // An FP32 layer that overflows is no precision problem.
  ASSERT_TRUE(p.set("b", true));
  EXPECT_EQ(p.culprit(stats({0, 3, 9}, {0, 0, 0}), false, forward), -1);
  EXPECT_TRUE(forward);
}

TEST(FallbackPolicy, FallsBackWhenTheRateOverTheWindowReachesTheThreshold) {
  FallbackPolicy p(config(0.5, 4), {"a", "b"});
  EXPECT_TRUE(p.observe(1, 0, 1, {}, false, false).empty());
  EXPECT_TRUE(p.observe(2, 0, -1, {}, true, false).empty());
  EXPECT_TRUE(p.observe(3, 1, -1, {}, true, false).empty());
  EXPECT_TRUE(p.observe(4, 2, -1, {}, true, false).empty());
  // The overflow at attempt 1 left the window: one in four again.
  EXPECT_TRUE(p.observe(5, 3, 1, {}, false, false).empty());
  auto events = p.observe(6, 3, 1, {}, false, false);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].layer, "b");
  EXPECT_EQ(events[0].action, "fallback");
  EXPECT_EQ(events[0].reason, "overflow");
  EXPECT_DOUBLE_EQ(events[0].rate, 0.5);
  EXPECT_EQ(p.selector(), (std::vector<float>{0, 1}));
  EXPECT_EQ(p.fallbacks(), 1);
}

TEST(FallbackPolicy, UnderflowCountsOnlyAtTheLargestScale) {
  FallbackPolicy p(config(0.5, 4), {"a"});
  std::vector<LayerStats> s(1);
  s[0].underflow = 0.8f;
  EXPECT_TRUE(p.observe(1, 1, -1, s, true, /*scaleAtMax=*/false).empty());
  auto events = p.observe(2, 2, -1, s, true, /*scaleAtMax=*/true);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].reason, "underflow");
}

TEST(FallbackPolicy, ProbationReturnsAfterAppliedSteps) {
  FallbackPolicy p(config(1.0, 1, /*probation=*/2), {"a"});
  ASSERT_EQ(p.observe(1, 0, 0, {}, false, false).size(), 1u);
  EXPECT_TRUE(p.observe(2, 0, -1, {}, false, false).empty()); // skipped
  EXPECT_TRUE(p.observe(3, 1, -1, {}, true, false).empty());
  auto events = p.observe(4, 2, -1, {}, true, false);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].action, "return");
  EXPECT_EQ(p.selector(), (std::vector<float>{0}));
}

TEST(FallbackPolicy, StateRoundTripsAndDamageIsRefused) {
  FallbackPolicy p(config(0.5, 8), {"a", "b"});
  (void)p.observe(1, 0, 0, {}, false, false);
  (void)p.observe(2, 0, 0, {}, false, false);
  (void)p.observe(3, 0, 0, {}, false, false);
  (void)p.observe(4, 0, 0, {}, false, false);
  (void)p.observe(5, 0, 1, {}, false, false);
  std::string text = p.toText();
  FallbackPolicy q(config(0.5, 8), {"a", "b"});
  ASSERT_TRUE(q.fromText(text));
  EXPECT_EQ(q.toText(), text);
  EXPECT_EQ(q.selector(), p.selector());
  EXPECT_EQ(q.fallbacks(), 1);
  // Another model's layers, trailing junk, a bad flag: refused, unchanged.
  FallbackPolicy other(config(0.5, 8), {"a"});
  EXPECT_FALSE(other.fromText(text));
  EXPECT_FALSE(q.fromText(text + " 7"));
  EXPECT_FALSE(q.fromText("fallback 2 0 2 0 0 0 0 0"));
  EXPECT_EQ(q.toText(), text);
}

TEST(FallbackConfig, RefusesBadSettings) {
  EXPECT_EQ(config(0, 20).check(), "");
  EXPECT_NE(config(1.5, 20).check(), "");
  EXPECT_NE(config(-0.1, 20).check(), "");
  EXPECT_NE(config(0.5, 0).check(), "");
  EXPECT_NE(config(0.5, 20, -1).check(), "");
}
