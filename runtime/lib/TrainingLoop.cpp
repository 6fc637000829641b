//===- TrainingLoop.cpp - Epochs of a compiled training step ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/TrainingLoop.h"

#include "Json.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>

#include <unistd.h>

namespace dsmp {

std::unique_ptr<TrainingLoop>
TrainingLoop::create(std::unique_ptr<TrainingSession> session,
                     std::unique_ptr<TrainingSession> warmup,
                     const TrainingLoopOptions &options, std::string &error) {
  if (!session) {
    error = "no training session";
    return nullptr;
  }
  if (std::string why = options.scaler.check(); !why.empty()) {
    error = why;
    return nullptr;
  }
  if (options.monitorEvery < 0) {
    error = "the monitor's interval must be 0 (off) or more steps";
    return nullptr;
  }
  if (options.monitorEvery > 0 && !session->hasMonitor()) {
    error = "the training artifact has no monitored step (dsmp-compile "
            "--train --monitor)";
    return nullptr;
  }
  if (std::string why = options.fallback.check(); !why.empty()) {
    error = why;
    return nullptr;
  }
  if (options.fallback.enabled() &&
      (session->layers().empty() || !session->hasMonitor())) {
    error = "the training artifact has no FP32 layer variants (dsmp-compile "
            "--train --fallback)";
    return nullptr;
  }
  std::unique_ptr<TrainingLoop> loop(new TrainingLoop());
  // A log that cannot be written fails now, not in the middle of a run.
  if (!options.monitorLog.empty()) {
    loop->log_ = std::fopen(options.monitorLog.c_str(), "a");
    if (!loop->log_) {
      error = "cannot write the monitor log '" + options.monitorLog +
              "': " + std::strerror(errno);
      return nullptr;
    }
  }
  loop->options_ = options;
  loop->session_ = std::move(session);
  loop->warmup_ = std::move(warmup);
  loop->switched_ = !loop->warmup_ || options.precisionSchedule <= 0;
  loop->scaler_ = LossScaler(options.scaler);
  loop->fallback_ = FallbackPolicy(options.fallback, loop->session_->layers());
  return loop;
}

TrainingLoop::~TrainingLoop() {
  if (log_)
    std::fclose(log_);
}

using dsmprt::jsonNumber;
using dsmprt::jsonString;

bool TrainingLoop::record(const StepResult &r, float scale,
                          const std::vector<float> &stats, std::string &error) {
  lastStats_.clear();
  size_t k = 0;
  for (const auto &spec : active()->manifest().state) {
    if (spec.role != "weight")
      continue;
    GradientStats g;
    g.name = spec.name;
    g.amax = stats[4 * k];
    g.zeroFraction = stats[4 * k + 1];
    g.infCount = static_cast<int64_t>(stats[4 * k + 2]);
    g.nanCount = static_cast<int64_t>(stats[4 * k + 3]);
    lastStats_.push_back(g);
    ++k;
  }
  lastStatsStep_ = attempts_;
  if (!log_)
    return true;
  std::string line = "{\"attempt\": " + std::to_string(attempts_) +
                     ", \"step\": " + std::to_string(active()->step()) +
                     ", \"applied\": " + (r.applied ? "true" : "false") +
                     ", \"loss\": " + jsonNumber(r.loss) +
                     ", \"grad_norm\": " + jsonNumber(r.gradNorm) +
                     ", \"loss_scale\": " + jsonNumber(scale) +
                     ", \"next_loss_scale\": " + jsonNumber(scaler_.scale()) +
                     ", \"tensors\": {";
  for (size_t i = 0; i < lastStats_.size(); ++i) {
    const GradientStats &g = lastStats_[i];
    line += (i ? ", " : "") + jsonString(g.name) +
            ": {\"amax\": " + jsonNumber(g.amax) +
            ", \"zero_fraction\": " + jsonNumber(g.zeroFraction) +
            ", \"inf\": " + std::to_string(g.infCount) +
            ", \"nan\": " + std::to_string(g.nanCount) + "}";
  }
  line += "}";
  if (!lastLayers_.empty()) {
    line += ", \"layers\": {";
    for (size_t i = 0; i < lastLayers_.size(); ++i) {
      const LayerStats &l = lastLayers_[i];
      line += (i ? ", " : "") + jsonString(l.name) +
              ": {\"format\": " + (l.fp32 ? "\"f32\"" : "\"16-bit\"") +
              ", \"amax\": " + jsonNumber(l.amax) +
              ", \"forward_nonfinite\": " + jsonNumber(l.forwardNonFinite) +
              ", \"gradient_nonfinite\": " + jsonNumber(l.reverseNonFinite) +
              ", \"underflow\": " + jsonNumber(l.underflow) + "}";
    }
    line += "}";
  }
  return writeLog(line + "}\n", error);
}

bool TrainingLoop::writeLog(const std::string &line, std::string &error) {
  if (!log_)
    return true;
  if (std::fputs(line.c_str(), log_) < 0 || std::fflush(log_) != 0) {
    error = "cannot write the monitor log '" + options_.monitorLog +
            "': " + std::strerror(errno);
    return false;
  }
  return true;
}

void TrainingLoop::readLayerStats(const std::vector<float> &values) {
  const std::vector<std::string> &layers = active()->layers();
  const std::vector<float> &selector = active()->layerSelector();
  lastLayers_.clear();
  for (size_t k = 0; k < layers.size() && 4 * k + 3 < values.size(); ++k) {
    LayerStats l;
    l.name = layers[k];
    l.amax = values[4 * k];
    l.forwardNonFinite = values[4 * k + 1];
    l.reverseNonFinite = values[4 * k + 2];
    l.underflow = values[4 * k + 3];
    l.fp32 = k < selector.size() && selector[k] != 0;
    lastLayers_.push_back(l);
  }
}

bool TrainingLoop::logEvents(const std::vector<FallbackEvent> &events,
                             std::string &error) {
  for (const FallbackEvent &e : events) {
    events_.push_back(e);
    if (options_.verbose)
      std::fprintf(stderr,
                   e.action == "fallback"
                       ? "%sdsmp: layer '%s' falls back to FP32 at step %lld "
                         "(%s rate %.2f >= %.2f)\n"
                       : "%sdsmp: layer '%s' returns to its format at step "
                         "%lld (%s)\n",
                   isatty(fileno(stderr)) ? "\r\033[K" : "", e.layer.c_str(),
                   static_cast<long long>(e.step), e.reason.c_str(), e.rate,
                   options_.fallback.threshold);
    if (!writeLog("{\"event\": " + jsonString(e.action) +
                      ", \"attempt\": " + std::to_string(e.attempt) +
                      ", \"step\": " + std::to_string(e.step) +
                      ", \"layer\": " + jsonString(e.layer) +
                      ", \"reason\": " + jsonString(e.reason) + ", \"rate\": " +
                      jsonNumber(e.rate) + ", \"threshold\": " +
                      jsonNumber(options_.fallback.threshold) + "}\n",
                  error))
      return false;
  }
  return true;
}

bool TrainingLoop::forceLayerOverflow(const std::string &layer, float factor,
                                      std::string &error) {
  bool any = false;
  for (TrainingSession *s : {session_.get(), warmup_.get()})
    if (s && !s->layers().empty()) {
      if (!s->setLayerFault(layer, factor, error))
        return false;
      any = true;
    }
  if (!any)
    error = "the training artifact has no FP32 layer variants (dsmp-compile "
            "--train --fallback --fault-injection)";
  return any;
}

TrainingSession *TrainingLoop::active() const {
  return switched_ ? session_.get() : warmup_.get();
}

/// A schedule's FP32 steps hand the state to the configured formats once
/// they reach K.
bool TrainingLoop::handOver(std::string &error) {
  if (switched_ || warmup_->step() < options_.precisionSchedule)
    return true;
  if (!session_->adoptState(*warmup_, error))
    return false;
  switched_ = true;
  return true;
}

size_t TrainingLoop::weightCount() const {
  size_t n = 0;
  for (const auto &spec : active()->manifest().state)
    n += spec.role == "weight";
  return n;
}

bool TrainingLoop::batchOf(const DataView &data,
                           const std::vector<int64_t> &rows,
                           std::string &error) {
  const training::TrainingManifest &m = active()->manifest();
  if (data.inputs.size() != m.inputs.size()) {
    error = "the model takes " + std::to_string(m.inputs.size()) +
            " inputs, the data has " + std::to_string(data.inputs.size());
    return false;
  }
  batchInputs_.resize(data.inputs.size());
  for (size_t i = 0; i < data.inputs.size(); ++i) {
    int64_t bytes = active()->inputSampleBytes(i);
    batchInputs_[i].resize(static_cast<size_t>(bytes) * rows.size());
    const unsigned char *from =
        static_cast<const unsigned char *>(data.inputs[i]);
    for (size_t r = 0; r < rows.size(); ++r)
      std::memcpy(batchInputs_[i].data() + r * bytes, from + rows[r] * bytes,
                  bytes);
  }
  if (data.labels) {
    int64_t bytes = active()->labelSampleBytes();
    batchLabels_.resize(static_cast<size_t>(bytes) * rows.size());
    const unsigned char *from = static_cast<const unsigned char *>(data.labels);
    for (size_t r = 0; r < rows.size(); ++r)
      std::memcpy(batchLabels_.data() + r * bytes, from + rows[r] * bytes,
                  bytes);
  }
  return true;
}

namespace {

/// A progress bar on a terminal, one line per epoch otherwise.
class EpochProgress {
public:
  EpochProgress(bool enabled, int epoch, int epochs, int64_t steps)
      : enabled(enabled), tty(isatty(fileno(stderr))), epoch(epoch),
        epochs(epochs), steps(steps) {}
  void update(int64_t done, double loss, double rate, float scale,
              int64_t fallbacks) {
    if (!enabled || !tty)
      return;
    constexpr int kWidth = 24;
    int filled = steps ? static_cast<int>(kWidth * done / steps) : kWidth;
    std::fprintf(
        stderr,
        "\repoch %d/%d [%s%s] %lld/%lld loss %.4f %.0f samples/s scale %g "
        "fallbacks %lld ",
        epoch, epochs, std::string(filled, '#').c_str(),
        std::string(kWidth - filled, '.').c_str(), static_cast<long long>(done),
        static_cast<long long>(steps), loss, rate, scale,
        static_cast<long long>(fallbacks));
    std::fflush(stderr);
  }
  void finish(const EpochStats &s, float scale, int64_t fallbacks) {
    if (!enabled)
      return;
    std::fprintf(stderr,
                 "%sepoch %d/%d: loss %.4f, %.0f samples/s, %lld steps, %lld "
                 "skipped, scale %g, %lld fallbacks\n",
                 tty ? "\r\033[K" : "", epoch, epochs, s.loss,
                 s.samplesPerSecond, static_cast<long long>(s.steps),
                 static_cast<long long>(s.skipped), scale,
                 static_cast<long long>(fallbacks));
  }

private:
  bool enabled, tty;
  int epoch, epochs;
  int64_t steps;
};

} // namespace

bool TrainingLoop::train(const DataView &data, int epochs,
                         std::vector<EpochStats> *history, std::string &error) {
  int64_t batch = active()->batch();
  if (data.size < batch) {
    error = "the data holds " + std::to_string(data.size) +
            " samples, fewer than one batch of " + std::to_string(batch);
    return false;
  }
  if (!data.labels) {
    error = "training needs labels";
    return false;
  }
  std::vector<int64_t> order(static_cast<size_t>(data.size));
  std::vector<int64_t> rows(static_cast<size_t>(batch));
  for (int epoch = 0; epoch < epochs; ++epoch) {
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(options_.seed * 1000003u + shuffles_++);
    std::shuffle(order.begin(), order.end(), rng);
    int64_t steps = data.size / batch;
    EpochProgress progress(options_.verbose, epoch + 1, epochs, steps);
    EpochStats stats;
    double lossSum = 0;
    auto start = std::chrono::steady_clock::now();
    for (int64_t s = 0; s < steps; ++s) {
      std::copy(order.begin() + s * batch, order.begin() + (s + 1) * batch,
                rows.begin());
      if (!batchOf(data, rows, error))
        return false;
      std::vector<const void *> inputs;
      for (const auto &buffer : batchInputs_)
        inputs.push_back(buffer.data());
      StepResult r;
      ++attempts_;
      if (!faults_.empty()) {
        std::vector<float> fault;
        for (const Fault &f : faults_)
          if (f.attempt == attempts_) {
            if (fault.empty())
              fault.assign(weightCount(), 0.0f);
            fault[f.weight] += f.value;
          }
        if (!fault.empty())
          active()->setGradientFault(std::move(fault));
      }
      // The monitor samples every N-th attempted step (its twin step).
      bool sample = options_.monitorEvery > 0 && active()->hasMonitor() &&
                    attempts_ % options_.monitorEvery == 0;
      float scaleUsed = scaler_.scale();
      bool layered = fallback_.config().enabled() && switched_;
      if (layered && !active()->setLayerSelector(fallback_.selector(), error))
        return false;
      std::vector<float> gradStats, layerValues;
      if (!active()->trainStep(
              inputs, batchLabels_.data(),
              static_cast<float>(options_.learningRate), scaleUsed, r, error,
              sample ? &gradStats : nullptr, sample ? &layerValues : nullptr))
        return false;
      // A skipped step changed nothing: its monitored twin reruns the batch
      // to say which layer overflowed.
      if (layered && !r.applied && !sample &&
          !active()->trainStep(inputs, batchLabels_.data(),
                               static_cast<float>(options_.learningRate),
                               scaleUsed, r, error, &gradStats, &layerValues))
        return false;
      if (!layerValues.empty())
        readLayerStats(layerValues);
      int culprit = -1;
      bool forwardOverflow = false;
      if (layered && !r.applied)
        culprit =
            fallback_.culprit(lastLayers_, scaler_.atMin(), forwardOverflow);
      if (forwardOverflow)
        scaler_.skipHeld(); // no scale makes a forward pass finite
      else
        scaler_.update(r.applied);
      if (sample && !record(r, scaleUsed, gradStats, error))
        return false;
      if (layered &&
          !logEvents(fallback_.observe(attempts_, active()->step(), culprit,
                                       sample ? lastLayers_
                                              : std::vector<LayerStats>(),
                                       r.applied, scaler_.atMax()),
                     error))
        return false;
      if (r.applied) {
        lossSum += r.loss;
        ++stats.steps;
      } else {
        ++stats.skipped;
      }
      // The schedule hands the state to the configured formats at step K.
      if (!handOver(error))
        return false;
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      stats.samplesPerSecond = seconds > 0 ? (s + 1) * batch / seconds : 0;
      stats.loss = stats.steps ? lossSum / stats.steps : NAN;
      progress.update(s + 1, stats.loss, stats.samplesPerSecond,
                      scaler_.scale(), fallback_.fallbacks());
    }
    stats.lossScale = scaler_.scale();
    progress.finish(stats, scaler_.scale(), fallback_.fallbacks());
    if (history)
      history->push_back(stats);
  }
  return true;
}

bool TrainingLoop::evaluate(const DataView &data, Evaluation &result,
                            std::string &error) {
  TrainingSession *session = active();
  int64_t batch = session->batch();
  const training::TrainingManifest &m = session->manifest();
  bool classes = m.loss == "cross_entropy";
  int64_t positions = session->labelSampleBytes() / (classes ? 8 : 4);
  int64_t perPosition =
      classes && positions ? session->outputSampleElements() / positions : 0;
  result = Evaluation();
  double lossSum = 0;
  int64_t correct = 0, counted = 0;
  std::vector<int64_t> rows(static_cast<size_t>(batch));
  for (int64_t first = 0; first < data.size; first += batch) {
    int64_t valid = std::min(batch, data.size - first);
    for (int64_t r = 0; r < batch; ++r)
      rows[r] = r < valid ? first + r : first; // padding: ignored below
    if (!batchOf(data, rows, error))
      return false;
    std::vector<const void *> inputs;
    for (const auto &buffer : batchInputs_)
      inputs.push_back(buffer.data());
    EvalResult out;
    if (!session->evalStep(inputs, batchLabels_.data(), out, error))
      return false;
    int64_t lossesPerSample =
        static_cast<int64_t>(out.sampleLoss.size()) / batch;
    for (int64_t r = 0; r < valid; ++r)
      for (int64_t k = 0; k < lossesPerSample; ++k)
        lossSum += out.sampleLoss[r * lossesPerSample + k];
    counted += valid * lossesPerSample;
    if (classes && perPosition > 0) {
      const int64_t *labels =
          reinterpret_cast<const int64_t *>(batchLabels_.data());
      for (int64_t p = 0; p < valid * positions; ++p) {
        const float *row = out.output.data() + p * perPosition;
        int64_t best = std::max_element(row, row + perPosition) - row;
        correct += best == labels[p];
      }
    }
  }
  result.samples = data.size;
  result.loss = counted ? lossSum / counted : 0;
  result.accuracy = classes && data.size
                        ? double(correct) / double(data.size * positions)
                        : 0;
  return true;
}

bool TrainingLoop::predict(const DataView &data, std::vector<float> &output,
                           std::string &error) {
  TrainingSession *session = active();
  int64_t batch = session->batch();
  int64_t per = session->outputSampleElements();
  output.clear();
  std::vector<int64_t> rows(static_cast<size_t>(batch));
  DataView unlabeled = data;
  unlabeled.labels = nullptr;
  for (int64_t first = 0; first < data.size; first += batch) {
    int64_t valid = std::min(batch, data.size - first);
    for (int64_t r = 0; r < batch; ++r)
      rows[r] = r < valid ? first + r : first;
    if (!batchOf(unlabeled, rows, error))
      return false;
    std::vector<const void *> inputs;
    for (const auto &buffer : batchInputs_)
      inputs.push_back(buffer.data());
    std::vector<float> out;
    if (!session->predict(inputs, out, error))
      return false;
    output.insert(output.end(), out.begin(), out.begin() + valid * per);
  }
  return true;
}

void TrainingLoop::restart(uint64_t seed) {
  options_.seed = seed;
  for (TrainingSession *s : {session_.get(), warmup_.get()})
    if (s) {
      s->initialize(seed);
      std::string ignored; // the sizes match: they are the session's own
      (void)s->setLayerSelector(std::vector<float>(s->layers().size(), 0.0f),
                                ignored);
    }
  switched_ = !warmup_ || options_.precisionSchedule <= 0;
  scaler_ = LossScaler(options_.scaler);
  fallback_ = FallbackPolicy(options_.fallback, session_->layers());
  events_.clear();
  lastStats_.clear();
  lastLayers_.clear();
  lastStatsStep_ = 0;
  faults_.clear();
  attempts_ = 0;
  shuffles_ = 0;
  resetProfile();
}

void TrainingLoop::resetProfile() {
  for (TrainingSession *s : {session_.get(), warmup_.get()})
    if (s)
      s->resetProfile();
}

ProfileReport TrainingLoop::profile() const {
  ProfileReport report;
  for (TrainingSession *s : {warmup_.get(), session_.get()})
    if (s)
      report.merge(s->profile());
  report.training = true;
  report.steps = static_cast<uint64_t>(scaler_.steps());
  report.skippedSteps = static_cast<uint64_t>(scaler_.skippedSteps());
  report.fallbacks = static_cast<uint64_t>(fallback_.fallbacks());
  return report;
}

bool TrainingLoop::save(const std::string &path, const std::string &config,
                        std::string &error) const {
  return active()->save(path, config, error, scaler_.toText(),
                        fallback_.layers().empty() ? std::string()
                                                   : fallback_.toText());
}

bool TrainingLoop::load(const std::string &path, std::string &error) {
  std::string config, scalerState, fallbackState;
  // (restore checks both states before it changes anything)
  if (!active()->restore(path, &config, error, &scalerState, &fallbackState))
    return false;
  if (!scalerState.empty())
    (void)scaler_.fromText(scalerState);
  if (!fallbackState.empty())
    (void)fallback_.fromText(fallbackState);
  return handOver(error);
}

bool TrainingLoop::injectFault(int64_t attempt, const std::string &name,
                               float value, std::string &error) {
  if (!active()->hasGradientFault()) {
    error = "the training step was compiled without fault injection";
    return false;
  }
  if (attempt < 1) {
    error = "a fault fires at step 1 from now or later";
    return false;
  }
  size_t index = 0;
  for (const auto &spec : active()->manifest().state) {
    if (spec.role != "weight")
      continue;
    if (spec.name == name) {
      faults_.push_back({attempts_ + attempt, index, value});
      return true;
    }
    ++index;
  }
  error = "no weight '" + name + "'";
  return false;
}

} // namespace dsmp
