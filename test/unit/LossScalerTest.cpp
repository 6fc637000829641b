//===- LossScalerTest.cpp - The dynamic loss scaler -------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/LossScaler.h"
#include "dsmp/runtime/TrainingManifest.h"

#include <gtest/gtest.h>

using dsmp::LossScaler;
using dsmp::LossScalerConfig;

TEST(LossScaler, GrowsAfterTheIntervalAndBacksOffOnOverflow) {
  LossScalerConfig c;
  c.growthInterval = 3;
  LossScaler s(c);
  EXPECT_EQ(s.scale(), 65536.0f);
  s.update(true);
  s.update(true);
  EXPECT_EQ(s.scale(), 65536.0f);
  s.update(true);
  EXPECT_EQ(s.scale(), 131072.0f);
  s.update(false);
  EXPECT_EQ(s.scale(), 65536.0f);
  // An overflow restarts the clean run.
  s.update(true);
  s.update(true);
  s.update(false);
  s.update(true);
  s.update(true);
  EXPECT_EQ(s.scale(), 32768.0f);
  s.update(true);
  EXPECT_EQ(s.scale(), 65536.0f);
  EXPECT_EQ(s.skippedSteps(), 2);
  EXPECT_EQ(s.steps(), 10);
}

TEST(LossScaler, HysteresisWaitsForConsecutiveOverflows) {
  LossScalerConfig c;
  c.hysteresis = 2;
  LossScaler s(c);
  s.update(false);
  EXPECT_EQ(s.scale(), 65536.0f);
  s.update(true);
  s.update(false);
  EXPECT_EQ(s.scale(), 65536.0f);
  s.update(false);
  EXPECT_EQ(s.scale(), 32768.0f);
}

TEST(LossScaler, StaysWithinItsBounds) {
  LossScalerConfig c;
  c.initialScale = 4;
  c.minScale = 2;
  c.maxScale = 8;
  c.growthInterval = 1;
  LossScaler s(c);
  for (int i = 0; i < 5; ++i)
    s.update(true);
  EXPECT_EQ(s.scale(), 8.0f);
  for (int i = 0; i < 5; ++i)
    s.update(false);
  EXPECT_EQ(s.scale(), 2.0f);
}

TEST(LossScaler, FixedNeverMoves) {
  LossScaler s(LossScalerConfig::fixed(1024));
  s.update(false);
  for (int i = 0; i < 5000; ++i)
    s.update(true);
  EXPECT_EQ(s.scale(), 1024.0f);
  EXPECT_EQ(s.skippedSteps(), 1);
}

TEST(LossScaler, StateRoundTripsExactly) {
  LossScalerConfig c;
  c.growthInterval = 2;
  c.backoffFactor = 0.3; // not a power of two: the text must keep every bit
  LossScaler s(c);
  s.update(false);
  s.update(true);
  LossScaler t(c);
  ASSERT_TRUE(t.fromText(s.toText()));
  EXPECT_EQ(t.toText(), s.toText());
  EXPECT_EQ(t.scale(), s.scale());
  s.update(true);
  t.update(true);
  EXPECT_EQ(t.scale(), s.scale());
  EXPECT_FALSE(t.fromText(""));
  EXPECT_FALSE(t.fromText("0x1p+16 0 0 5 3")); // more skipped than steps
  EXPECT_FALSE(t.fromText("-1 0 0 0 0"));
  EXPECT_FALSE(t.fromText("0x1p+16 0 0 0 0 extra"));
  EXPECT_EQ(t.toText(), s.toText()); // a refused text changes nothing
}

TEST(LossScaler, RefusesBadSettings) {
  auto why = [](auto edit) {
    LossScalerConfig c;
    edit(c);
    return c.check();
  };
  EXPECT_EQ(why([](LossScalerConfig &) {}), "");
  EXPECT_NE(why([](LossScalerConfig &c) { c.growthFactor = 1; }), "");
  EXPECT_NE(why([](LossScalerConfig &c) { c.backoffFactor = 1; }), "");
  EXPECT_NE(why([](LossScalerConfig &c) { c.backoffFactor = 0; }), "");
  EXPECT_NE(why([](LossScalerConfig &c) { c.growthInterval = 0; }), "");
  EXPECT_NE(why([](LossScalerConfig &c) {
              c.minScale = 8;
              c.maxScale = 4;
            }),
            "");
  EXPECT_NE(why([](LossScalerConfig &c) { c.initialScale = 0; }), "");
  EXPECT_EQ(LossScalerConfig::fixed(3).check(), "");
}

TEST(TrainingManifest, RoundTripsAndRefusesDamage) {
  dsmp::training::TrainingManifest m;
  m.source = "model with space.onnx";
  m.loss = "cross_entropy";
  m.optimizer = "adam";
  m.target = "sm_80";
  m.beta1 = 0.9;
  m.batch = 4;
  m.inputs = {"image"};
  m.labelsDtype = "i64";
  m.labelsDims = {4};
  m.state.push_back({"w", "weight", "w", "f32", {2, 3}, "uniform", 3});
  m.state.push_back({"w.adam_m", "adam_m", "w", "bf16", {2, 3}});
  m.initial = {"state.bin", 2 * 3 * 4 + 2 * 3 * 2, 0x1234};
  std::string text = dsmp::training::writeTrainingManifest(m), error;
  dsmp::training::TrainingManifest back;
  ASSERT_TRUE(dsmp::training::parseTrainingManifest(text, back, error))
      << error;
  EXPECT_EQ(back.source, m.source);
  EXPECT_EQ(back.beta1, 0.9);
  EXPECT_EQ(back.state.size(), 2u);
  EXPECT_EQ(back.state[0].init, "uniform");
  EXPECT_EQ(back.state[0].fanIn, 3);
  EXPECT_EQ(back.state[1].dtype, "bf16");
  EXPECT_EQ(dsmp::training::stateLayoutHash(back),
            dsmp::training::stateLayoutHash(m));
  // The state's byte count must match state.bin's.
  std::string wrongSize = text;
  wrongSize.replace(wrongSize.find("initial state.bin 36"), 20,
                    "initial state.bin 37");
  dsmp::training::TrainingManifest bad;
  EXPECT_FALSE(dsmp::training::parseTrainingManifest(wrongSize, bad, error));
  EXPECT_NE(error.find("state.bin 37"), std::string::npos) << error;
  std::string wrongRole = text;
  wrongRole.replace(wrongRole.find("adam_m adam_m"), 13, "adam_m nesterov");
  EXPECT_FALSE(dsmp::training::parseTrainingManifest(wrongRole, bad, error));
  EXPECT_NE(error.find("unknown state role"), std::string::npos) << error;
}
