//===- LossScaler.h - Dynamic loss scaling ----------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The loss scale a training step multiplies its loss by, kept where the
// gradients neither overflow nor vanish in their 16-bit formats, as
// PyTorch's GradScaler does: it starts high (2^16), halves after
// `hysteresis` consecutive steps whose gradients were not finite (the
// training step skips those: include/dsmp/runtime/TrainingSession.h), and
// doubles after `growthInterval` clean steps in a row. A static scale is
// the same object with `dynamic` off.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_RUNTIME_LOSSSCALER_H
#define DSMP_RUNTIME_LOSSSCALER_H

#include <cstdint>
#include <string>

namespace dsmp {

struct LossScalerConfig {
  bool dynamic = true;
  double initialScale = 65536;
  double growthFactor = 2;
  double backoffFactor = 0.5;
  int64_t growthInterval = 2000;
  double minScale = 1.0 / (1 << 24);
  double maxScale = 16777216.0; // 2^24
  /// Consecutive overflowing steps before the scale backs off.
  int64_t hysteresis = 1;

  /// A static scale.
  static LossScalerConfig fixed(double scale) {
    LossScalerConfig c;
    c.dynamic = false;
    c.initialScale = scale;
    c.minScale = c.maxScale = scale;
    return c;
  }
  /// Empty when the config is usable, else why not.
  std::string check() const;
};

class LossScaler {
public:
  explicit LossScaler(const LossScalerConfig &config = LossScalerConfig());

  float scale() const { return static_cast<float>(scale_); }
  /// After a step: `finite` says whether its gradients were (and so whether
  /// it was applied).
  void update(bool finite);
  /// A step skipped for a reason the scale cannot fix (a layer's forward
  /// pass overflowed): counted as skipped; the scale and its runs stay.
  void skipHeld() {
    ++steps_;
    ++skipped_;
  }
  bool atMin() const { return scale_ <= config_.minScale; }
  bool atMax() const { return scale_ >= config_.maxScale; }

  int64_t skippedSteps() const { return skipped_; }
  int64_t steps() const { return steps_; }
  const LossScalerConfig &config() const { return config_; }

  /// The state (scale, clean-step and overflow counters, totals) as one
  /// line, and back; fromText fails on anything it did not write.
  std::string toText() const;
  bool fromText(const std::string &text);

private:
  LossScalerConfig config_;
  double scale_;
  int64_t cleanRun_ = 0, overflowRun_ = 0, skipped_ = 0, steps_ = 0;
};

} // namespace dsmp

#endif // DSMP_RUNTIME_LOSSSCALER_H
