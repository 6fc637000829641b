//===- LossScaler.cpp - Dynamic loss scaling --------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/LossScaler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace dsmp {

std::string LossScalerConfig::check() const {
  auto finitePositive = [](double v) { return std::isfinite(v) && v > 0; };
  if (!finitePositive(initialScale))
    return "the initial loss scale must be positive and finite";
  if (!dynamic)
    return "";
  if (!(growthFactor > 1) || !std::isfinite(growthFactor))
    return "the loss scale's growth factor must be above 1";
  if (!(backoffFactor > 0 && backoffFactor < 1))
    return "the loss scale's backoff factor must be in (0, 1)";
  if (growthInterval < 1)
    return "the loss scale's growth interval must be at least 1 step";
  if (hysteresis < 1)
    return "the loss scale's hysteresis must be at least 1 step";
  if (!finitePositive(minScale) || !finitePositive(maxScale))
    return "the loss scale's bounds must be positive and finite";
  if (minScale > maxScale)
    return "the loss scale's minimum is above its maximum";
  if (initialScale < minScale || initialScale > maxScale)
    return "the initial loss scale is outside [min, max]";
  return "";
}

LossScaler::LossScaler(const LossScalerConfig &config)
    : config_(config), scale_(config.initialScale) {}

void LossScaler::update(bool finite) {
  ++steps_;
  if (!finite) {
    ++skipped_;
    cleanRun_ = 0;
    if (config_.dynamic && ++overflowRun_ >= config_.hysteresis) {
      scale_ = std::max(config_.minScale, scale_ * config_.backoffFactor);
      overflowRun_ = 0;
    }
    return;
  }
  overflowRun_ = 0;
  if (config_.dynamic && ++cleanRun_ >= config_.growthInterval) {
    scale_ = std::min(config_.maxScale, scale_ * config_.growthFactor);
    cleanRun_ = 0;
  }
}

std::string LossScaler::toText() const {
  char text[160];
  // %a: the scale back bit for bit.
  std::snprintf(
      text, sizeof text, "%a %lld %lld %lld %lld", scale_,
      static_cast<long long>(cleanRun_), static_cast<long long>(overflowRun_),
      static_cast<long long>(skipped_), static_cast<long long>(steps_));
  return text;
}

bool LossScaler::fromText(const std::string &text) {
  std::istringstream in(text);
  std::string scaleText;
  long long clean = 0, overflow = 0, skipped = 0, steps = 0;
  if (!(in >> scaleText >> clean >> overflow >> skipped >> steps))
    return false;
  char *end = nullptr;
  double scale = std::strtod(scaleText.c_str(), &end);
  if (!end || *end || !std::isfinite(scale) || scale <= 0 || clean < 0 ||
      overflow < 0 || skipped < 0 || steps < skipped)
    return false;
  std::string rest;
  if (in >> rest)
    return false;
  scale_ = scale;
  cleanRun_ = clean;
  overflowRun_ = overflow;
  skipped_ = skipped;
  steps_ = steps;
  return true;
}

} // namespace dsmp
