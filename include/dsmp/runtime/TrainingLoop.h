//===- TrainingLoop.h - Epochs of a compiled training step -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The runtime's training loop over a loaded training artifact
// (TrainingSession.h): shuffled batches of the compiled size, the loss
// scaler (LossScaler.h), progress, evaluation over every sample, atomic
// checkpoints with the scaler's state, a precision schedule (an FP32 step
// for the first K optimizer steps, then the configured formats) and fault
// injection for tests. No MLIR: dsmprt-train and the trainers
// (include/dsmp/Driver/Trainer.h, which compile first) run it.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_RUNTIME_TRAININGLOOP_H
#define DSMP_RUNTIME_TRAININGLOOP_H

#include "dsmp/runtime/LayerFallback.h"
#include "dsmp/runtime/LossScaler.h"
#include "dsmp/runtime/TrainingSession.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace dsmp {

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
  float lossScale = 0; // at the epoch's end
};

struct Evaluation {
  double loss = 0;
  /// Top-1 (cross entropy), else 0.
  double accuracy = 0;
  int64_t samples = 0;
};

struct TrainingLoopOptions {
  double learningRate = 1e-3;
  LossScalerConfig scaler = LossScalerConfig::fixed(1);
  /// The data order is shuffled from it.
  uint64_t seed = 0;
  /// Progress on stderr: a bar on a terminal, one line per epoch otherwise.
  bool verbose = true;
  /// With a warm-up session: its optimizer steps before handing over.
  int64_t precisionSchedule = 0;
  /// The gradient monitor: every N-th step runs the monitored twin
  /// (train_step_monitor) and records each weight's gradient statistics;
  /// 0: off.
  int64_t monitorEvery = 0;
  /// Where the records go as JSON lines (appended; opened at create, so an
  /// unwritable path fails before any step); empty: kept in memory only.
  std::string monitorLog;
  /// The per-layer FP32 fallback (LayerFallback.h); needs an artifact
  /// compiled with --fallback. Its switches go to the monitor log too.
  FallbackConfig fallback;
};

/// One weight's gradient in a monitored step.
struct GradientStats {
  std::string name;
  float amax = 0;         // largest |unscaled gradient|
  float zeroFraction = 0; // values zero in the format it was computed in
  int64_t infCount = 0, nanCount = 0;
};

class TrainingLoop {
public:
  /// `warmup` (FP32, the same state layout) runs the first
  /// `options.precisionSchedule` steps when given.
  static std::unique_ptr<TrainingLoop>
  create(std::unique_ptr<TrainingSession> session,
         std::unique_ptr<TrainingSession> warmup,
         const TrainingLoopOptions &options, std::string &error);
  ~TrainingLoop();
  TrainingLoop(const TrainingLoop &) = delete;
  TrainingLoop &operator=(const TrainingLoop &) = delete;

  /// `epochs` passes over `data` in shuffled batches of the compiled size
  /// (a last partial batch is left out).
  bool train(const DataView &data, int epochs, std::vector<EpochStats> *history,
             std::string &error);
  /// Every sample of `data` (the last batch padded, the padding ignored).
  bool evaluate(const DataView &data, Evaluation &result, std::string &error);
  /// The model's first output for every sample.
  bool predict(const DataView &data, std::vector<float> &output,
               std::string &error);

  /// Starts a new run on the same compiled steps: fresh weights from `seed`
  /// (TrainingSession::initialize), the optimizer's state, the step count,
  /// the loss scaler, the layers' fallback state, the monitor's records
  /// and pending faults all as a new loop has them; data shuffles from
  /// `seed`.
  void restart(uint64_t seed);

  /// Checkpoints: the session's, with the scaler's state.
  bool save(const std::string &path, const std::string &config,
            std::string &error) const;
  bool load(const std::string &path, std::string &error);

  /// Adds `value` (inf, nan, ...) to weight `name`'s gradient in the
  /// `attempt`-th step from now (1: the next); needs a train_step compiled
  /// with --fault-injection.
  bool injectFault(int64_t attempt, const std::string &name, float value,
                   std::string &error);

  /// The session that runs now (the warm-up one during a schedule's first
  /// steps).
  TrainingSession &session() const { return *active(); }
  const LossScaler &scaler() const { return scaler_; }
  /// The last monitored step's statistics (empty before one), and the
  /// attempt it was.
  const std::vector<GradientStats> &gradientStats() const { return lastStats_; }
  int64_t gradientStatsStep() const { return lastStatsStep_; }
  /// The last monitored or diagnosed step's per-layer statistics.
  const std::vector<LayerStats> &layerStats() const { return lastLayers_; }
  const FallbackPolicy &fallback() const { return fallback_; }
  /// Every switch so far (fallbacks and returns), in order.
  const std::vector<FallbackEvent> &fallbackEvents() const { return events_; }
  /// Forces layer `layer`'s 16-bit variant to overflow (its contraction's
  /// result times `factor`, divided again) in every step until the factor
  /// is 1 again; needs --fallback --fault-injection.
  bool forceLayerOverflow(const std::string &layer, float factor,
                          std::string &error);

  /// Steps compiled with --profile: per-op time, FLOPs and format of the
  /// train steps since the start (or restart, or resetProfile), with the
  /// steps, skipped steps and fallbacks (Profiler.h).
  bool profiled() const { return session_->profiled(); }
  void resetProfile();
  ProfileReport profile() const;

private:
  TrainingLoop() = default;
  TrainingSession *active() const;
  bool batchOf(const DataView &data, const std::vector<int64_t> &rows,
               std::string &error);
  size_t weightCount() const;
  bool handOver(std::string &error);
  bool record(const StepResult &r, float scale, const std::vector<float> &stats,
              std::string &error);
  void readLayerStats(const std::vector<float> &values);
  bool logEvents(const std::vector<FallbackEvent> &events, std::string &error);
  bool writeLog(const std::string &line, std::string &error);

  TrainingLoopOptions options_;
  std::unique_ptr<TrainingSession> session_, warmup_;
  bool switched_ = false;
  LossScaler scaler_;
  /// One batch gathered from a DataView.
  std::vector<std::vector<unsigned char>> batchInputs_;
  std::vector<unsigned char> batchLabels_;
  uint64_t shuffles_ = 0;
  /// Pending faults: the attempt they fire at, the weight's index, value.
  struct Fault {
    int64_t attempt;
    size_t weight;
    float value;
  };
  std::vector<Fault> faults_;
  int64_t attempts_ = 0;
  std::FILE *log_ = nullptr;
  std::vector<GradientStats> lastStats_;
  int64_t lastStatsStep_ = 0;
  FallbackPolicy fallback_;
  std::vector<FallbackEvent> events_;
  std::vector<LayerStats> lastLayers_;
};

} // namespace dsmp

#endif // DSMP_RUNTIME_TRAININGLOOP_H
