//===- LayerFallback.cpp - When a layer falls back to FP32 -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/LayerFallback.h"

#include <cmath>
#include <sstream>

namespace dsmp {

std::string FallbackConfig::check() const {
  if (!(threshold >= 0 && threshold <= 1) || std::isnan(threshold))
    return "the fallback threshold must be in (0, 1] (0: off)";
  if (window < 1)
    return "the fallback window must be at least 1 step";
  if (probation < 0)
    return "the fallback probation must be 0 (never return) or more steps";
  return "";
}

FallbackPolicy::FallbackPolicy(const FallbackConfig &config,
                               std::vector<std::string> layers)
    : config_(config), layers_(std::move(layers)),
      selector_(layers_.size(), 0.0f), fp32Steps_(layers_.size(), 0),
      overflows_(layers_.size()) {}

bool FallbackPolicy::set(const std::string &layer, bool fp32) {
  for (size_t k = 0; k < layers_.size(); ++k)
    if (layers_[k] == layer) {
      selector_[k] = fp32 ? 1.0f : 0.0f;
      fp32Steps_[k] = 0;
      overflows_[k].clear();
      return true;
    }
  return false;
}

int FallbackPolicy::culprit(const std::vector<LayerStats> &stats,
                            bool scaleAtMin, bool &forward) const {
  forward = false;
  // The first layer whose forward values are not finite: everything after
  // it only carries its inf/NaN on. An FP32 layer there is no precision
  // problem.
  for (size_t k = 0; k < stats.size() && k < layers_.size(); ++k)
    if (stats[k].forwardNonFinite > 0) {
      forward = true;
      return selector_[k] == 0 ? static_cast<int>(k) : -1;
    }
  if (!scaleAtMin)
    return -1; // the scaler backs off: its job
  for (size_t k = std::min(stats.size(), layers_.size()); k-- > 0;)
    if (stats[k].reverseNonFinite > 0)
      return selector_[k] == 0 ? static_cast<int>(k) : -1;
  return -1;
}

std::vector<FallbackEvent>
FallbackPolicy::observe(int64_t attempt, int64_t step, int culprit,
                        const std::vector<LayerStats> &stats, bool applied,
                        bool scaleAtMax) {
  std::vector<FallbackEvent> events;
  if (!config_.enabled())
    return events;
  auto fallBack = [&](size_t k, const char *reason, double rate) {
    selector_[k] = 1.0f;
    fp32Steps_[k] = 0;
    overflows_[k].clear();
    ++fallbacks_;
    events.push_back({attempt, step, layers_[k], "fallback", reason, rate});
  };
  if (culprit >= 0 && static_cast<size_t>(culprit) < layers_.size())
    overflows_[culprit].push_back(attempt);
  for (size_t k = 0; k < layers_.size(); ++k) {
    std::deque<int64_t> &recent = overflows_[k];
    while (!recent.empty() && recent.front() <= attempt - config_.window)
      recent.pop_front();
    if (selector_[k] != 0) {
      if (applied && config_.probation > 0 &&
          ++fp32Steps_[k] >= config_.probation) {
        selector_[k] = 0.0f;
        fp32Steps_[k] = 0;
        events.push_back({attempt, step, layers_[k], "return", "probation", 0});
      }
      continue;
    }
    double rate = static_cast<double>(recent.size()) /
                  static_cast<double>(config_.window);
    if (rate >= config_.threshold) {
      fallBack(k, "overflow", rate);
      continue;
    }
    if (scaleAtMax && k < stats.size() &&
        stats[k].underflow >= config_.threshold)
      fallBack(k, "underflow", stats[k].underflow);
  }
  return events;
}

std::string FallbackPolicy::toText() const {
  std::ostringstream os;
  os << "fallback " << layers_.size() << " " << fallbacks_;
  for (size_t k = 0; k < layers_.size(); ++k) {
    os << " " << (selector_[k] != 0) << " " << fp32Steps_[k] << " "
       << overflows_[k].size();
    for (int64_t a : overflows_[k])
      os << " " << a;
  }
  return os.str();
}

bool FallbackPolicy::fromText(const std::string &text) {
  std::istringstream in(text);
  std::string word;
  size_t count = 0;
  long long total = 0;
  if (!(in >> word >> count >> total) || word != "fallback" ||
      count != layers_.size() || total < 0)
    return false;
  std::vector<float> selector(count);
  std::vector<int64_t> steps(count);
  std::vector<std::deque<int64_t>> overflows(count);
  for (size_t k = 0; k < count; ++k) {
    int fp32 = 0;
    long long s = 0;
    size_t n = 0;
    if (!(in >> fp32 >> s >> n) || (fp32 != 0 && fp32 != 1) || s < 0 ||
        n > 1000000)
      return false;
    selector[k] = static_cast<float>(fp32);
    steps[k] = s;
    for (size_t i = 0; i < n; ++i) {
      long long a = 0;
      if (!(in >> a) || a < 0)
        return false;
      overflows[k].push_back(a);
    }
  }
  if (in >> word)
    return false;
  selector_ = std::move(selector);
  fp32Steps_ = std::move(steps);
  overflows_ = std::move(overflows);
  fallbacks_ = total;
  return true;
}

} // namespace dsmp
