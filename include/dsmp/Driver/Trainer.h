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

#include "dsmp/runtime/TrainingLoop.h"

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
  /// The gradient monitor (TrainingLoop.h): every N-th step, 0: off; its
  /// JSON-lines log (empty: in memory only).
  int64_t monitorEvery = 0;
  std::string monitorLog;
  /// The per-layer FP32 fallback (LayerFallback.h): threshold 0 is off;
  /// otherwise every layer is compiled with an FP32 variant.
  FallbackConfig fallback;
  /// Time every op of the train steps (dsmp-compile --profile):
  /// loop().profile().
  bool profile = false;
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

class MixedPrecisionTrainer {
public:
  static std::unique_ptr<MixedPrecisionTrainer>
  create(const std::string &modelPath, const PrecisionConfig &config,
         const TrainerOptions &options, std::string &error);
  ~MixedPrecisionTrainer();

  /// The loop's (TrainingLoop.h), on the compiled steps.
  bool train(const DataView &data, int epochs, std::vector<EpochStats> *history,
             std::string &error) {
    return loop_->train(data, epochs, history, error);
  }
  bool evaluate(const DataView &data, Evaluation &result, std::string &error) {
    return loop_->evaluate(data, result, error);
  }
  bool predict(const DataView &data, std::vector<float> &output,
               std::string &error) {
    return loop_->predict(data, output, error);
  }
  /// A checkpoint with the precision config in it.
  bool save(const std::string &path, std::string &error) const {
    return loop_->save(path, config_.text(), error);
  }
  bool load(const std::string &path, std::string &error) {
    return loop_->load(path, error);
  }
  bool injectFault(int64_t attempt, const std::string &name, float value,
                   std::string &error) {
    return loop_->injectFault(attempt, name, value, error);
  }
  bool forceLayerOverflow(const std::string &layer, float factor,
                          std::string &error) {
    return loop_->forceLayerOverflow(layer, factor, error);
  }
  /// A new run on the compiled steps (TrainingLoop::restart).
  void restart(uint64_t seed) { loop_->restart(seed); }
  /// Drops the train steps' profile so far (TrainingLoop::resetProfile).
  void resetProfile() { loop_->resetProfile(); }
  /// The inference model with the trained weights.
  bool exportOnnx(const std::string &path, std::string &error) const;

  TrainingSession &session() const { return loop_->session(); }
  const LossScaler &scaler() const { return loop_->scaler(); }
  const TrainingLoop &loop() const { return *loop_; }
  const PrecisionConfig &config() const { return config_; }
  /// Warnings from the compile (a sensitive-layer pattern that matches
  /// nothing, weights no gradient reaches).
  const std::vector<std::string> &warnings() const { return warnings_; }

private:
  MixedPrecisionTrainer() = default;

  std::string modelPath_, workDir_;
  bool ownsWorkDir_ = false;
  PrecisionConfig config_;
  TrainerOptions options_;
  std::unique_ptr<TrainingLoop> loop_;
  std::vector<std::string> warnings_;
};

} // namespace dsmp

#endif // DSMP_DRIVER_TRAINER_H
