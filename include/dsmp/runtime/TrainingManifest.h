//===- TrainingManifest.h - A training artifact's description --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `dsmp-compile MODEL --train -o ART` writes a folder with three ordinary
// artifacts (train_step/, eval_step/, predict/), the initial state
// (state.bin: each state tensor in order, dense, little-endian) and
// training.txt:
//
//   dsmp-training 1
//   source digits_cnn.onnx
//   loss cross_entropy
//   optimizer adam <beta1> <beta2> <epsilon> <weight_decay> <momentum>
//   learning_rate <default>
//   formats <default: fp32|tf32|fp16|bf16> <target> <optimizer precision>
//   batch <N>
//   inputs <count> <name...>
//   labels <dtype> <rank> <dims...>
//   state <name> <role> <weight> <dtype> <rank> <dims...> [init <how> <fan-in>]
//   monitor train_step_monitor          (optional: the monitored twin)
//   layer <name>                        (optional, one per layer that may
//                                        fall back to FP32, forward order)
//   initial state.bin <bytes> <contentHash hex>
//
// Roles: weight (the f32 master weights), adam_m, adam_v, momentum. Each
// graph takes the state tensors it needs as inputs of the same names and
// train_step returns them as NAME:next. Names are percent-encoded as in
// Manifest.h.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_RUNTIME_TRAININGMANIFEST_H
#define DSMP_RUNTIME_TRAININGMANIFEST_H

#include "dsmp/runtime/Manifest.h"

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace dsmp::training {

inline constexpr const char *kTrainingManifestName = "training.txt";
inline constexpr const char *kInitialStateName = "state.bin";
inline constexpr const char *kTrainStepDir = "train_step";
inline constexpr const char *kEvalStepDir = "eval_step";
inline constexpr const char *kPredictDir = "predict";
inline constexpr const char *kTrainStepMonitorDir = "train_step_monitor";
inline constexpr int kTrainingVersion = 1;

struct StateSpec {
  std::string name, role, weight, dtype;
  std::vector<int64_t> dims;
  /// Weights: how a fresh initialization draws it (uniform +-1/sqrt(fanIn),
  /// normal, ones, zeros, keep).
  std::string init = "keep";
  int64_t fanIn = 0;
  size_t bytes() const {
    size_t n = artifact::dtypeSize(dtype);
    for (int64_t d : dims)
      n *= static_cast<size_t>(d);
    return n;
  }
};

struct TrainingManifest {
  std::string source;
  std::string loss;
  std::string optimizer;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8, weightDecay = 0,
         momentum = 0;
  double learningRate = 1e-3;
  std::string defaultFormat = "fp32", target, optimizerPrecision = "f32";
  int64_t batch = 0;
  std::vector<std::string> inputs;
  std::string labelsDtype;
  std::vector<int64_t> labelsDims;
  std::vector<StateSpec> state;
  artifact::FileSpec initial;
  /// train_step_monitor/ is there (train_step that returns grad_stats).
  bool hasMonitor = false;
  /// The layers each graph carries an FP32 variant of (element k of its
  /// `layer_fallback` input), in forward order; empty: none.
  std::vector<std::string> layers;
};

/// The shortest text that reads back as `v` exactly.
inline std::string exactNumber(double v) {
  char text[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v)
      break;
  }
  return text;
}

inline std::string writeTrainingManifest(const TrainingManifest &m) {
  std::ostringstream os;
  auto dims = [&](const std::vector<int64_t> &d) {
    os << " " << d.size();
    for (int64_t x : d)
      os << " " << x;
  };
  os << "dsmp-training " << kTrainingVersion << "\n";
  os << "source " << artifact::encodeName(m.source) << "\n";
  os << "loss " << m.loss << "\n";
  os << "optimizer " << m.optimizer << " " << exactNumber(m.beta1) << " "
     << exactNumber(m.beta2) << " " << exactNumber(m.epsilon) << " "
     << exactNumber(m.weightDecay) << " " << exactNumber(m.momentum) << "\n";
  os << "learning_rate " << exactNumber(m.learningRate) << "\n";
  os << "formats " << m.defaultFormat << " " << m.target << " "
     << m.optimizerPrecision << "\n";
  os << "batch " << m.batch << "\n";
  os << "inputs " << m.inputs.size();
  for (const std::string &name : m.inputs)
    os << " " << artifact::encodeName(name);
  os << "\n";
  os << "labels " << m.labelsDtype;
  dims(m.labelsDims);
  os << "\n";
  for (const StateSpec &s : m.state) {
    os << "state " << artifact::encodeName(s.name) << " " << s.role << " "
       << artifact::encodeName(s.weight) << " " << s.dtype;
    dims(s.dims);
    if (s.role == "weight")
      os << " init " << s.init << " " << s.fanIn;
    os << "\n";
  }
  if (m.hasMonitor)
    os << "monitor " << kTrainStepMonitorDir << "\n";
  for (const std::string &layer : m.layers)
    os << "layer " << artifact::encodeName(layer) << "\n";
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(m.initial.hash));
  os << "initial " << m.initial.name << " " << m.initial.size << " " << hash
     << "\n";
  return os.str();
}

/// Parses training.txt; on failure `error` says which line and why.
inline bool parseTrainingManifest(const std::string &text, TrainingManifest &m,
                                  std::string &error) {
  std::istringstream lines(text);
  std::string line;
  int lineNo = 0;
  bool sawHeader = false, sawInitial = false;
  auto fail = [&](const std::string &why) {
    error = "training manifest line " + std::to_string(lineNo) + ": " + why;
    return false;
  };
  auto readDims = [](std::istringstream &fields, std::vector<int64_t> &dims) {
    size_t rank = 0;
    if (!(fields >> rank) || rank > 16)
      return false;
    dims.resize(rank);
    for (int64_t &d : dims)
      if (!(fields >> d) || d < 0 || d > (int64_t(1) << 40))
        return false;
    return true;
  };
  while (std::getline(lines, line)) {
    ++lineNo;
    if (line.empty())
      continue;
    std::istringstream fields(line);
    std::string kind;
    fields >> kind;
    if (!sawHeader) {
      int version = 0;
      if (kind != "dsmp-training" || !(fields >> version))
        return fail("not a dsmp training manifest");
      if (version != kTrainingVersion)
        return fail("training artifact version " + std::to_string(version) +
                    ", this runtime reads version " +
                    std::to_string(kTrainingVersion));
      sawHeader = true;
    } else if (kind == "source") {
      std::string encoded;
      if (!(fields >> encoded) || !artifact::decodeName(encoded, m.source))
        return fail("bad source");
    } else if (kind == "loss") {
      if (!(fields >> m.loss) || (m.loss != "cross_entropy" && m.loss != "mse"))
        return fail("bad loss");
    } else if (kind == "optimizer") {
      if (!(fields >> m.optimizer >> m.beta1 >> m.beta2 >> m.epsilon >>
            m.weightDecay >> m.momentum))
        return fail("bad optimizer");
    } else if (kind == "learning_rate") {
      if (!(fields >> m.learningRate))
        return fail("bad learning rate");
    } else if (kind == "formats") {
      if (!(fields >> m.defaultFormat >> m.target >> m.optimizerPrecision))
        return fail("bad formats");
    } else if (kind == "batch") {
      if (!(fields >> m.batch) || m.batch < 1)
        return fail("bad batch");
    } else if (kind == "inputs") {
      size_t count = 0;
      if (!(fields >> count) || count > 4096)
        return fail("bad inputs");
      m.inputs.resize(count);
      for (std::string &name : m.inputs) {
        std::string encoded;
        if (!(fields >> encoded) || !artifact::decodeName(encoded, name))
          return fail("bad input name");
      }
    } else if (kind == "labels") {
      if (!(fields >> m.labelsDtype) ||
          (m.labelsDtype != "i64" && m.labelsDtype != "f32") ||
          !readDims(fields, m.labelsDims))
        return fail("bad labels");
    } else if (kind == "state") {
      StateSpec s;
      std::string name, weight;
      if (!(fields >> name >> s.role >> weight >> s.dtype) ||
          !artifact::decodeName(name, s.name) ||
          !artifact::decodeName(weight, s.weight) ||
          (s.dtype != "f32" && s.dtype != "bf16") || !readDims(fields, s.dims))
        return fail("bad state entry");
      std::string initWord;
      if (fields >> initWord) {
        if (initWord != "init" || !(fields >> s.init >> s.fanIn) ||
            (s.init != "uniform" && s.init != "normal" && s.init != "ones" &&
             s.init != "zeros" && s.init != "keep") ||
            s.fanIn < 0)
          return fail("bad state init");
      }
      if (s.role != "weight" && s.role != "adam_m" && s.role != "adam_v" &&
          s.role != "momentum")
        return fail("unknown state role '" + s.role + "'");
      m.state.push_back(std::move(s));
    } else if (kind == "monitor") {
      std::string dir;
      if (!(fields >> dir) || dir != kTrainStepMonitorDir)
        return fail("bad monitor entry");
      m.hasMonitor = true;
    } else if (kind == "layer") {
      std::string encoded, name;
      if (!(fields >> encoded) || !artifact::decodeName(encoded, name) ||
          m.layers.size() >= 65536)
        return fail("bad layer entry");
      m.layers.push_back(std::move(name));
    } else if (kind == "initial") {
      std::string hash;
      if (!(fields >> m.initial.name >> m.initial.size >> hash) ||
          hash.size() != 16 ||
          hash.find_first_not_of("0123456789abcdef") != std::string::npos ||
          m.initial.name != kInitialStateName)
        return fail("bad initial entry");
      m.initial.hash = std::strtoull(hash.c_str(), nullptr, 16);
      sawInitial = true;
    } else {
      return fail("unknown entry '" + kind + "'");
    }
  }
  if (!sawHeader)
    return fail("empty manifest");
  if (!sawInitial || m.state.empty() || m.batch < 1 || m.loss.empty())
    return fail("incomplete manifest");
  size_t total = 0;
  for (const StateSpec &s : m.state)
    total += s.bytes();
  if (total != m.initial.size)
    return fail("the state's tensors take " + std::to_string(total) +
                " bytes, state.bin " + std::to_string(m.initial.size));
  return true;
}

/// What a checkpoint must match: the state's names, roles, dtypes and
/// shapes (a hash of them).
inline uint64_t stateLayoutHash(const TrainingManifest &m) {
  std::ostringstream os;
  for (const StateSpec &s : m.state) {
    os << s.name << " " << s.role << " " << s.dtype;
    for (int64_t d : s.dims)
      os << " " << d;
    os << "\n";
  }
  std::string text = os.str();
  return artifact::fnv1a(text.data(), text.size());
}

} // namespace dsmp::training

#endif // DSMP_RUNTIME_TRAININGMANIFEST_H
