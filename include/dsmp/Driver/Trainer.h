//===- Trainer.h - MixedPrecisionTrainer ------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Train an ONNX model in mixed precision:
//
//   dsmp::PrecisionConfig config;
//   config.defaultFormat = "fp16";
//   config.sensitiveLayers = {"/f/f.10/.*"};
//   dsmp::TrainerOptions options;
//   options.batchSize = 64;
//   options.lossScale = 1024;
//   std::string error;
//   auto trainer = dsmp::MixedPrecisionTrainer::create("digits_cnn.onnx",
//                                                      config, options, error);
//   trainer->train(data, /*epochs=*/30, nullptr, error);
//   dsmp::Evaluation e;
//   trainer->evaluate(test, e, error);
//
// create() compiles the training step (include/dsmp/Driver/Training.h)
// into `workDir` and loads it (include/dsmp/runtime/TrainingSession.h).
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DRIVER_TRAINER_H
#define DSMP_DRIVER_TRAINER_H

#include "dsmp/runtime/LossScaler.h"
#include "dsmp/runtime/TrainingSession.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dsmp {

/// The seed's precision_config.
struct PrecisionConfig {
  /// fp32, tf32, fp16 or bf16: what the forward and backward run in where
  /// the policy allows.
  std::string defaultFormat = "fp32";
  /// Node names or regexes kept in f32.
  std::vector<std::string> sensitiveLayers;
  /// fp32 or bf16: the optimizer state's format.
  std::string optimizerPrecision = "fp32";
  /// Whose format table applies (sm_80, sm_90, gfx90a, aarch64, ...).
  std::string target = "sm_80";
  /// The progressive schedule: FP32 for the first K optimizer steps, the
  /// formats after (0: off).
  int64_t precisionSchedule = 0;

  /// One line (checkpoints keep it).
  std::string text() const;
};

struct TrainerOptions {
  std::string loss = "cross_entropy";
  std::string optimizer = "adam"; // adam, adamw, sgd
  double learningRate = 1e-3;
  double weightDecay = -1; // the optimizer's default
  double momentum = 0;
  int64_t batchSize = 32;
  /// Regex of the initializers to train (empty: all).
  std::string trainable;
  /// The loss scale: dynamic (LossScaler.h's defaults: 2^16, x2 after 2000
  /// clean steps, x0.5 on an overflow) or LossScalerConfig::fixed(s).
  LossScalerConfig scaler = LossScalerConfig::fixed(1);
  /// Compile train_step with a gradient_fault input (injectFault).
  bool faultInjection = false;
  /// Fresh weights (as torch's layers draw them) from `seed` instead of the
  /// model's; the data order is shuffled from `seed` too.
  bool freshInit = false;
  uint64_t seed = 0;
  /// Where the compiled steps go (a new temporary folder when empty).
  std::string workDir;
  /// Shapes of dynamic dims other than the batch, per input.
  std::map<std::string, std::vector<int64_t>> shapes;
  /// Progress: a bar on a terminal, log lines otherwise, none when false.
  bool verbose = true;
};

/// Samples along the first dim of each buffer: one per model input (its
/// dtype, dense), and labels (int64 classes or f32 targets).
struct DataView {
  std::vector<const void *> inputs;
  const void *labels = nullptr;
  int64_t size = 0;
};

struct EpochStats {
  double loss = 0; // mean over the applied steps
  double samplesPerSecond = 0;
  int64_t steps = 0, skipped = 0;
};

struct Evaluation {
  double loss = 0;
  /// Top-1 (cross entropy), else 0.
  double accuracy = 0;
  int64_t samples = 0;
};

class MixedPrecisionTrainer {
public:
  static std::unique_ptr<MixedPrecisionTrainer>
  create(const std::string &modelPath, const PrecisionConfig &config,
         const TrainerOptions &options, std::string &error);
  ~MixedPrecisionTrainer();

  /// `epochs` passes over `data` in shuffled batches of the compiled size
  /// (a last partial batch is left out).
  bool train(const DataView &data, int epochs, std::vector<EpochStats> *history,
             std::string &error);
  /// Every sample of `data` (the last batch padded, the padding ignored).
  bool evaluate(const DataView &data, Evaluation &result, std::string &error);
  /// The model's first output for every sample.
  bool predict(const DataView &data, std::vector<float> &output,
               std::string &error);

  bool save(const std::string &path, std::string &error) const;
  bool load(const std::string &path, std::string &error);
  /// The inference model with the trained weights.
  bool exportOnnx(const std::string &path, std::string &error) const;

  TrainingSession &session() { return *active(); }
  const LossScaler &scaler() const { return scaler_; }
  /// Adds `value` (inf, nan, ...) to weight `name`'s gradient in the
  /// `attempt`-th step from now (1: the next); needs faultInjection.
  bool injectFault(int64_t attempt, const std::string &name, float value,
                   std::string &error);
  const PrecisionConfig &config() const { return config_; }
  /// Warnings from the compile (a sensitive-layer pattern that matches
  /// nothing, weights no gradient reaches).
  const std::vector<std::string> &warnings() const { return warnings_; }

private:
  MixedPrecisionTrainer() = default;
  TrainingSession *active() const;
  bool batchOf(const DataView &data, const std::vector<int64_t> &rows,
               std::string &error);
  int64_t inputSampleBytes(size_t i) const;
  int64_t labelSampleBytes() const;
  size_t weightCount() const;

  std::string modelPath_, workDir_;
  bool ownsWorkDir_ = false;
  PrecisionConfig config_;
  TrainerOptions options_;
  /// The configured formats, and FP32 for a schedule's first steps.
  std::unique_ptr<TrainingSession> mixed_, warmup_;
  std::vector<std::string> warnings_;
  /// One batch gathered from a DataView.
  std::vector<std::vector<unsigned char>> batchInputs_;
  std::vector<unsigned char> batchLabels_;
  uint64_t shuffles_ = 0;
  LossScaler scaler_;
  /// Pending faults: the attempt they fire at, the weight's index, value.
  struct Fault {
    int64_t attempt;
    size_t weight;
    float value;
  };
  std::vector<Fault> faults_;
  int64_t attempts_ = 0;
  bool switched_ = false;
};

} // namespace dsmp

#endif // DSMP_DRIVER_TRAINER_H
