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
  if (std::string why = options.fallback.check(); !why.empty()) {
    error = why;
    return nullptr;
  }
  if (options.fallback.enabled() && config.defaultFormat == "fp32") {
    error = "fallback_threshold switches layers to FP32 from a 16-bit or "
            "tf32 default; the default is fp32 already";
    return nullptr;
  }
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
  compile.monitor = options.monitorEvery > 0;
  compile.artifact.profile = options.profile;
  auto build = [&](const std::string &format, const std::string &dir,
                   std::unique_ptr<TrainingSession> &session) {
    mlir::dsmp::TrainingCompileOptions o = compile;
    o.defaultFormat = format;
    o.fallback = options.fallback.enabled() && format != "fp32";
    if (llvm::Error err = mlir::dsmp::compileTrainingArtifact(
            modelPath, joinPath(t->workDir_, dir), o, context)) {
      error = llvm::toString(std::move(err));
      return false;
    }
    session = TrainingSession::load(joinPath(t->workDir_, dir), error);
    return session != nullptr;
  };
  std::unique_ptr<TrainingSession> mixed, warmup;
  if (!build(config.defaultFormat, "step", mixed))
    return nullptr;
  bool schedule =
      config.precisionSchedule > 0 && config.defaultFormat != "fp32";
  if (schedule) {
    std::vector<std::string> seen = t->warnings_;
    if (!build("fp32", "step-fp32", warmup))
      return nullptr;
    t->warnings_ = seen; // the same warnings again
  }
  if (options.freshInit)
    (warmup ? warmup : mixed)->initialize(options.seed);
  TrainingLoopOptions loop;
  loop.learningRate = options.learningRate;
  loop.scaler = options.scaler;
  loop.seed = options.seed;
  loop.verbose = options.verbose;
  loop.precisionSchedule = schedule ? config.precisionSchedule : 0;
  loop.monitorEvery = options.monitorEvery;
  loop.monitorLog = options.monitorLog;
  loop.fallback = options.fallback;
  t->loop_ =
      TrainingLoop::create(std::move(mixed), std::move(warmup), loop, error);
  if (!t->loop_)
    return nullptr;
  return t;
}

MixedPrecisionTrainer::~MixedPrecisionTrainer() {
  loop_.reset();
  if (ownsWorkDir_)
    (void)llvm::sys::fs::remove_directories(workDir_);
}

bool MixedPrecisionTrainer::exportOnnx(const std::string &path,
                                       std::string &error) const {
  std::map<std::string, std::vector<float>> weights;
  for (const training::StateSpec &s : session().manifest().state) {
    if (s.role != "weight")
      continue;
    size_t count = 0;
    const float *w = session().weight(s.name, &count);
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
