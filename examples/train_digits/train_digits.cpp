//===- train_digits.cpp - Train digits_cnn in three precisions -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Trains the shared digits_cnn architecture from a fresh initialization
// (fixed seed) on the 1347 training digits, in FP32, BF16 and FP16 with a
// static loss scale of 1024 (sm_80's formats, emulated exactly on this
// CPU), and prints one line per mode with its test accuracy on the 450
// held-out digits. The data comes from make_data.py.
//
//   train_digits MODEL.onnx DATA_DIR [EPOCHS] [MODES]
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/Trainer.h"
#include "dsmp/runtime/TensorFile.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

bool read(const std::string &path, dsmp::runtime::HostTensor &tensor) {
  std::string error;
  if (!dsmp::runtime::readTensorFile(path, tensor, error)) {
    std::fprintf(stderr, "train_digits: %s\n", error.c_str());
    return false;
  }
  return true;
}

dsmp::DataView view(const dsmp::runtime::HostTensor &images,
                    const dsmp::runtime::HostTensor &labels) {
  dsmp::DataView v;
  v.inputs = {images.data.data()};
  v.labels = labels.data.data();
  v.size = images.dims.empty() ? 0 : images.dims[0];
  return v;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: train_digits MODEL.onnx DATA_DIR [EPOCHS] "
                         "[fp32,bf16,fp16]\n");
    return 2;
  }
  std::string model = argv[1], data = argv[2];
  int epochs = argc > 3 ? std::atoi(argv[3]) : 40;
  std::string modes = argc > 4 ? argv[4] : "fp32,bf16,fp16";
  dsmp::runtime::HostTensor trainImages, trainLabels, testImages, testLabels;
  if (!read(data + "/train_images.pb", trainImages) ||
      !read(data + "/train_labels.pb", trainLabels) ||
      !read(data + "/test_images.pb", testImages) ||
      !read(data + "/test_labels.pb", testLabels))
    return 1;

  std::stringstream list(modes);
  std::string mode;
  while (std::getline(list, mode, ',')) {
    dsmp::PrecisionConfig config;
    config.defaultFormat = mode;
    dsmp::TrainerOptions options;
    options.batchSize = 64;
    options.learningRate = 2e-3;
    options.freshInit = true;
    options.seed = 0;
    options.scaler = dsmp::LossScalerConfig::fixed(mode == "fp16" ? 1024 : 1);
    options.verbose = std::getenv("TRAIN_DIGITS_VERBOSE") != nullptr;
    std::string error;
    auto trainer =
        dsmp::MixedPrecisionTrainer::create(model, config, options, error);
    if (!trainer) {
      std::fprintf(stderr, "train_digits: %s: %s\n", mode.c_str(),
                   error.c_str());
      return 1;
    }
    std::vector<dsmp::EpochStats> history;
    auto start = std::chrono::steady_clock::now();
    if (!trainer->train(view(trainImages, trainLabels), epochs, &history,
                        error)) {
      std::fprintf(stderr, "train_digits: %s: %s\n", mode.c_str(),
                   error.c_str());
      return 1;
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    dsmp::Evaluation test;
    if (!trainer->evaluate(view(testImages, testLabels), test, error)) {
      std::fprintf(stderr, "train_digits: %s: %s\n", mode.c_str(),
                   error.c_str());
      return 1;
    }
    int64_t skipped = 0;
    for (const dsmp::EpochStats &e : history)
      skipped += e.skipped;
    std::printf("%s: test accuracy %.2f %%, test loss %.4f, final train loss "
                "%.4f, %d epochs in %.1f s, %lld steps skipped, loss scale "
                "%g\n",
                mode.c_str(), 100.0 * test.accuracy, test.loss,
                history.empty() ? 0.0 : history.back().loss, epochs, seconds,
                static_cast<long long>(skipped), trainer->scaler().scale());
    std::fflush(stdout);
  }
  return 0;
}
