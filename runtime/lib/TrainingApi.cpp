//===- TrainingApi.cpp - The runtime's training C API -----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// dsmprt_training.h over TrainingLoop (TrainingLoop.h).
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/dsmprt_training.h"

#include "dsmp/runtime/TrainingLoop.h"
#include "runtime/lib/LastError.h"

#include <memory>
#include <string>

struct dsmp_trainer {
  std::unique_ptr<dsmp::TrainingLoop> loop;
  std::string profile; // the last dsmp_trainer_profile_json/_text
};

namespace {

dsmp::DataView viewOf(const void *const *inputs, size_t numInputs,
                      const void *labels, int64_t samples) {
  dsmp::DataView v;
  v.inputs.assign(inputs, inputs + numInputs);
  v.labels = labels;
  v.size = samples;
  return v;
}

} // namespace

void dsmp_trainer_default_options(dsmp_trainer_options *o) {
  if (!o)
    return;
  dsmp::LossScalerConfig dynamic;
  o->learning_rate = 1e-3;
  o->seed = 0;
  o->verbose = 0;
  o->dynamic_loss_scale = 0;
  o->initial_scale = 1;
  o->growth_factor = dynamic.growthFactor;
  o->backoff_factor = dynamic.backoffFactor;
  o->growth_interval = dynamic.growthInterval;
  o->min_scale = dynamic.minScale;
  o->max_scale = dynamic.maxScale;
  o->hysteresis = dynamic.hysteresis;
  o->monitor_every = 0;
  o->monitor_log = nullptr;
  dsmp::FallbackConfig fallback;
  o->fallback_threshold = fallback.threshold;
  o->fallback_window = fallback.window;
  o->fallback_probation = fallback.probation;
}

int dsmp_trainer_load(const char *artifactDir,
                      const dsmp_trainer_options *options,
                      dsmp_trainer **trainer) {
  if (!trainer || !artifactDir)
    return dsmprt::setLastError("dsmp_trainer_load: NULL argument");
  *trainer = nullptr;
  dsmp_trainer_options o;
  dsmp_trainer_default_options(&o);
  if (options)
    o = *options;
  dsmp::TrainingLoopOptions loop;
  loop.learningRate = o.learning_rate;
  loop.seed = o.seed;
  loop.verbose = o.verbose != 0;
  if (o.dynamic_loss_scale) {
    loop.scaler.dynamic = true;
    loop.scaler.initialScale = o.initial_scale;
    loop.scaler.growthFactor = o.growth_factor;
    loop.scaler.backoffFactor = o.backoff_factor;
    loop.scaler.growthInterval = o.growth_interval;
    loop.scaler.minScale = o.min_scale;
    loop.scaler.maxScale = o.max_scale;
    loop.scaler.hysteresis = o.hysteresis;
  } else {
    loop.scaler = dsmp::LossScalerConfig::fixed(o.initial_scale);
  }
  loop.monitorEvery = o.monitor_every;
  loop.monitorLog = o.monitor_log ? o.monitor_log : "";
  loop.fallback.threshold = o.fallback_threshold;
  loop.fallback.window = o.fallback_window;
  loop.fallback.probation = o.fallback_probation;
  std::string error;
  if (std::string why = loop.scaler.check(); !why.empty())
    return dsmprt::setLastError(why);
  if (std::string why = loop.fallback.check(); !why.empty())
    return dsmprt::setLastError(why);
  auto session = dsmp::TrainingSession::load(artifactDir, error);
  if (!session)
    return dsmprt::setLastError(error);
  auto made =
      dsmp::TrainingLoop::create(std::move(session), nullptr, loop, error);
  if (!made)
    return dsmprt::setLastError(error);
  *trainer = new dsmp_trainer{std::move(made)};
  return 0;
}

void dsmp_trainer_free(dsmp_trainer *trainer) { delete trainer; }

int dsmp_trainer_initialize(dsmp_trainer *trainer, uint64_t seed) {
  if (!trainer)
    return dsmprt::setLastError("dsmp_trainer_initialize: trainer is NULL");
  trainer->loop->session().initialize(seed);
  return 0;
}

int dsmp_trainer_train(dsmp_trainer *trainer, const void *const *inputs,
                       size_t numInputs, const void *labels, int64_t samples,
                       int epochs) {
  if (!trainer || (!inputs && numInputs) || !labels)
    return dsmprt::setLastError("dsmp_trainer_train: NULL argument");
  std::string error;
  if (!trainer->loop->train(viewOf(inputs, numInputs, labels, samples), epochs,
                            nullptr, error))
    return dsmprt::setLastError(error);
  return 0;
}

int dsmp_trainer_evaluate(dsmp_trainer *trainer, const void *const *inputs,
                          size_t numInputs, const void *labels, int64_t samples,
                          double *loss, double *accuracy) {
  if (!trainer || (!inputs && numInputs) || !labels)
    return dsmprt::setLastError("dsmp_trainer_evaluate: NULL argument");
  dsmp::Evaluation result;
  std::string error;
  if (!trainer->loop->evaluate(viewOf(inputs, numInputs, labels, samples),
                               result, error))
    return dsmprt::setLastError(error);
  if (loss)
    *loss = result.loss;
  if (accuracy)
    *accuracy = result.accuracy;
  return 0;
}

int64_t dsmp_trainer_steps(const dsmp_trainer *trainer) {
  return trainer ? trainer->loop->session().step() : 0;
}

int64_t dsmp_trainer_skipped_steps(const dsmp_trainer *trainer) {
  return trainer ? trainer->loop->scaler().skippedSteps() : 0;
}

double dsmp_trainer_loss_scale(const dsmp_trainer *trainer) {
  return trainer ? trainer->loop->scaler().scale() : 0;
}

const float *dsmp_trainer_weight(const dsmp_trainer *trainer, const char *name,
                                 size_t *count) {
  if (!trainer || !name)
    return nullptr;
  return trainer->loop->session().weight(name, count);
}

int dsmp_trainer_save(const dsmp_trainer *trainer, const char *path) {
  if (!trainer || !path)
    return dsmprt::setLastError("dsmp_trainer_save: NULL argument");
  std::string error;
  if (!trainer->loop->save(path, "C API", error))
    return dsmprt::setLastError(error);
  return 0;
}

int dsmp_trainer_load_checkpoint(dsmp_trainer *trainer, const char *path) {
  if (!trainer || !path)
    return dsmprt::setLastError("dsmp_trainer_load_checkpoint: NULL argument");
  std::string error;
  if (!trainer->loop->load(path, error))
    return dsmprt::setLastError(error);
  return 0;
}

size_t dsmp_trainer_num_gradient_stats(const dsmp_trainer *trainer) {
  return trainer ? trainer->loop->gradientStats().size() : 0;
}

int dsmp_trainer_gradient_stats(const dsmp_trainer *trainer, size_t i,
                                const char **name, float stats[4]) {
  if (!trainer || !stats)
    return dsmprt::setLastError("dsmp_trainer_gradient_stats: NULL argument");
  const auto &all = trainer->loop->gradientStats();
  if (i >= all.size())
    return dsmprt::setLastError("dsmp_trainer_gradient_stats: no weight " +
                                std::to_string(i) + " in the last sample (" +
                                std::to_string(all.size()) + " weights)");
  const dsmp::GradientStats &g = all[i];
  if (name)
    *name = g.name.c_str();
  stats[0] = g.amax;
  stats[1] = g.zeroFraction;
  stats[2] = static_cast<float>(g.infCount);
  stats[3] = static_cast<float>(g.nanCount);
  return 0;
}

size_t dsmp_trainer_num_layers(const dsmp_trainer *trainer) {
  return trainer ? trainer->loop->session().layers().size() : 0;
}

const char *dsmp_trainer_layer_name(const dsmp_trainer *trainer, size_t k) {
  if (!trainer || k >= trainer->loop->session().layers().size())
    return nullptr;
  return trainer->loop->session().layers()[k].c_str();
}

int dsmp_trainer_layer_is_fp32(const dsmp_trainer *trainer, size_t k) {
  if (!trainer)
    return 0;
  const std::vector<float> &selector = trainer->loop->fallback().selector();
  return k < selector.size() && selector[k] != 0;
}

int dsmp_trainer_layer_stats(const dsmp_trainer *trainer, size_t k,
                             float stats[4]) {
  if (!trainer || !stats)
    return dsmprt::setLastError("dsmp_trainer_layer_stats: NULL argument");
  const auto &layers = trainer->loop->layerStats();
  if (k >= layers.size())
    return dsmprt::setLastError(
        "dsmp_trainer_layer_stats: no statistics for layer " +
        std::to_string(k) + " (none sampled yet, or no such layer)");
  stats[0] = layers[k].amax;
  stats[1] = layers[k].forwardNonFinite;
  stats[2] = layers[k].reverseNonFinite;
  stats[3] = layers[k].underflow;
  return 0;
}

int64_t dsmp_trainer_fallbacks(const dsmp_trainer *trainer) {
  return trainer ? trainer->loop->fallback().fallbacks() : 0;
}

static bool checkProfiled(const dsmp_trainer *trainer, const char *what) {
  if (!trainer) {
    dsmprt::setLastError(std::string(what) + ": trainer is NULL");
    return false;
  }
  if (!trainer->loop->profiled()) {
    dsmprt::setLastError(std::string(what) +
                         ": the training artifact was not compiled with "
                         "--profile (dsmp-compile --train --profile)");
    return false;
  }
  return true;
}

const char *dsmp_trainer_profile_json(dsmp_trainer *trainer) {
  if (!checkProfiled(trainer, "dsmp_trainer_profile_json"))
    return nullptr;
  trainer->profile = trainer->loop->profile().json();
  return trainer->profile.c_str();
}

const char *dsmp_trainer_profile_text(dsmp_trainer *trainer, size_t top_ops) {
  if (!checkProfiled(trainer, "dsmp_trainer_profile_text"))
    return nullptr;
  trainer->profile = trainer->loop->profile().text(top_ops);
  return trainer->profile.c_str();
}

int dsmp_trainer_profile_reset(dsmp_trainer *trainer) {
  if (!checkProfiled(trainer, "dsmp_trainer_profile_reset"))
    return -1;
  trainer->loop->resetProfile();
  return 0;
}
