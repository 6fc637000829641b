//===- LayerFallback.h - When a layer falls back to FP32 -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A training artifact compiled with --fallback carries an FP32 variant of
// each layer (passes/Training/LayerFallback.h), chosen per step by the
// input `layer_fallback`. This policy decides which layers run it:
//
//  - overflow: a step whose gradients were not finite is diagnosed (the
//    monitored twin reruns the batch; the step changed nothing). The first
//    layer in forward order whose forward values are not finite caused it;
//    the loss scale cannot fix that, so the scale stays. Failing that, and
//    only when the scale is at its minimum (the scaler has nothing left),
//    the last layer whose gradients are not finite did. When one layer
//    caused at least `threshold` of the last `window` attempted steps, it
//    falls back;
//  - underflow: on a sampled step at the scaler's maximum scale, a layer
//    whose format rounds at least `threshold` of the non-zero gradient
//    values entering it to zero falls back;
//  - with `probation` > 0, a layer returns to its format after that many
//    applied steps in FP32 (and may fall back again).
//
// A switch only changes the selector: the master weights and the
// optimizer's state are outside the layers and carry on.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_RUNTIME_LAYERFALLBACK_H
#define DSMP_RUNTIME_LAYERFALLBACK_H

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace dsmp {

struct FallbackConfig {
  /// In (0, 1]; 0: the policy is off (no layer ever falls back).
  double threshold = 0;
  /// Attempted steps the overflow rate is measured over.
  int64_t window = 20;
  /// Applied steps in FP32 before a layer tries its format again; 0: never.
  int64_t probation = 0;
  bool enabled() const { return threshold > 0; }
  /// Empty when usable, else why not.
  std::string check() const;
};

/// One layer's measurements from the monitored step (layer_stats).
struct LayerStats {
  std::string name;
  float amax = 0;             // largest |forward value|
  float forwardNonFinite = 0; // 1: an inf or NaN among its forward values
  float reverseNonFinite = 0; // 1: an inf or NaN among its gradients
  float underflow = 0;        // of the non-zero gradient values entering it
  bool fp32 = false;          // it ran its FP32 variant
};

struct FallbackEvent {
  int64_t attempt = 0, step = 0;
  std::string layer;
  std::string action; // fallback, return
  std::string reason; // overflow, underflow, probation
  double rate = 0;
};

class FallbackPolicy {
public:
  FallbackPolicy() = default;
  FallbackPolicy(const FallbackConfig &config, std::vector<std::string> layers);

  const FallbackConfig &config() const { return config_; }
  const std::vector<std::string> &layers() const { return layers_; }
  /// The `layer_fallback` input: 1 for the layers that run FP32.
  const std::vector<float> &selector() const { return selector_; }
  int64_t fallbacks() const { return fallbacks_; }
  /// Forces a layer's variant (tests, a user's own policy).
  bool set(const std::string &layer, bool fp32);

  /// Which layer caused an overflowing step, from its stats; -1: none the
  /// policy acts on. `forward` says whether its forward pass overflowed
  /// (the loss scale cannot help).
  int culprit(const std::vector<LayerStats> &stats, bool scaleAtMin,
              bool &forward) const;
  /// After an attempted step: `culprit` (or -1), the sampled stats (empty
  /// when not sampled), whether it was applied and where the scale is.
  /// Returns the switches it made.
  std::vector<FallbackEvent> observe(int64_t attempt, int64_t step, int culprit,
                                     const std::vector<LayerStats> &stats,
                                     bool applied, bool scaleAtMax);

  /// The state (which layers run FP32, since when, recent overflows) as
  /// one line, and back; fromText fails on anything it did not write for
  /// these layers, changing nothing.
  std::string toText() const;
  bool fromText(const std::string &text);

private:
  FallbackConfig config_;
  std::vector<std::string> layers_;
  std::vector<float> selector_;
  /// Per layer: applied steps in FP32 so far, and the attempts at which it
  /// caused an overflow (within the window).
  std::vector<int64_t> fp32Steps_;
  std::vector<std::deque<int64_t>> overflows_;
  int64_t fallbacks_ = 0;
};

} // namespace dsmp

#endif // DSMP_RUNTIME_LAYERFALLBACK_H
