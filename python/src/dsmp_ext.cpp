//===- dsmp_ext.cpp - The dsmp Python extension (nanobind) ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// dsmp._dsmp: compile (the driver, through CompileAPI.h) and Model (the
// runtime's C API). numpy arrays go in and come out; dtypes and shapes are
// checked by the runtime, whose errors become Python exceptions. Compiles
// run on a worker thread so that Ctrl-C stops them (runInterruptibly).
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/CompileAPI.h"
#include "dsmp/Driver/Trainer.h"
#include "dsmp/runtime/Manifest.h"
#include "dsmp/runtime/dsmprt.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace nb = nanobind;

namespace {
/// The dsmp_dtype of a numpy array's dtype, or 0.
int dtypeCode(const nb::dlpack::dtype &t) {
  using nb::dlpack::dtype_code;
  if (t.lanes != 1)
    return 0;
  if (t.code == uint8_t(dtype_code::Float)) {
    if (t.bits == 32)
      return DSMP_F32;
    if (t.bits == 64)
      return DSMP_F64;
    if (t.bits == 16)
      return DSMP_F16;
  }
  if (t.code == uint8_t(dtype_code::Bfloat) && t.bits == 16)
    return DSMP_BF16;
  if (t.code == uint8_t(dtype_code::Int)) {
    if (t.bits == 64)
      return DSMP_I64;
    if (t.bits == 32)
      return DSMP_I32;
    if (t.bits == 16)
      return DSMP_I16;
    if (t.bits == 8)
      return DSMP_I8;
  }
  if (t.code == uint8_t(dtype_code::UInt)) {
    if (t.bits == 64)
      return DSMP_U64;
    if (t.bits == 32)
      return DSMP_U32;
    if (t.bits == 16)
      return DSMP_U16;
    if (t.bits == 8)
      return DSMP_U8;
  }
  if (t.code == uint8_t(dtype_code::Bool))
    return DSMP_BOOL;
  return 0;
}

/// The numpy dtype name for a dsmp_dtype (bf16 comes back as its bits).
const char *numpyName(int dtype) {
  switch (dtype) {
  case DSMP_F32:
    return "float32";
  case DSMP_F64:
    return "float64";
  case DSMP_F16:
    return "float16";
  case DSMP_BF16:
    return "uint16";
  case DSMP_I64:
    return "int64";
  case DSMP_I32:
    return "int32";
  case DSMP_I16:
    return "int16";
  case DSMP_I8:
    return "int8";
  case DSMP_U8:
    return "uint8";
  case DSMP_U16:
    return "uint16";
  case DSMP_U32:
    return "uint32";
  case DSMP_U64:
    return "uint64";
  default:
    return "bool";
  }
}

/// An artifact's manifest as {target, source, variants: [{inputs, outputs}],
/// and for a precision compile precision: {formats_of, metric, tolerance,
/// ops_per_format}},
/// each tensor (name, dtype, dims): what a Module shows of an artifact it
/// cannot load (one for another CPU).
nb::dict readManifest(const std::string &dir) {
  namespace art = dsmp::artifact;
  std::string path = dir + "/" + art::kManifestName;
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw std::runtime_error("'" + dir + "' has no " + art::kManifestName +
                             " (not a dsmp artifact)");
  std::ostringstream text;
  text << file.rdbuf();
  art::Manifest manifest;
  std::string error;
  if (!art::parseManifest(text.str(), manifest, error))
    throw std::runtime_error("'" + path + "': " + error);
  auto tensors = [](const std::vector<art::TensorSpec> &list) {
    nb::list out;
    for (const art::TensorSpec &t : list)
      out.append(nb::make_tuple(t.name, t.dtype, nb::tuple(nb::cast(t.dims))));
    return out;
  };
  nb::list variants;
  for (const art::Variant &v : manifest.variants) {
    nb::dict variant;
    variant["inputs"] = tensors(v.inputs);
    variant["outputs"] = tensors(v.outputs);
    variants.append(variant);
  }
  nb::dict result;
  result["target"] = manifest.target;
  // The GPU a device artifact's kernels run on (None: none).
  if (manifest.device.empty())
    result["device"] = nb::none();
  else
    result["device"] = manifest.device;
  result["source"] = manifest.source;
  result["variants"] = variants;
  // Whether each input and output's first dim is a batch the runtime splits.
  nb::list batchInputs, batchOutputs;
  for (bool b : manifest.batchInputs)
    batchInputs.append(b);
  for (bool b : manifest.batchOutputs)
    batchOutputs.append(b);
  result["batch_inputs"] = batchInputs;
  result["batch_outputs"] = batchOutputs;
  if (manifest.hasPrecision) {
    nb::dict precision, formats;
    precision["formats_of"] = manifest.precision.formatsOf;
    precision["metric"] = manifest.precision.metric;
    precision["tolerance"] = manifest.precision.tolerance;
    for (const auto &[format, count] : manifest.precision.opsPerFormat)
      formats[format.c_str()] = count;
    precision["ops_per_format"] = formats;
    result["precision"] = precision;
  }
  return result;
}

class Model {
public:
  explicit Model(const std::string &dir) {
    if (dsmp_model_load(dir.c_str(), &model) != 0)
      throw std::runtime_error(dsmp_last_error());
  }
  ~Model() { dsmp_model_free(model); }
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  std::vector<std::string> inputNames() const {
    std::vector<std::string> names;
    for (size_t i = 0; i < dsmp_num_inputs(model); ++i)
      names.push_back(dsmp_input_name(model, i));
    return names;
  }
  std::vector<std::string> outputNames() const {
    std::vector<std::string> names;
    for (size_t i = 0; i < dsmp_num_outputs(model); ++i)
      names.push_back(dsmp_output_name(model, i));
    return names;
  }
  std::string target() const { return dsmp_model_target(model); }
  bool profiled() const { return dsmp_model_profiled(model) != 0; }
  std::string profileJson() {
    const char *json = dsmp_profile_json(model);
    if (!json)
      throw std::runtime_error(dsmp_last_error());
    return json;
  }
  void resetProfile() {
    if (dsmp_profile_reset(model) != 0)
      throw std::runtime_error(dsmp_last_error());
  }

  /// Binds each array by name, runs, returns the outputs as new arrays.
  nb::dict run(nb::dict inputs) {
    std::vector<nb::object> keepAlive;
    nb::module_ numpy = nb::module_::import_("numpy");
    for (auto [key, value] : inputs) {
      std::string name = nb::cast<std::string>(key);
      // A C-contiguous copy when needed; numpy does the conversion
      // (asarray, not ascontiguousarray, which turns a scalar into [1]).
      nb::object array = numpy.attr("asarray")(value, nb::arg("order") = "C");
      bool bfloat16 =
          nb::cast<std::string>(array.attr("dtype").attr("name")) == "bfloat16";
      if (bfloat16) // ml_dtypes.bfloat16: hand over the bits
        array = array.attr("view")("uint16");
      keepAlive.push_back(array);
      auto view =
          nb::cast<nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>>(array);
      int dtype = bfloat16 ? DSMP_BF16 : dtypeCode(view.dtype());
      if (!dtype)
        throw nb::type_error(
            ("input '" + name + "': unsupported dtype " +
             nb::cast<std::string>(nb::str(array.attr("dtype"))))
                .c_str());
      std::vector<int64_t> dims(view.ndim());
      for (size_t d = 0; d < view.ndim(); ++d)
        dims[d] = static_cast<int64_t>(view.shape(d));
      if (dsmp_bind_input(model, name.c_str(), static_cast<dsmp_dtype>(dtype),
                          dims.data(), dims.size(), view.data(),
                          view.nbytes()) != 0)
        throw std::invalid_argument(dsmp_last_error());
    }
    if (dsmp_run(model) != 0)
      throw std::runtime_error(dsmp_last_error());
    nb::dict outputs;
    for (size_t i = 0; i < dsmp_num_outputs(model); ++i) {
      const char *name = dsmp_output_name(model, i);
      const int64_t *dims = dsmp_output_dims(model, i);
      nb::list shape;
      for (size_t d = 0; d < dsmp_output_rank(model, i); ++d)
        shape.append(dims[d]);
      nb::object array = numpy.attr("empty")(
          nb::tuple(shape), numpyName(dsmp_output_dtype(model, i)));
      auto view = nb::cast<nb::ndarray<nb::c_contig, nb::device::cpu>>(array);
      std::memcpy(view.data(), dsmp_output_data(model, name), view.nbytes());
      // numpy has no bfloat16: ml_dtypes' type over the same bits.
      if (dsmp_output_dtype(model, i) == DSMP_BF16)
        array = array.attr("view")(
            nb::module_::import_("ml_dtypes").attr("bfloat16"));
      outputs[name] = array;
    }
    return outputs;
  }

private:
  dsmp_model *model = nullptr;
};
/// dsmp.MixedPrecisionTrainer's native half: numpy arrays of samples in,
/// dicts of figures out (python/dsmp/__init__.py adds the config handling).
class Trainer {
public:
  Trainer(const std::string &model, const nb::dict &config,
          const nb::dict &options) {
    dsmp::PrecisionConfig c;
    dsmp::TrainerOptions o;
    for (auto [key, value] : config) {
      std::string k = nb::cast<std::string>(key);
      if (k == "default")
        c.defaultFormat = nb::cast<std::string>(value);
      else if (k == "sensitive_layers")
        c.sensitiveLayers = nb::cast<std::vector<std::string>>(value);
      else if (k == "optimizer_precision")
        c.optimizerPrecision = nb::cast<std::string>(value);
      else if (k == "target")
        c.target = nb::cast<std::string>(value);
      else if (k == "precision_schedule")
        c.precisionSchedule = nb::cast<int64_t>(value);
      else
        throw std::invalid_argument("precision_config: unknown key '" + k +
                                    "' (default, sensitive_layers, "
                                    "optimizer_precision, target, "
                                    "precision_schedule)");
    }
    for (auto [key, value] : options) {
      std::string k = nb::cast<std::string>(key);
      if (k == "loss")
        o.loss = nb::cast<std::string>(value);
      else if (k == "optimizer")
        o.optimizer = nb::cast<std::string>(value);
      else if (k == "learning_rate")
        o.learningRate = nb::cast<double>(value);
      else if (k == "weight_decay")
        o.weightDecay = nb::cast<double>(value);
      else if (k == "momentum")
        o.momentum = nb::cast<double>(value);
      else if (k == "batch_size")
        o.batchSize = nb::cast<int64_t>(value);
      else if (k == "trainable")
        o.trainable = nb::cast<std::string>(value);
      else if (k == "loss_scale") {
        if (nb::isinstance<nb::str>(value)) {
          if (nb::cast<std::string>(value) != "dynamic")
            throw std::invalid_argument(
                "loss_scale is 'dynamic' or a number, not '" +
                nb::cast<std::string>(value) + "'");
          o.scaler.dynamic = true;
          o.scaler.initialScale = 65536;
          o.scaler.minScale = 1.0 / (1 << 24);
          o.scaler.maxScale = 16777216.0;
        } else {
          o.scaler = dsmp::LossScalerConfig::fixed(nb::cast<double>(value));
        }
      } else if (k == "scaler") {
        for (auto [sk, sv] : nb::cast<nb::dict>(value)) {
          std::string name = nb::cast<std::string>(sk);
          if (name == "init_scale")
            o.scaler.initialScale = nb::cast<double>(sv);
          else if (name == "growth_factor")
            o.scaler.growthFactor = nb::cast<double>(sv);
          else if (name == "backoff_factor")
            o.scaler.backoffFactor = nb::cast<double>(sv);
          else if (name == "growth_interval")
            o.scaler.growthInterval = nb::cast<int64_t>(sv);
          else if (name == "min_scale")
            o.scaler.minScale = nb::cast<double>(sv);
          else if (name == "max_scale")
            o.scaler.maxScale = nb::cast<double>(sv);
          else if (name == "hysteresis")
            o.scaler.hysteresis = nb::cast<int64_t>(sv);
          else
            throw std::invalid_argument("unknown loss scaler setting '" + name +
                                        "'");
        }
      } else if (k == "fault_injection")
        o.faultInjection = nb::cast<bool>(value);
      else if (k == "monitor_every")
        o.monitorEvery = nb::cast<int64_t>(value);
      else if (k == "monitor_log")
        o.monitorLog = nb::cast<std::string>(value);
      else if (k == "fallback_threshold")
        o.fallback.threshold = nb::cast<double>(value);
      else if (k == "fallback_window")
        o.fallback.window = nb::cast<int64_t>(value);
      else if (k == "fallback_probation")
        o.fallback.probation = nb::cast<int64_t>(value);
      else if (k == "profile")
        o.profile = nb::cast<bool>(value);
      else if (k == "fresh_init")
        o.freshInit = nb::cast<bool>(value);
      else if (k == "seed")
        o.seed = nb::cast<uint64_t>(value);
      else if (k == "work_dir")
        o.workDir = nb::cast<std::string>(value);
      else if (k == "verbose")
        o.verbose = nb::cast<bool>(value);
      else if (k == "shapes")
        o.shapes = nb::cast<std::map<std::string, std::vector<int64_t>>>(value);
      else
        throw std::invalid_argument("unknown trainer option '" + k + "'");
    }
    std::string error;
    trainer = dsmp::MixedPrecisionTrainer::create(model, c, o, error);
    if (!trainer)
      throw std::runtime_error(error);
  }

  nb::list train(const nb::list &inputs, nb::object labels, int epochs) {
    std::vector<nb::object> keep;
    dsmp::DataView data = view(inputs, labels, keep);
    std::vector<dsmp::EpochStats> history;
    std::string error;
    bool ok;
    {
      nb::gil_scoped_release release;
      ok = trainer->train(data, epochs, &history, error);
    }
    if (!ok)
      throw std::runtime_error(error);
    nb::list out;
    for (const dsmp::EpochStats &e : history) {
      nb::dict d;
      d["loss"] = e.loss;
      d["samples_per_second"] = e.samplesPerSecond;
      d["steps"] = e.steps;
      d["skipped"] = e.skipped;
      out.append(d);
    }
    return out;
  }

  nb::dict evaluate(const nb::list &inputs, nb::object labels) {
    std::vector<nb::object> keep;
    dsmp::DataView data = view(inputs, labels, keep);
    dsmp::Evaluation e;
    std::string error;
    if (!trainer->evaluate(data, e, error))
      throw std::runtime_error(error);
    nb::dict d;
    d["loss"] = e.loss;
    d["accuracy"] = e.accuracy;
    d["samples"] = e.samples;
    return d;
  }

  nb::object predict(const nb::list &inputs) {
    std::vector<nb::object> keep;
    dsmp::DataView data = view(inputs, nb::none(), keep);
    std::vector<float> out;
    std::string error;
    if (!trainer->predict(data, out, error))
      throw std::runtime_error(error);
    nb::module_ numpy = nb::module_::import_("numpy");
    nb::object array = numpy.attr("empty")(out.size(), "float32");
    auto v = nb::cast<nb::ndarray<nb::c_contig, nb::device::cpu>>(array);
    std::memcpy(v.data(), out.data(), out.size() * sizeof(float));
    int64_t per = trainer->session().outputSampleElements();
    return array.attr("reshape")(data.size, per);
  }

  void save(const std::string &path) {
    std::string error;
    if (!trainer->save(path, error))
      throw std::runtime_error(error);
  }
  void load(const std::string &path) {
    std::string error;
    if (!trainer->load(path, error))
      throw std::runtime_error(error);
  }
  void exportOnnx(const std::string &path) {
    std::string error;
    if (!trainer->exportOnnx(path, error))
      throw std::runtime_error(error);
  }
  std::vector<std::string> warnings() const { return trainer->warnings(); }
  double scale() const { return trainer->scaler().scale(); }
  nb::dict gradientStats() const {
    nb::dict out;
    for (const dsmp::GradientStats &g : trainer->loop().gradientStats()) {
      nb::dict d;
      d["amax"] = g.amax;
      d["zero_fraction"] = g.zeroFraction;
      d["inf"] = g.infCount;
      d["nan"] = g.nanCount;
      out[g.name.c_str()] = d;
    }
    return out;
  }
  int64_t skipped() const { return trainer->scaler().skippedSteps(); }
  nb::dict layerStats() const {
    nb::dict out;
    for (const dsmp::LayerStats &l : trainer->loop().layerStats()) {
      nb::dict d;
      d["format"] = l.fp32 ? "f32" : "16-bit";
      d["amax"] = l.amax;
      d["forward_nonfinite"] = l.forwardNonFinite;
      d["gradient_nonfinite"] = l.reverseNonFinite;
      d["underflow"] = l.underflow;
      out[l.name.c_str()] = d;
    }
    return out;
  }
  nb::list fallbackEvents() const {
    nb::list out;
    for (const dsmp::FallbackEvent &e : trainer->loop().fallbackEvents()) {
      nb::dict d;
      d["attempt"] = e.attempt;
      d["step"] = e.step;
      d["layer"] = e.layer;
      d["action"] = e.action;
      d["reason"] = e.reason;
      d["rate"] = e.rate;
      out.append(d);
    }
    return out;
  }
  nb::dict layerFormats() const {
    nb::dict out;
    const dsmp::FallbackPolicy &p = trainer->loop().fallback();
    for (size_t k = 0; k < p.layers().size(); ++k)
      out[p.layers()[k].c_str()] = p.selector()[k] != 0 ? "f32" : "16-bit";
    return out;
  }
  void restart(uint64_t seed) { trainer->restart(seed); }
  /// The train steps' profile as JSON (the Python side parses it).
  std::string profileJson() const {
    if (!trainer->loop().profiled())
      throw std::runtime_error("the trainer was not created with "
                               "profile=True (its steps are not timed)");
    return trainer->loop().profile().json();
  }
  void resetProfile() { trainer->resetProfile(); }
  void forceLayerOverflow(const std::string &layer, float factor) {
    std::string error;
    if (!trainer->forceLayerOverflow(layer, factor, error))
      throw std::invalid_argument(error);
  }
  void injectFault(int64_t attempt, const std::string &name, float value) {
    std::string error;
    if (!trainer->injectFault(attempt, name, value, error))
      throw std::invalid_argument(error);
  }
  int64_t step() { return trainer->session().step(); }
  int64_t batchSize() { return trainer->session().batch(); }
  nb::dict weights() {
    nb::module_ numpy = nb::module_::import_("numpy");
    nb::dict out;
    for (const auto &s : trainer->session().manifest().state) {
      if (s.role != "weight")
        continue;
      size_t count = 0;
      const float *w = trainer->session().weight(s.name, &count);
      nb::object array = numpy.attr("empty")(count, "float32");
      auto v = nb::cast<nb::ndarray<nb::c_contig, nb::device::cpu>>(array);
      std::memcpy(v.data(), w, count * sizeof(float));
      nb::list shape;
      for (int64_t d : s.dims)
        shape.append(d);
      out[s.name.c_str()] = array.attr("reshape")(nb::tuple(shape));
    }
    return out;
  }
  void setWeight(const std::string &name, nb::object value) {
    nb::module_ numpy = nb::module_::import_("numpy");
    nb::object array = numpy.attr("ascontiguousarray")(value, "float32");
    auto v =
        nb::cast<nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>>(array);
    std::string error;
    if (!trainer->session().setWeight(
            name, static_cast<const float *>(v.data()), v.size(), error))
      throw std::invalid_argument(error);
  }

private:
  /// Checks each array's samples against the compiled step's.
  dsmp::DataView view(const nb::list &inputs, nb::object labels,
                      std::vector<nb::object> &keep) {
    nb::module_ numpy = nb::module_::import_("numpy");
    dsmp::DataView data;
    dsmp::TrainingSession &s = trainer->session();
    auto contiguous = [&](nb::object array, int64_t sampleBytes,
                          const std::string &what) {
      nb::object a = numpy.attr("ascontiguousarray")(array);
      keep.push_back(a);
      auto v = nb::cast<nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>>(a);
      int64_t n = v.ndim() ? static_cast<int64_t>(v.shape(0)) : 0;
      if (data.size && n != data.size)
        throw std::invalid_argument(what + " has " + std::to_string(n) +
                                    " samples, the inputs " +
                                    std::to_string(data.size));
      if (n == 0 || static_cast<int64_t>(v.nbytes()) != n * sampleBytes)
        throw std::invalid_argument(
            what + ": expected " + std::to_string(sampleBytes) +
            " bytes per sample (the compiled step's shape and dtype), got " +
            std::to_string(n ? v.nbytes() / n : 0) + " (" +
            nb::str("{} of shape {}")
                .format(a.attr("dtype"), a.attr("shape"))
                .c_str() +
            ")");
      data.size = n;
      return v.data();
    };
    for (size_t i = 0; i < inputs.size(); ++i)
      data.inputs.push_back(contiguous(inputs[i], s.inputSampleBytes(i),
                                       "input " + std::to_string(i)));
    if (!labels.is_none())
      data.labels = contiguous(labels, s.labelSampleBytes(), "labels");
    return data;
  }
  std::unique_ptr<dsmp::MixedPrecisionTrainer> trainer;
};

/// Runs `compile` (a CompileAPI call given a cancel flag) on a worker
/// thread without the GIL while this thread polls Python's signal handlers
/// every 100 ms: Ctrl-C sets the flag, the compile stops after the step
/// under way, and KeyboardInterrupt is raised here. Returns the compile's
/// message ("" on success).
std::string runInterruptibly(
    const std::function<std::string(const std::atomic<bool> *)> &compile) {
  std::atomic<bool> cancel{false};
  std::string message;
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::thread worker([&] {
    std::string result = compile(&cancel);
    std::lock_guard<std::mutex> lock(mutex);
    message = std::move(result);
    done = true;
    finished.notify_all();
  });
  bool interrupted = false;
  for (;;) {
    {
      nb::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(mutex);
      if (finished.wait_for(lock, std::chrono::milliseconds(100),
                            [&] { return done; }))
        break;
    }
    if (PyErr_CheckSignals() != 0) { // KeyboardInterrupt is now set
      cancel = true;
      interrupted = true;
      break;
    }
  }
  {
    nb::gil_scoped_release release;
    worker.join();
  }
  if (interrupted)
    throw nb::python_error();
  return message;
}

} // namespace

NB_MODULE(_dsmp, m) {
  m.doc() = "dsmp native extension: the compiler driver and the runtime";
  m.attr("__version__") = dsmp_version();
  m.def(
      "compile_artifact",
      [](const std::string &model, const std::string &output,
         const std::string &target, const std::vector<dsmp::ShapeMap> &variants,
         const dsmp::ShapeMap &fixed, bool profile) {
        std::string error = runInterruptibly([&](const std::atomic<bool> *c) {
          return dsmp::compileModel(model, output, target, variants, fixed, c,
                                    profile);
        });
        if (!error.empty())
          throw std::runtime_error(error);
      },
      nb::arg("model"), nb::arg("output"), nb::arg("target") = "x86_64",
      nb::arg("variants") = std::vector<dsmp::ShapeMap>{},
      nb::arg("fixed") = dsmp::ShapeMap{}, nb::arg("profile") = false,
      "Compile a .onnx/.mlir model into an artifact folder.");
  nb::class_<dsmp::PrecisionOptions>(m, "PrecisionOptions")
      .def(nb::init<>())
      .def_rw("target", &dsmp::PrecisionOptions::target)
      .def_rw("features", &dsmp::PrecisionOptions::features)
      .def_rw("tolerance", &dsmp::PrecisionOptions::tolerance)
      .def_rw("metric", &dsmp::PrecisionOptions::metric)
      .def_rw("error_floor", &dsmp::PrecisionOptions::errorFloor)
      .def_rw("calibration", &dsmp::PrecisionOptions::calibration)
      .def_rw("default_format", &dsmp::PrecisionOptions::defaultFormat)
      .def_rw("deny_ops", &dsmp::PrecisionOptions::denyOps)
      .def_rw("allow_ops", &dsmp::PrecisionOptions::allowOps)
      .def_rw("sensitive_layers", &dsmp::PrecisionOptions::sensitiveLayers)
      .def_rw("margin", &dsmp::PrecisionOptions::margin)
      .def_rw("sensitivity_seeds", &dsmp::PrecisionOptions::sensitivitySeeds)
      .def_rw("validation", &dsmp::PrecisionOptions::validation)
      .def_rw("keep_top1", &dsmp::PrecisionOptions::keepTop1)
      .def_rw("max_retries", &dsmp::PrecisionOptions::maxRetries)
      .def_rw("bisection_runs", &dsmp::PrecisionOptions::bisectionRuns)
      .def_rw("fix_branch_inputs_by_data",
              &dsmp::PrecisionOptions::fixBranchInputsByData);
  m.def(
      "compile_with_precision",
      [](const std::string &model, const std::string &output,
         const std::vector<dsmp::ShapeMap> &variants,
         const dsmp::PrecisionOptions &options, const std::string &report,
         const dsmp::ShapeMap &fixed, bool profile) {
        std::string error = runInterruptibly([&](const std::atomic<bool> *c) {
          return dsmp::compileModelWithPrecision(model, output, variants,
                                                 options, report, fixed, c);
        });
        if (!error.empty())
          throw std::runtime_error(error);
      },
      nb::arg("model"), nb::arg("output"), nb::arg("variants"),
      nb::arg("options"), nb::arg("report") = "",
      nb::arg("fixed") = dsmp::ShapeMap{}, nb::arg("profile") = false,
      "Choose formats within a budget, then compile (dsmp-compile "
      "--tolerance).");
  m.def("read_manifest", &readManifest, nb::arg("artifact"),
        "An artifact's manifest: target, source and each variant's tensors.");
  nb::class_<Trainer>(m, "Trainer")
      .def(nb::init<const std::string &, const nb::dict &, const nb::dict &>(),
           nb::arg("model"), nb::arg("config"), nb::arg("options"))
      .def("train", &Trainer::train, nb::arg("inputs"), nb::arg("labels"),
           nb::arg("epochs"))
      .def("evaluate", &Trainer::evaluate, nb::arg("inputs"), nb::arg("labels"))
      .def("predict", &Trainer::predict, nb::arg("inputs"))
      .def("save", &Trainer::save, nb::arg("path"))
      .def("load", &Trainer::load, nb::arg("path"))
      .def("export_onnx", &Trainer::exportOnnx, nb::arg("path"))
      .def("weights", &Trainer::weights)
      .def("set_weight", &Trainer::setWeight, nb::arg("name"), nb::arg("value"))
      .def_prop_ro("warnings", &Trainer::warnings)
      .def_prop_ro("loss_scale", &Trainer::scale)
      .def("gradient_stats", &Trainer::gradientStats)
      .def_prop_ro("skipped_steps", &Trainer::skipped)
      .def("restart", &Trainer::restart, nb::arg("seed"))
      .def("layer_stats", &Trainer::layerStats)
      .def("fallback_events", &Trainer::fallbackEvents)
      .def("layer_formats", &Trainer::layerFormats)
      .def("profile_json", &Trainer::profileJson)
      .def("reset_profile", &Trainer::resetProfile)
      .def("force_layer_overflow", &Trainer::forceLayerOverflow,
           nb::arg("layer"), nb::arg("factor"))
      .def("inject_fault", &Trainer::injectFault, nb::arg("step"),
           nb::arg("weight"), nb::arg("value"))
      .def_prop_ro("step", &Trainer::step)
      .def_prop_ro("batch_size", &Trainer::batchSize);
  nb::class_<Model>(m, "Model")
      .def(nb::init<const std::string &>(), nb::arg("artifact"))
      .def_prop_ro("input_names", &Model::inputNames)
      .def_prop_ro("output_names", &Model::outputNames)
      .def_prop_ro("target", &Model::target)
      .def_prop_ro("profiled", &Model::profiled)
      .def("profile_json", &Model::profileJson)
      .def("reset_profile", &Model::resetProfile)
      .def("run", &Model::run, nb::arg("inputs"),
           "Run on {name: ndarray}; returns {name: ndarray}.");
}
