//===- TrainingSession.h - Run a compiled training step --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A training artifact (dsmp-compile MODEL --train -o ART) loaded for
// training: the state (FP32 master weights, the optimizer's moments) lives
// in two sets of buffers the session owns; each step reads one set and
// writes the other (train_step returns the new state as NAME:next), and the
// two swap. A step whose gradients are not finite changes nothing (the
// graph keeps the old values) and does not count.
//
//   std::string error;
//   auto session = dsmp::TrainingSession::load("digits.train", error);
//   session->initialize(/*seed=*/0);     // or keep the model's weights
//   dsmp::StepResult r;
//   session->trainStep({images}, labels, 1e-3f, 1024.f, r, error);
//
// Inputs are dense row-major buffers of the compiled batch's shapes, one
// per model input in the manifest's order; labels are int64 class indices
// (cross_entropy) or f32 targets shaped like the output (mse).
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_RUNTIME_TRAININGSESSION_H
#define DSMP_RUNTIME_TRAININGSESSION_H

#include "dsmp/runtime/Profiler.h"
#include "dsmp/runtime/TrainingManifest.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct dsmp_model;

namespace dsmp {

struct StepResult {
  float loss = 0;
  /// The unscaled gradients' global L2 norm (inf or nan when they
  /// overflowed: the step was skipped).
  float gradNorm = 0;
  bool applied = false;
};

struct EvalResult {
  /// Per sample (cross entropy, or the mean squared error of its row).
  std::vector<float> sampleLoss;
  /// The model's first output for the batch (f32, row-major).
  std::vector<float> output;
};

class TrainingSession {
public:
  /// Loads and checks ART (training.txt, state.bin, the three artifacts).
  static std::unique_ptr<TrainingSession> load(const std::string &dir,
                                               std::string &error);
  ~TrainingSession();
  TrainingSession(const TrainingSession &) = delete;
  TrainingSession &operator=(const TrainingSession &) = delete;

  const training::TrainingManifest &manifest() const { return manifest_; }
  int64_t batch() const { return manifest_.batch; }
  /// Bytes per sample of model input i (0 if out of range), and of the
  /// labels.
  int64_t inputSampleBytes(size_t i) const;
  int64_t labelSampleBytes() const;
  /// Elements per sample of the model's first output.
  int64_t outputSampleElements() const { return outputSample_; }

  /// Draws fresh weights as torch's layers would (uniform +-1/sqrt(fan-in)
  /// for contractions and their biases, N(0, 1) for embeddings, ones and
  /// zeros for normalizations; others keep the model's values), from
  /// `seed`; zeroes the optimizer's state and the step count.
  void initialize(uint64_t seed);

  /// One optimizer step on one batch; `lossScale` multiplies the loss
  /// before the backward pass (the gradients are unscaled before the
  /// update).
  /// With `gradStats`, runs the monitored twin (train_step_monitor) and
  /// fills it with 4 values per weight (manifest order): the largest
  /// |unscaled gradient|, the fraction of the scaled gradient's values that
  /// are zero in the format it was computed in, its inf and NaN counts.
  /// With `layerStats` too (an artifact compiled with --fallback): 4
  /// values per layer (manifest order), as LayerStats lists them.
  bool trainStep(const std::vector<const void *> &inputs, const void *labels,
                 float learningRate, float lossScale, StepResult &result,
                 std::string &error, std::vector<float> *gradStats = nullptr,
                 std::vector<float> *layerStats = nullptr);
  bool hasMonitor() const { return monitor_ != nullptr; }
  /// Compiled with --profile: the train steps' profile (train_step and its
  /// monitored twin, merged; Profiler.h) since load or resetProfile().
  bool profiled() const;
  void resetProfile();
  ProfileReport profile() const;
  /// Forward and per-sample loss, no update.
  bool evalStep(const std::vector<const void *> &inputs, const void *labels,
                EvalResult &result, std::string &error);
  /// The model's first output for one batch.
  bool predict(const std::vector<const void *> &inputs,
               std::vector<float> &output, std::string &error);

  /// Optimizer steps applied so far.
  int64_t step() const { return step_; }
  /// A weight's current values (f32), or nullptr for an unknown name.
  const float *weight(const std::string &name, size_t *count = nullptr) const;
  /// Replaces a weight's values (count must match).
  bool setWeight(const std::string &name, const float *values, size_t count,
                 std::string &error);

  /// Takes the state and step of a session of the same state layout (the
  /// FP32 step of a precision schedule handing over to the mixed one).
  bool adoptState(const TrainingSession &other, std::string &error);

  /// Writes weights, optimizer state, step and `config` (any text: the
  /// trainer's precision config) to `path` atomically: a temporary file
  /// beside it, flushed to disk, then renamed over it.
  /// `scaler` (a LossScaler's toText) goes along.
  /// `fallback` (a FallbackPolicy's toText) too, when given.
  bool save(const std::string &path, const std::string &config,
            std::string &error, const std::string &scaler = "",
            const std::string &fallback = "") const;
  /// Reads a checkpoint written by save() for this artifact's state layout;
  /// on any mismatch or damage, fails with the reason and changes nothing.
  /// `config` receives the saved config text.
  bool restore(const std::string &path, std::string *config, std::string &error,
               std::string *scaler = nullptr, std::string *fallback = nullptr);

  /// For fault-injection tests: a train_step compiled with
  /// --fault-injection adds fault[i] to weight i's gradient (weights in
  /// manifest order); the next trainStep uses `fault`, later ones zeros.
  bool hasGradientFault() const;
  void setGradientFault(std::vector<float> fault) {
    gradientFault_ = std::move(fault);
  }

  /// The layers with an FP32 variant (--fallback), and which run it: one
  /// value per layer, 1 for FP32 (every graph, from the next step on).
  const std::vector<std::string> &layers() const { return manifest_.layers; }
  bool setLayerSelector(const std::vector<float> &fp32, std::string &error);
  const std::vector<float> &layerSelector() const { return layerSelector_; }
  /// For fault-injection tests (--fallback --fault-injection): the layer's
  /// 16-bit variant multiplies its contraction's result by `factor` and
  /// divides it again in every step until set back to 1 (65504 overflows
  /// f16 wherever |value| > 1).
  bool setLayerFault(const std::string &layer, float factor,
                     std::string &error);

private:
  TrainingSession() = default;
  bool bindState(dsmp_model *model, bool withOptimizer, std::string &error);
  bool bindInputs(dsmp_model *model, const std::vector<const void *> &inputs,
                  const void *labels, std::string &error);

  std::string dir_;
  training::TrainingManifest manifest_;
  dsmp_model *train_ = nullptr, *eval_ = nullptr, *predict_ = nullptr,
             *monitor_ = nullptr;
  /// Two sets of state buffers (8-byte aligned); current_ is the one read.
  std::vector<std::vector<uint64_t>> state_[2];
  int current_ = 0;
  int64_t step_ = 0;
  int64_t outputSample_ = 0;
  std::vector<float> gradientFault_;
  std::vector<float> layerSelector_, layerFault_;
  std::string outputName_;
};

} // namespace dsmp

#endif // DSMP_RUNTIME_TRAININGSESSION_H
