//===- TrainingSession.cpp - Run a compiled training step ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/TrainingSession.h"

#include "dsmp/runtime/LayerFallback.h"

#include "dsmp/runtime/LossScaler.h"
#include "dsmp/runtime/dsmprt.h"
#include "runtime/lib/ModelProfiler.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

namespace dsmp {

namespace art = dsmp::artifact;
namespace tr = dsmp::training;

namespace {

constexpr const char *kCheckpointMagic = "dsmp-checkpoint";
constexpr int kCheckpointVersion = 1;

std::string joinPath(const std::string &dir, const std::string &name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

bool readAll(const std::string &path, std::string &bytes, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  std::ostringstream os;
  os << in.rdbuf();
  bytes = os.str();
  return true;
}

dsmp_dtype dtypeOf(const std::string &name) {
  return name == "bf16" ? DSMP_BF16 : name == "i64" ? DSMP_I64 : DSMP_F32;
}

std::string hex(uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx",
                static_cast<unsigned long long>(v));
  return text;
}

/// The index of input `name` of `model`, or -1.
long inputIndex(const dsmp_model *model, const std::string &name) {
  for (size_t i = 0; i < dsmp_num_inputs(model); ++i)
    if (name == dsmp_input_name(model, i))
      return static_cast<long>(i);
  return -1;
}

size_t dtypeBytes(dsmp_dtype dtype) {
  switch (dtype) {
  case DSMP_I64:
  case DSMP_F64:
  case DSMP_U64:
    return 8;
  case DSMP_F16:
  case DSMP_BF16:
  case DSMP_I16:
  case DSMP_U16:
    return 2;
  case DSMP_BOOL:
  case DSMP_U8:
  case DSMP_I8:
    return 1;
  default:
    return 4;
  }
}

int64_t elements(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

} // namespace

std::unique_ptr<TrainingSession> TrainingSession::load(const std::string &dir,
                                                       std::string &error) {
  std::unique_ptr<TrainingSession> s(new TrainingSession());
  s->dir_ = dir;
  std::string text;
  std::string manifestPath = joinPath(dir, tr::kTrainingManifestName);
  if (!readAll(manifestPath, text, error)) {
    error += " (is '" + dir + "' a training artifact of dsmp-compile --train?)";
    return nullptr;
  }
  if (!tr::parseTrainingManifest(text, s->manifest_, error)) {
    error = manifestPath + ": " + error;
    return nullptr;
  }
  std::string statePath = joinPath(dir, tr::kInitialStateName), state;
  if (!readAll(statePath, state, error))
    return nullptr;
  if (state.size() != s->manifest_.initial.size ||
      art::contentHash(state.data(), state.size()) !=
          s->manifest_.initial.hash) {
    error = statePath + ": size or content differs from the training "
                        "manifest (truncated or altered)";
    return nullptr;
  }
  size_t offset = 0;
  for (const tr::StateSpec &spec : s->manifest_.state) {
    std::vector<uint64_t> buffer((spec.bytes() + 7) / 8, 0);
    std::memcpy(buffer.data(), state.data() + offset, spec.bytes());
    offset += spec.bytes();
    s->state_[0].push_back(buffer);
    s->state_[1].push_back(std::move(buffer));
  }
  struct Part {
    const char *dir;
    dsmp_model **model;
  } parts[] = {{tr::kTrainStepDir, &s->train_},
               {tr::kEvalStepDir, &s->eval_},
               {tr::kPredictDir, &s->predict_}};
  for (const Part &part : parts)
    if (dsmp_model_load(joinPath(dir, part.dir).c_str(), part.model) != 0) {
      error = dsmp_last_error();
      return nullptr;
    }
  if (s->manifest_.hasMonitor &&
      dsmp_model_load(joinPath(dir, tr::kTrainStepMonitorDir).c_str(),
                      &s->monitor_) != 0) {
    error = dsmp_last_error();
    return nullptr;
  }
  if (dsmp_num_outputs(s->predict_) < 1) {
    error = "'" + dir + "': predict has no outputs";
    return nullptr;
  }
  s->outputName_ = dsmp_output_name(s->predict_, 0);
  size_t rank = dsmp_output_rank(s->predict_, 0);
  const int64_t *dims = dsmp_output_dims(s->predict_, 0);
  s->outputSample_ = 1;
  for (size_t i = 1; i < rank; ++i)
    s->outputSample_ *= dims[i];
  return s;
}

TrainingSession::~TrainingSession() {
  for (dsmp_model *m : {train_, eval_, predict_, monitor_})
    if (m)
      dsmp_model_free(m);
}

int64_t TrainingSession::inputSampleBytes(size_t i) const {
  if (i >= manifest_.inputs.size())
    return 0;
  long index = inputIndex(predict_, manifest_.inputs[i]);
  if (index < 0)
    return 0;
  size_t rank = dsmp_input_rank(predict_, index);
  const int64_t *dims = dsmp_input_dims(predict_, index);
  int64_t n = static_cast<int64_t>(
      dtypeBytes(dsmp_input_dtype(predict_, static_cast<size_t>(index))));
  for (size_t d = 1; d < rank; ++d)
    n *= dims[d];
  return n;
}

int64_t TrainingSession::labelSampleBytes() const {
  return elements(manifest_.labelsDims) /
         std::max<int64_t>(manifest_.batch, 1) *
         (manifest_.labelsDtype == "i64" ? 8 : 4);
}

bool TrainingSession::adoptState(const TrainingSession &other,
                                 std::string &error) {
  if (tr::stateLayoutHash(other.manifest_) != tr::stateLayoutHash(manifest_)) {
    error = "'" + other.dir_ + "' and '" + dir_ + "' hold different state";
    return false;
  }
  state_[current_] = other.state_[other.current_];
  step_ = other.step_;
  return true;
}

void TrainingSession::initialize(uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (size_t k = 0; k < manifest_.state.size(); ++k) {
    const tr::StateSpec &spec = manifest_.state[k];
    std::vector<uint64_t> &buffer = state_[current_][k];
    if (spec.role != "weight") {
      std::fill(buffer.begin(), buffer.end(), 0);
      continue;
    }
    float *w = reinterpret_cast<float *>(buffer.data());
    int64_t n = elements(spec.dims);
    if (spec.init == "uniform" && spec.fanIn > 0) {
      float bound = 1.0f / std::sqrt(static_cast<float>(spec.fanIn));
      std::uniform_real_distribution<float> draw(-bound, bound);
      for (int64_t i = 0; i < n; ++i)
        w[i] = draw(rng);
    } else if (spec.init == "normal") {
      std::normal_distribution<float> draw(0.0f, 1.0f);
      for (int64_t i = 0; i < n; ++i)
        w[i] = draw(rng);
    } else if (spec.init == "ones" || spec.init == "zeros") {
      std::fill(w, w + n, spec.init == "ones" ? 1.0f : 0.0f);
    }
  }
  step_ = 0;
}

bool TrainingSession::bindState(dsmp_model *model, bool withOptimizer,
                                std::string &error) {
  int next = current_ ^ 1;
  for (size_t k = 0; k < manifest_.state.size(); ++k) {
    const tr::StateSpec &spec = manifest_.state[k];
    if (spec.role != "weight" && !withOptimizer)
      continue;
    if (dsmp_bind_input(model, spec.name.c_str(), dtypeOf(spec.dtype),
                        spec.dims.data(), spec.dims.size(),
                        state_[current_][k].data(), spec.bytes()) != 0 ||
        (withOptimizer &&
         dsmp_bind_output(model, (spec.name + ":next").c_str(),
                          dtypeOf(spec.dtype), spec.dims.data(),
                          spec.dims.size(), state_[next][k].data(),
                          spec.bytes()) != 0)) {
      error = dsmp_last_error();
      return false;
    }
  }
  // The layers' variants (an artifact compiled with --fallback).
  if (!manifest_.layers.empty()) {
    int64_t dims[1] = {static_cast<int64_t>(manifest_.layers.size())};
    size_t bytes = manifest_.layers.size() * sizeof(float);
    if (layerSelector_.size() != manifest_.layers.size())
      layerSelector_.assign(manifest_.layers.size(), 0.0f);
    if (layerFault_.size() != manifest_.layers.size())
      layerFault_.assign(manifest_.layers.size(), 1.0f);
    if (dsmp_bind_input(model, "layer_fallback", DSMP_F32, dims, 1,
                        layerSelector_.data(), bytes) != 0 ||
        (inputIndex(model, "layer_fault") >= 0 &&
         dsmp_bind_input(model, "layer_fault", DSMP_F32, dims, 1,
                         layerFault_.data(), bytes) != 0)) {
      error = dsmp_last_error();
      return false;
    }
  }
  return true;
}

bool TrainingSession::setLayerSelector(const std::vector<float> &fp32,
                                       std::string &error) {
  if (fp32.size() != manifest_.layers.size()) {
    error = "the artifact has " + std::to_string(manifest_.layers.size()) +
            " layers with an FP32 variant, got " + std::to_string(fp32.size()) +
            " choices";
    return false;
  }
  layerSelector_ = fp32;
  return true;
}

bool TrainingSession::setLayerFault(const std::string &layer, float factor,
                                    std::string &error) {
  if (inputIndex(train_, "layer_fault") < 0) {
    error = "the training step was compiled without --fallback and "
            "--fault-injection";
    return false;
  }
  for (size_t k = 0; k < manifest_.layers.size(); ++k)
    if (manifest_.layers[k] == layer) {
      if (layerFault_.size() != manifest_.layers.size())
        layerFault_.assign(manifest_.layers.size(), 1.0f);
      layerFault_[k] = factor;
      return true;
    }
  error = "no layer '" + layer + "' with an FP32 variant";
  return false;
}

bool TrainingSession::bindInputs(dsmp_model *model,
                                 const std::vector<const void *> &inputs,
                                 const void *labels, std::string &error) {
  if (inputs.size() != manifest_.inputs.size()) {
    error = "the model takes " + std::to_string(manifest_.inputs.size()) +
            " inputs, got " + std::to_string(inputs.size());
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    long index = inputIndex(model, manifest_.inputs[i]);
    if (index < 0) {
      error = "'" + dir_ + "' lacks input '" + manifest_.inputs[i] + "'";
      return false;
    }
    size_t rank = dsmp_input_rank(model, index);
    const int64_t *dims = dsmp_input_dims(model, index);
    std::vector<int64_t> shape(dims, dims + rank);
    dsmp_dtype dtype = dsmp_input_dtype(model, index);
    size_t bytes = static_cast<size_t>(elements(shape)) * dtypeBytes(dtype);
    if (dsmp_bind_input(model, manifest_.inputs[i].c_str(), dtype, dims, rank,
                        inputs[i], bytes) != 0) {
      error = dsmp_last_error();
      return false;
    }
  }
  if (!labels)
    return true;
  // Class indices must name one of the output's classes.
  if (manifest_.loss == "cross_entropy") {
    size_t rank = dsmp_output_rank(predict_, 0);
    int64_t classes = rank ? dsmp_output_dims(predict_, 0)[rank - 1] : 1;
    const int64_t *ids = static_cast<const int64_t *>(labels);
    for (int64_t i = 0, n = elements(manifest_.labelsDims); i < n; ++i)
      if (ids[i] < 0 || ids[i] >= classes) {
        error = "label " + std::to_string(ids[i]) + " at position " +
                std::to_string(i) + " is not one of the " +
                std::to_string(classes) + " classes of output '" + outputName_ +
                "'";
        return false;
      }
  }
  size_t labelBytes = static_cast<size_t>(elements(manifest_.labelsDims)) *
                      (manifest_.labelsDtype == "i64" ? 8 : 4);
  if (dsmp_bind_input(model, "labels", dtypeOf(manifest_.labelsDtype),
                      manifest_.labelsDims.data(), manifest_.labelsDims.size(),
                      labels, labelBytes) != 0) {
    error = dsmp_last_error();
    return false;
  }
  return true;
}

bool TrainingSession::trainStep(const std::vector<const void *> &inputs,
                                const void *labels, float learningRate,
                                float lossScale, StepResult &result,
                                std::string &error,
                                std::vector<float> *gradStats,
                                std::vector<float> *layerStats) {
  if (!labels) {
    error = "train_step needs labels";
    return false;
  }
  if (!(lossScale > 0) || !std::isfinite(lossScale)) {
    error = "the loss scale must be positive and finite";
    return false;
  }
  if (gradStats && !monitor_) {
    error = "'" + dir_ +
            "' has no monitored train step (compile it with "
            "--monitor)";
    return false;
  }
  dsmp_model *model = gradStats ? monitor_ : train_;
  float step = static_cast<float>(step_ + 1);
  if (!bindInputs(model, inputs, labels, error) ||
      !bindState(model, /*withOptimizer=*/true, error))
    return false;
  struct Scalar {
    const char *name;
    const float *value;
  } scalars[] = {{"loss_scale", &lossScale},
                 {"learning_rate", &learningRate},
                 {"step", &step}};
  for (const Scalar &s : scalars)
    if (dsmp_bind_input(model, s.name, DSMP_F32, nullptr, 0, s.value,
                        sizeof(float)) != 0) {
      error = dsmp_last_error();
      return false;
    }
  std::vector<float> fault;
  if (hasGradientFault()) {
    size_t weights = 0;
    for (const tr::StateSpec &spec : manifest_.state)
      weights += spec.role == "weight";
    fault = gradientFault_.empty() ? std::vector<float>(weights, 0.0f)
                                   : std::move(gradientFault_);
    gradientFault_.clear();
    int64_t dims[1] = {static_cast<int64_t>(fault.size())};
    if (dsmp_bind_input(model, "gradient_fault", DSMP_F32, dims, 1,
                        fault.data(), fault.size() * sizeof(float)) != 0) {
      error = dsmp_last_error();
      return false;
    }
  }
  if (dsmp_run(model) != 0) {
    error = dsmp_last_error();
    return false;
  }
  result.loss = *static_cast<const float *>(dsmp_output_data(model, "loss"));
  result.gradNorm =
      *static_cast<const float *>(dsmp_output_data(model, "grad_norm"));
  result.applied = std::isfinite(result.gradNorm);
  if (gradStats) {
    const float *stats =
        static_cast<const float *>(dsmp_output_data(model, "grad_stats"));
    size_t weights = 0;
    for (const tr::StateSpec &spec : manifest_.state)
      weights += spec.role == "weight";
    gradStats->assign(stats, stats + 4 * weights);
    if (layerStats && !manifest_.layers.empty()) {
      const float *layers =
          static_cast<const float *>(dsmp_output_data(model, "layer_stats"));
      if (!layers) {
        error = "'" + dir_ + "': the monitored step has no layer_stats";
        return false;
      }
      layerStats->assign(layers, layers + 4 * manifest_.layers.size());
    }
  }
  if (result.applied) {
    current_ ^= 1;
    ++step_;
  }
  return true;
}

bool TrainingSession::evalStep(const std::vector<const void *> &inputs,
                               const void *labels, EvalResult &result,
                               std::string &error) {
  if (!bindInputs(eval_, inputs, labels, error) ||
      !bindState(eval_, /*withOptimizer=*/false, error))
    return false;
  if (dsmp_run(eval_) != 0) {
    error = dsmp_last_error();
    return false;
  }
  const float *loss =
      static_cast<const float *>(dsmp_output_data(eval_, "sample_loss"));
  const float *out =
      static_cast<const float *>(dsmp_output_data(eval_, outputName_.c_str()));
  int64_t losses = elements(manifest_.labelsDims);
  if (manifest_.loss == "mse")
    losses = manifest_.batch;
  result.sampleLoss.assign(loss, loss + losses);
  result.output.assign(out, out + outputSample_ * manifest_.batch);
  return true;
}

bool TrainingSession::predict(const std::vector<const void *> &inputs,
                              std::vector<float> &output, std::string &error) {
  if (!bindInputs(predict_, inputs, nullptr, error) ||
      !bindState(predict_, /*withOptimizer=*/false, error))
    return false;
  if (dsmp_run(predict_) != 0) {
    error = dsmp_last_error();
    return false;
  }
  const float *out = static_cast<const float *>(
      dsmp_output_data(predict_, outputName_.c_str()));
  output.assign(out, out + outputSample_ * manifest_.batch);
  return true;
}

bool TrainingSession::hasGradientFault() const {
  return inputIndex(train_, "gradient_fault") >= 0;
}

const float *TrainingSession::weight(const std::string &name,
                                     size_t *count) const {
  for (size_t k = 0; k < manifest_.state.size(); ++k)
    if (manifest_.state[k].name == name &&
        manifest_.state[k].role == "weight") {
      if (count)
        *count = static_cast<size_t>(elements(manifest_.state[k].dims));
      return reinterpret_cast<const float *>(state_[current_][k].data());
    }
  return nullptr;
}

bool TrainingSession::setWeight(const std::string &name, const float *values,
                                size_t count, std::string &error) {
  size_t have = 0;
  float *w = const_cast<float *>(weight(name, &have));
  if (!w) {
    error = "no weight '" + name + "'";
    return false;
  }
  if (have != count) {
    error = "weight '" + name + "' has " + std::to_string(have) +
            " elements, got " + std::to_string(count);
    return false;
  }
  std::memcpy(w, values, count * sizeof(float));
  return true;
}

// Checkpoint: a text header, then the state tensors in manifest order.
//   dsmp-checkpoint 1
//   layout <hash of the state's names, roles, dtypes, shapes>
//   step <n>
//   config <percent-encoded text>
//   scaler <percent-encoded LossScaler state, or ->
//   fallback <percent-encoded FallbackPolicy state>   (optional)
//   data <bytes> <contentHash>
//   <blank line, then the bytes>
bool TrainingSession::save(const std::string &path, const std::string &config,
                           std::string &error, const std::string &scaler,
                           const std::string &fallback) const {
  std::string data;
  for (size_t k = 0; k < manifest_.state.size(); ++k)
    data.append(reinterpret_cast<const char *>(state_[current_][k].data()),
                manifest_.state[k].bytes());
  std::ostringstream header;
  header << kCheckpointMagic << " " << kCheckpointVersion << "\n"
         << "layout " << hex(tr::stateLayoutHash(manifest_)) << "\n"
         << "step " << step_ << "\n"
         << "config " << art::encodeName(config.empty() ? "-" : config) << "\n"
         << "scaler " << art::encodeName(scaler.empty() ? "-" : scaler) << "\n";
  if (!fallback.empty())
    header << "fallback " << art::encodeName(fallback) << "\n";
  header << "data " << data.size() << " "
         << hex(art::contentHash(data.data(), data.size())) << "\n\n";
  std::string bytes = header.str() + data;
  // Beside the target (same file system, so the rename is atomic).
  std::string temp = path + ".tmp-XXXXXX";
  int fd = mkstemp(temp.data());
  if (fd < 0) {
    error = "cannot write beside '" + path + "': " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      error = "cannot write '" + temp + "': " + std::strerror(errno);
      ::close(fd);
      ::unlink(temp.c_str());
      return false;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    error = "cannot flush '" + temp + "': " + std::strerror(errno);
    ::unlink(temp.c_str());
    return false;
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    error = "cannot rename onto '" + path + "': " + std::strerror(errno);
    ::unlink(temp.c_str());
    return false;
  }
  return true;
}

bool TrainingSession::restore(const std::string &path, std::string *config,
                              std::string &error, std::string *scaler,
                              std::string *fallback) {
  std::string bytes;
  if (!readAll(path, bytes, error))
    return false;
  auto refuse = [&](const std::string &why) {
    error = "checkpoint '" + path + "' " + why + "; the weights are unchanged";
    return false;
  };
  size_t end = bytes.find("\n\n");
  if (end == std::string::npos || end > 1 << 20)
    return refuse("has no header (not a dsmp checkpoint, or truncated)");
  std::istringstream header(bytes.substr(0, end));
  std::string magic, key, savedConfig, savedScaler, savedFallback, layout, hash;
  int version = 0;
  int64_t step = 0;
  size_t size = 0;
  if (!(header >> magic >> version) || magic != kCheckpointMagic)
    return refuse("is not a dsmp checkpoint");
  if (version != kCheckpointVersion)
    return refuse("is version " + std::to_string(version) +
                  ", this runtime reads " + std::to_string(kCheckpointVersion));
  if (!(header >> key >> layout) || key != "layout" ||
      !(header >> key >> step) || key != "step" || step < 0 ||
      !(header >> key >> savedConfig) || key != "config" ||
      !(header >> key >> savedScaler) || key != "scaler" || !(header >> key))
    return refuse("has a damaged header");
  if (key == "fallback" && !(header >> savedFallback >> key))
    return refuse("has a damaged header");
  if (key != "data" || !(header >> size >> hash))
    return refuse("has a damaged header");
  if (layout != hex(tr::stateLayoutHash(manifest_)))
    return refuse("belongs to another model or training setup (its state "
                  "tensors differ from this one's)");
  size_t need = 0;
  for (const tr::StateSpec &spec : manifest_.state)
    need += spec.bytes();
  const char *data = bytes.data() + end + 2;
  size_t have = bytes.size() - end - 2;
  if (size != need || have != need)
    return refuse("holds " + std::to_string(have) + " bytes of state, " +
                  std::to_string(need) + " expected (truncated?)");
  if (hex(art::contentHash(data, have)) != hash)
    return refuse("is damaged (its data does not match its hash)");
  std::string decoded, decodedScaler;
  if (!art::decodeName(savedConfig, decoded) ||
      !art::decodeName(savedScaler, decodedScaler))
    return refuse("has a damaged config");
  if (LossScaler probe; decodedScaler != "-" && !probe.fromText(decodedScaler))
    return refuse("has a damaged loss-scaler state");
  std::string decodedFallback;
  if (!savedFallback.empty() &&
      (!art::decodeName(savedFallback, decodedFallback) ||
       !FallbackPolicy(FallbackConfig(), manifest_.layers)
            .fromText(decodedFallback)))
    return refuse("has a damaged layer-fallback state");
  size_t offset = 0;
  for (size_t k = 0; k < manifest_.state.size(); ++k) {
    std::memcpy(state_[current_][k].data(), data + offset,
                manifest_.state[k].bytes());
    offset += manifest_.state[k].bytes();
  }
  step_ = step;
  if (config)
    *config = decoded == "-" ? "" : decoded;
  if (scaler)
    *scaler = decodedScaler == "-" ? "" : decodedScaler;
  if (fallback)
    *fallback = decodedFallback;
  return true;
}

bool TrainingSession::profiled() const {
  return dsmprt::profilerOf(train_) != nullptr;
}

void TrainingSession::resetProfile() {
  for (dsmp_model *m : {train_, monitor_})
    if (m && dsmp_model_profiled(m))
      dsmp_profile_reset(m);
}

ProfileReport TrainingSession::profile() const {
  ProfileReport report;
  for (dsmp_model *m : {train_, monitor_})
    if (const Profiler *profiler = dsmprt::profilerOf(m))
      report.merge(profiler->report(dir_));
  return report;
}

} // namespace dsmp
