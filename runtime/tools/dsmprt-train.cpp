//===- dsmprt-train.cpp - Train from a training artifact --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   dsmprt-train ART --inputs A.pb[,B.pb...] --labels L.pb [--epochs N]
//                [--learning-rate R] [--loss-scale dynamic|S] [--seed S]
//                [--fresh-init] [--test-inputs ... --test-labels L.pb]
//                [--load CKPT] [--save CKPT]
//
// Trains a training artifact (dsmp-compile MODEL --train -o ART) with
// libdsmprt alone: no MLIR, no LLVM, no protobuf, so it is also cross-built
// for AArch64 and run under qemu-aarch64. Data are ONNX tensor files, the
// samples along their first dim. Prints one line per epoch and, with test
// data, one summary line.
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/TensorFile.h"
#include "dsmp/runtime/TrainingLoop.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char *kUsage =
    "usage: dsmprt-train ART --inputs A.pb[,B.pb] --labels L.pb [--epochs N]\n"
    "         [--learning-rate R] [--loss-scale dynamic|S] [--seed S] "
    "[--fresh-init]\n"
    "         [--test-inputs A.pb[,B.pb] --test-labels L.pb] [--load CKPT] "
    "[--save CKPT]\n"
    "         [--monitor-every N [--monitor-log LOG.jsonl]]\n"
    "         [--fallback-threshold T [--fallback-window N] "
    "[--fallback-probation N]]\n"
    "         [--profile PROFILE.json]\n";

int fail(const std::string &message) {
  std::fprintf(stderr, "dsmprt-train: error: %s\n", message.c_str());
  return 1;
}

struct Data {
  std::vector<dsmp::runtime::HostTensor> inputs;
  dsmp::runtime::HostTensor labels;
  dsmp::DataView view() const {
    dsmp::DataView v;
    for (const auto &t : inputs)
      v.inputs.push_back(t.data.data());
    v.labels = labels.data.data();
    v.size = labels.dims.empty() ? 0 : labels.dims[0];
    return v;
  }
};

bool readData(const std::string &inputs, const std::string &labels, Data &data,
              std::string &error) {
  std::stringstream list(inputs);
  std::string path;
  while (std::getline(list, path, ',')) {
    data.inputs.emplace_back();
    if (!dsmp::runtime::readTensorFile(path, data.inputs.back(), error))
      return false;
  }
  if (!dsmp::runtime::readTensorFile(labels, data.labels, error))
    return false;
  int64_t n = data.labels.dims.empty() ? -1 : data.labels.dims[0];
  for (size_t i = 0; i < data.inputs.size(); ++i)
    if (data.inputs[i].dims.empty() || data.inputs[i].dims[0] != n) {
      error = "input " + std::to_string(i) + " and the labels hold " +
              "different numbers of samples";
      return false;
    }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  std::string artifact = argv[1], inputs, labels, testInputs, testLabels, load,
              save, scale = "1", profilePath;
  int epochs = 1;
  bool fresh = false;
  dsmp::TrainingLoopOptions options;
  options.verbose = true;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](std::string &into) {
      if (i + 1 >= argc)
        return false;
      into = argv[++i];
      return true;
    };
    std::string text;
    bool ok = true;
    if (arg == "--inputs")
      ok = value(inputs);
    else if (arg == "--labels")
      ok = value(labels);
    else if (arg == "--test-inputs")
      ok = value(testInputs);
    else if (arg == "--test-labels")
      ok = value(testLabels);
    else if (arg == "--load")
      ok = value(load);
    else if (arg == "--save")
      ok = value(save);
    else if (arg == "--loss-scale")
      ok = value(scale);
    else if (arg == "--monitor-log")
      ok = value(options.monitorLog);
    else if (arg == "--monitor-every" && (ok = value(text)))
      options.monitorEvery = std::atoll(text.c_str());
    else if (arg == "--fallback-threshold" && (ok = value(text)))
      options.fallback.threshold = std::strtod(text.c_str(), nullptr);
    else if (arg == "--fallback-window" && (ok = value(text)))
      options.fallback.window = std::atoll(text.c_str());
    else if (arg == "--fallback-probation" && (ok = value(text)))
      options.fallback.probation = std::atoll(text.c_str());
    else if (arg == "--profile")
      ok = value(profilePath);
    else if (arg == "--fresh-init")
      fresh = true;
    else if (arg == "--epochs" && (ok = value(text)))
      epochs = std::atoi(text.c_str());
    else if (arg == "--learning-rate" && (ok = value(text)))
      options.learningRate = std::strtod(text.c_str(), nullptr);
    else if (arg == "--seed" && (ok = value(text)))
      options.seed = std::strtoull(text.c_str(), nullptr, 10);
    else if (arg != "--epochs" && arg != "--learning-rate" && arg != "--seed" &&
             arg != "--monitor-every" && arg != "--fallback-threshold" &&
             arg != "--fallback-window" && arg != "--fallback-probation")
      return fail("unknown option '" + arg + "'\n" + kUsage);
    if (!ok)
      return fail(arg + " needs a value");
  }
  if (inputs.empty() || labels.empty())
    return fail(std::string("--inputs and --labels are required\n") + kUsage);
  if (epochs < 0)
    return fail("--epochs must be 0 or more");
  for (int i = 2; i < argc; ++i)
    if (std::string(argv[i]) == "--fallback-threshold" &&
        !(options.fallback.threshold > 0 && options.fallback.threshold <= 1))
      return fail("--fallback-threshold must be in (0, 1]");
  if (scale == "dynamic") {
    options.scaler = dsmp::LossScalerConfig();
  } else {
    char *end = nullptr;
    double s = std::strtod(scale.c_str(), &end);
    if (!end || *end)
      return fail("--loss-scale is 'dynamic' or a number, not '" + scale + "'");
    options.scaler = dsmp::LossScalerConfig::fixed(s);
  }

  std::string error;
  Data train, test;
  if (!readData(inputs, labels, train, error))
    return fail(error);
  bool haveTest = !testInputs.empty() || !testLabels.empty();
  if (haveTest && !readData(testInputs, testLabels, test, error))
    return fail(error);
  auto session = dsmp::TrainingSession::load(artifact, error);
  if (!session)
    return fail(error);
  if (fresh)
    session->initialize(options.seed);
  auto loop =
      dsmp::TrainingLoop::create(std::move(session), nullptr, options, error);
  if (!loop)
    return fail(error);
  if (!load.empty() && !loop->load(load, error))
    return fail(error);
  // The profile's file is opened before the first step, so that a path
  // that cannot be written fails now; it is renamed into place once full.
  std::string profilePartial = profilePath + ".partial";
  std::FILE *profileFile = nullptr;
  if (!profilePath.empty()) {
    if (!loop->profiled())
      return fail("--profile: '" + artifact +
                  "' was not compiled with --profile (dsmp-compile --train "
                  "--profile)");
    profileFile = std::fopen(profilePartial.c_str(), "w");
    if (!profileFile)
      return fail("--profile: cannot write '" + profilePath +
                  "': " + std::strerror(errno));
  }
  auto writeProfile = [&]() -> bool {
    std::string json = loop->profile().json();
    bool written = std::fputs(json.c_str(), profileFile) >= 0;
    written = std::fclose(profileFile) == 0 && written;
    profileFile = nullptr;
    if (!written ||
        std::rename(profilePartial.c_str(), profilePath.c_str()) != 0) {
      std::remove(profilePartial.c_str());
      return false;
    }
    std::fputs(loop->profile().text().c_str(), stdout);
    return true;
  };
  std::vector<dsmp::EpochStats> history;
  if (!loop->train(train.view(), epochs, &history, error)) {
    if (profileFile) {
      std::fclose(profileFile);
      std::remove(profilePartial.c_str());
    }
    return fail(error);
  }
  if (profileFile && !writeProfile())
    return fail("--profile: cannot write '" + profilePath + "'");
  if (!save.empty() && !loop->save(save, "dsmprt-train", error))
    return fail(error);
  if (haveTest) {
    dsmp::Evaluation result;
    if (!loop->evaluate(test.view(), result, error))
      return fail(error);
    std::printf("test: accuracy %.2f %%, loss %.4f, %lld samples; %lld steps, "
                "%lld skipped, loss scale %g, %lld fallbacks\n",
                100.0 * result.accuracy, result.loss,
                static_cast<long long>(result.samples),
                static_cast<long long>(loop->session().step()),
                static_cast<long long>(loop->scaler().skippedSteps()),
                loop->scaler().scale(),
                static_cast<long long>(loop->fallback().fallbacks()));
  }
  return 0;
}
