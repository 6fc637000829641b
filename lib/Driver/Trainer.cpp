//===- Trainer.cpp - MixedPrecisionTrainer ----------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/Trainer.h"

#include "dsmp/Driver/Training.h"
#include "dsmp/Export/ReplaceInitializers.h"
#include "dsmp/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>

#include <unistd.h>

namespace dsmp {

std::string PrecisionConfig::text() const {
  std::string layers;
  for (const std::string &l : sensitiveLayers)
    layers += (layers.empty() ? "" : ",") + l;
  return "default=" + defaultFormat + " sensitive_layers=" + layers +
         " optimizer_precision=" + optimizerPrecision + " target=" + target +
         " precision_schedule=" + std::to_string(precisionSchedule);
}

namespace {

std::string joinPath(const std::string &dir, const std::string &name) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  return std::string(path);
}

} // namespace

TrainingSession *MixedPrecisionTrainer::active() const {
  return warmup_ && !switched_ ? warmup_.get() : mixed_.get();
}

std::unique_ptr<MixedPrecisionTrainer> MixedPrecisionTrainer::create(
    const std::string &modelPath, const PrecisionConfig &config,
    const TrainerOptions &options, std::string &error) {
  std::unique_ptr<MixedPrecisionTrainer> t(new MixedPrecisionTrainer());
  t->modelPath_ = modelPath;
  t->config_ = config;
  t->options_ = options;
  if (options.batchSize < 1) {
    error = "batch_size must be at least 1";
    return nullptr;
  }
  if (std::string why = options.scaler.check(); !why.empty()) {
    error = why;
    return nullptr;
  }
  t->scaler_ = LossScaler(options.scaler);
  t->workDir_ = options.workDir;
  if (t->workDir_.empty()) {
    llvm::SmallString<256> made;
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("dsmp-train", made)) {
      error = "cannot create a work folder: " + ec.message();
      return nullptr;
    }
    t->workDir_ = std::string(made);
    t->ownsWorkDir_ = true;
  } else if (std::error_code ec =
                 llvm::sys::fs::create_directories(t->workDir_)) {
    error = "cannot create '" + t->workDir_ + "': " + ec.message();
    return nullptr;
  }

  mlir::DialectRegistry registry;
  mlir::dsmp::registerAll(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  mlir::dsmp::TrainingCompileOptions compile;
  llvm::Triple host(llvm::sys::getProcessTriple());
  auto cpu = mlir::dsmp::lookupCPUTarget(
      host.getArch() == llvm::Triple::aarch64 ? "aarch64" : "x86_64");
  if (!cpu) {
    error = "no CPU target for this host";
    return nullptr;
  }
  compile.artifact.target = *cpu;
  compile.artifact.force = true;
  compile.loss = options.loss;
  compile.optimizer = options.optimizer;
  compile.learningRate = options.learningRate;
  compile.weightDecay = options.weightDecay;
  compile.momentum = options.momentum;
  compile.trainable = options.trainable;
  compile.batch = options.batchSize;
  for (const auto &[name, dims] : options.shapes)
    compile.shapes[name] = llvm::SmallVector<int64_t>(dims.begin(), dims.end());
  compile.defaultFormat = config.defaultFormat;
  compile.sensitiveLayers = config.sensitiveLayers;
  compile.optimizerPrecision = config.optimizerPrecision;
  compile.target = config.target;
  compile.warnings = &t->warnings_;
  compile.faultInjection = options.faultInjection;
  auto build = [&](const std::string &format, const std::string &dir,
                   std::unique_ptr<TrainingSession> &session) {
    mlir::dsmp::TrainingCompileOptions o = compile;
    o.defaultFormat = format;
    if (llvm::Error err = mlir::dsmp::compileTrainingArtifact(
            modelPath, joinPath(t->workDir_, dir), o, context)) {
      error = llvm::toString(std::move(err));
      return false;
    }
    session = TrainingSession::load(joinPath(t->workDir_, dir), error);
    return session != nullptr;
  };
  if (!build(config.defaultFormat, "step", t->mixed_))
    return nullptr;
  if (config.precisionSchedule > 0 && config.defaultFormat != "fp32") {
    std::vector<std::string> seen = t->warnings_;
    if (!build("fp32", "step-fp32", t->warmup_))
      return nullptr;
    t->warnings_ = seen; // the same warnings again
  }
  if (options.freshInit)
    t->active()->initialize(options.seed);
  return t;
}

MixedPrecisionTrainer::~MixedPrecisionTrainer() {
  mixed_.reset();
  warmup_.reset();
  if (ownsWorkDir_)
    (void)llvm::sys::fs::remove_directories(workDir_);
}

int64_t MixedPrecisionTrainer::inputSampleBytes(size_t i) const {
  return active()->inputSampleBytes(i);
}

int64_t MixedPrecisionTrainer::labelSampleBytes() const {
  return active()->labelSampleBytes();
}

bool MixedPrecisionTrainer::batchOf(const DataView &data,
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
    int64_t bytes = inputSampleBytes(i);
    batchInputs_[i].resize(static_cast<size_t>(bytes) * rows.size());
    const unsigned char *from =
        static_cast<const unsigned char *>(data.inputs[i]);
    for (size_t r = 0; r < rows.size(); ++r)
      std::memcpy(batchInputs_[i].data() + r * bytes, from + rows[r] * bytes,
                  bytes);
  }
  if (data.labels) {
    int64_t bytes = labelSampleBytes();
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
  void update(int64_t done, double loss, double rate, float scale) {
    if (!enabled || !tty)
      return;
    constexpr int kWidth = 24;
    int filled = steps ? static_cast<int>(kWidth * done / steps) : kWidth;
    std::fprintf(
        stderr,
        "\repoch %d/%d [%s%s] %lld/%lld loss %.4f %.0f samples/s scale %g ",
        epoch, epochs, std::string(filled, '#').c_str(),
        std::string(kWidth - filled, '.').c_str(), static_cast<long long>(done),
        static_cast<long long>(steps), loss, rate, scale);
    std::fflush(stderr);
  }
  void finish(const EpochStats &s, float scale) {
    if (!enabled)
      return;
    std::fprintf(stderr,
                 "%sepoch %d/%d: loss %.4f, %.0f samples/s, %lld steps, %lld "
                 "skipped, scale %g\n",
                 tty ? "\r\033[K" : "", epoch, epochs, s.loss,
                 s.samplesPerSecond, static_cast<long long>(s.steps),
                 static_cast<long long>(s.skipped), scale);
  }

private:
  bool enabled, tty;
  int epoch, epochs;
  int64_t steps;
};

} // namespace

bool MixedPrecisionTrainer::train(const DataView &data, int epochs,
                                  std::vector<EpochStats> *history,
                                  std::string &error) {
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
      if (!active()->trainStep(inputs, batchLabels_.data(),
                               static_cast<float>(options_.learningRate),
                               scaler_.scale(), r, error))
        return false;
      scaler_.update(r.applied);
      if (r.applied) {
        lossSum += r.loss;
        ++stats.steps;
      } else {
        ++stats.skipped;
      }
      // The schedule hands the state to the configured formats at step K.
      if (warmup_ && !switched_ &&
          warmup_->step() >= config_.precisionSchedule) {
        if (!mixed_->adoptState(*warmup_, error))
          return false;
        switched_ = true;
      }
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      stats.samplesPerSecond = seconds > 0 ? (s + 1) * batch / seconds : 0;
      stats.loss = stats.steps ? lossSum / stats.steps : NAN;
      progress.update(s + 1, stats.loss, stats.samplesPerSecond,
                      scaler_.scale());
    }
    progress.finish(stats, scaler_.scale());
    if (history)
      history->push_back(stats);
  }
  return true;
}

bool MixedPrecisionTrainer::evaluate(const DataView &data, Evaluation &result,
                                     std::string &error) {
  TrainingSession *session = active();
  int64_t batch = session->batch();
  const training::TrainingManifest &m = session->manifest();
  bool classes = m.loss == "cross_entropy";
  int64_t positions = labelSampleBytes() / (classes ? 8 : 4);
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

bool MixedPrecisionTrainer::predict(const DataView &data,
                                    std::vector<float> &output,
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

bool MixedPrecisionTrainer::save(const std::string &path,
                                 std::string &error) const {
  return active()->save(path, config_.text(), error, scaler_.toText());
}

bool MixedPrecisionTrainer::load(const std::string &path, std::string &error) {
  std::string config, scalerState;
  // (restore checks the scaler's state before it changes anything)
  if (!active()->restore(path, &config, error, &scalerState))
    return false;
  if (!scalerState.empty())
    (void)scaler_.fromText(scalerState);
  if (warmup_ && !switched_ && warmup_->step() >= config_.precisionSchedule) {
    if (!mixed_->adoptState(*warmup_, error))
      return false;
    switched_ = true;
  }
  return true;
}

size_t MixedPrecisionTrainer::weightCount() const {
  size_t n = 0;
  for (const auto &spec : active()->manifest().state)
    n += spec.role == "weight";
  return n;
}

bool MixedPrecisionTrainer::injectFault(int64_t attempt,
                                        const std::string &name, float value,
                                        std::string &error) {
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

bool MixedPrecisionTrainer::exportOnnx(const std::string &path,
                                       std::string &error) const {
  std::map<std::string, std::vector<float>> weights;
  for (const training::StateSpec &s : active()->manifest().state) {
    if (s.role != "weight")
      continue;
    size_t count = 0;
    const float *w = active()->weight(s.name, &count);
    weights[s.name].assign(w, w + count);
  }
  auto bytes = mlir::dsmp::replaceInitializers(modelPath_, weights);
  if (!bytes) {
    error = llvm::toString(bytes.takeError());
    return false;
  }
  std::string temp = path + ".partial";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(temp, ec);
    if (ec) {
      error = "cannot write '" + temp + "': " + ec.message();
      return false;
    }
    os << *bytes;
    os.close();
    if (os.has_error()) {
      error = "cannot write '" + temp + "': " + os.error().message();
      os.clear_error();
      (void)llvm::sys::fs::remove(temp);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    error = "cannot write '" + path + "': " + ec.message();
    (void)llvm::sys::fs::remove(temp);
    return false;
  }
  return true;
}

} // namespace dsmp
