//===- RunArtifact.cpp - Run an artifact on .pb inputs, compare -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "runtime/tools/RunArtifact.h"

#include "dsmp/runtime/TensorFile.h"
#include "dsmp/runtime/dsmprt.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <vector>

namespace dsmp::runtime {

namespace {
bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string pbPath(const std::string &dir, const char *prefix, size_t k) {
  return dir + "/" + prefix + "_" + std::to_string(k) + ".pb";
}

std::string shapeText(const std::vector<int64_t> &dims) {
  std::string text;
  for (int64_t d : dims)
    text += (text.empty() ? "" : "x") + std::to_string(d);
  return text.empty() ? "scalar" : text;
}
} // namespace

int runArtifact(const RunOptions &options, const char *tool) {
  auto fail = [&](const std::string &message) {
    std::fprintf(stderr, "%s: error: %s\n", tool, message.c_str());
    return 1;
  };
  dsmp_model *model = nullptr;
  if (dsmp_model_load(options.artifactDir.c_str(), &model) != 0)
    return fail(dsmp_last_error());
  struct Free {
    dsmp_model *m;
    ~Free() { dsmp_model_free(m); }
  } freeModel{model};

  // The profile's file is opened before any run: a path that cannot be
  // written fails now, not after a long run; it is renamed into place once
  // complete.
  std::string profilePartial = options.profilePath + ".partial";
  FILE *profileFile = nullptr;
  if (!options.profilePath.empty()) {
    if (!dsmp_model_profiled(model))
      return fail("--profile: '" + options.artifactDir +
                  "' was not compiled with --profile (dsmp-compile --profile "
                  "times each op)");
    profileFile = std::fopen(profilePartial.c_str(), "w");
    if (!profileFile)
      return fail("--profile: cannot write '" + options.profilePath +
                  "': " + std::strerror(errno));
  }
  struct CloseProfile {
    FILE *&file;
    const std::string &partial;
    ~CloseProfile() {
      if (file) {
        std::fclose(file);
        std::remove(partial.c_str());
      }
    }
  } closeProfile{profileFile, profilePartial};

  std::vector<HostTensor> inputs;
  std::string error;
  if (!readInputFiles(options.inputsDir, inputs, error))
    return fail(error);
  for (const HostTensor &t : inputs)
    if (dsmp_bind_input(model, t.name.c_str(), static_cast<dsmp_dtype>(t.dtype),
                        t.dims.data(), t.dims.size(), t.data.data(),
                        t.data.size()) != 0)
      return fail(dsmp_last_error());

  std::vector<double> times;
  for (int r = 0; r < std::max(options.repeat, 1); ++r) {
    auto start = std::chrono::steady_clock::now();
    if (dsmp_run(model) != 0)
      return fail(dsmp_last_error());
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
    // The first of several runs warms caches and the buffer cache up.
    if (r == 0 && profileFile && options.repeat > 1)
      dsmp_profile_reset(model);
  }
  if (profileFile) {
    const char *json = dsmp_profile_json(model);
    bool written = json && std::fputs(json, profileFile) >= 0;
    written = std::fclose(profileFile) == 0 && written;
    profileFile = nullptr;
    if (!written ||
        std::rename(profilePartial.c_str(), options.profilePath.c_str()) != 0) {
      std::remove(profilePartial.c_str());
      return fail("--profile: cannot write '" + options.profilePath + "'");
    }
    std::fputs(dsmp_profile_text(model, 15), stdout);
  }
  if (options.repeat > 1) {
    std::sort(times.begin(), times.end());
    std::printf("median %.3f ms over %zu runs\n", times[times.size() / 2],
                times.size());
  }

  RunOptions judged = options;
  if (const char *metric = dsmp_model_error_metric(model);
      metric && !options.tolerancesGiven) {
    judged.budgetMetric = metric;
    judged.budget = dsmp_model_tolerance(model);
    judged.budgetOf = dsmp_model_formats_of(model);
    for (size_t i = 0; i < dsmp_num_outputs(model); ++i)
      judged.errorFloors.push_back(dsmp_model_error_floor(model, i));
  }
  size_t numOutputs = dsmp_num_outputs(model);
  std::vector<HostTensor> outputs(numOutputs);
  for (size_t i = 0; i < numOutputs; ++i) {
    HostTensor &t = outputs[i];
    t.name = dsmp_output_name(model, i);
    t.dtype = dsmp_output_dtype(model, i);
    const int64_t *dims = dsmp_output_dims(model, i);
    t.dims.assign(dims, dims + dsmp_output_rank(model, i));
    size_t bytes = dtypeSize(t.dtype);
    for (int64_t d : t.dims)
      bytes *= static_cast<size_t>(d);
    const unsigned char *data = static_cast<const unsigned char *>(
        dsmp_output_data(model, t.name.c_str()));
    t.data.assign(data, data + bytes);
  }
  return reportOutputs(judged, outputs, tool);
}

bool readInputFiles(const std::string &dir, std::vector<HostTensor> &inputs,
                    std::string &error) {
  for (size_t k = 0; exists(pbPath(dir, "input", k)); ++k) {
    HostTensor t;
    if (!readTensorFile(pbPath(dir, "input", k), t, error))
      return false;
    inputs.push_back(std::move(t));
  }
  return true;
}

int reportOutputs(const RunOptions &options,
                  const std::vector<HostTensor> &outputs, const char *tool) {
  auto fail = [&](const std::string &message) {
    std::fprintf(stderr, "%s: error: %s\n", tool, message.c_str());
    return 1;
  };
  std::string error;
  size_t numOutputs = outputs.size();
  // The folder for --save-outputs is made when missing (its parent is not).
  if (!options.saveDir.empty() && !exists(options.saveDir) &&
      mkdir(options.saveDir.c_str(), 0777) != 0)
    return fail("cannot create '" + options.saveDir +
                "': " + std::strerror(errno));
  if (!options.saveDir.empty())
    for (size_t i = 0; i < numOutputs; ++i)
      if (!writeTensorFile(pbPath(options.saveDir, "output", i), outputs[i],
                           error))
        return fail(error);

  std::vector<HostTensor> expected;
  if (options.compare) {
    for (size_t k = 0; exists(pbPath(options.inputsDir, "output", k)); ++k) {
      HostTensor t;
      if (!readTensorFile(pbPath(options.inputsDir, "output", k), t, error))
        return fail(error);
      expected.push_back(std::move(t));
    }
    if (expected.size() != numOutputs)
      return fail("the model has " + std::to_string(numOutputs) +
                  " outputs, '" + options.inputsDir + "' holds " +
                  std::to_string(expected.size()));
  }

  bool mismatch = false;
  for (size_t i = 0; i < numOutputs; ++i) {
    const HostTensor &t = outputs[i];
    size_t n = t.data.size() / std::max<size_t>(dtypeSize(t.dtype), 1);
    std::printf("%s: %s", t.name.c_str(), shapeText(t.dims).c_str());
    if (!options.compare) {
      std::printf(" [");
      for (size_t k = 0; k < std::min<size_t>(n, 8); ++k)
        std::printf("%s%g", k ? ", " : "", elementAsDouble(t, k));
      std::printf(n > 8 ? ", ...]\n" : "]\n");
      continue;
    }
    const HostTensor &ref = expected[i];
    if (ref.dims == t.dims && ref.dtype == 4 && t.dtype == 16) {
      // ONNX's test data before 1.14 stored bfloat16 outputs as uint16
      // (truncated, not rounded): nothing to compare with.
      std::printf(" is bfloat16, the reference uint16 (old ONNX test data): "
                  "not comparable\n");
      mismatch = true;
      continue;
    }
    if (ref.dims != t.dims || ref.dtype != t.dtype) {
      std::printf(" differs from the reference in shape or dtype "
                  "(reference %s, dtype %d) MISMATCH\n",
                  shapeText(ref.dims).c_str(), ref.dtype);
      mismatch = true;
      continue;
    }
    double maxAbs = 0, maxRef = 0, diffSquares = 0, refSquares = 0;
    bool nanMismatch = false;
    for (size_t k = 0; k < n; ++k) {
      double got = elementAsDouble(t, k), want = elementAsDouble(ref, k);
      if (std::isnan(got) != std::isnan(want)) {
        nanMismatch = true;
        continue;
      }
      if (std::isnan(want) || (std::isinf(want) && got == want))
        continue;
      maxAbs = std::max(maxAbs, std::fabs(got - want));
      maxRef = std::max(maxRef, std::fabs(want));
      diffSquares += (got - want) * (got - want);
      refSquares += want * want;
    }
    double rel = maxAbs / std::max(maxRef, 1e-30);
    bool ok = !nanMismatch && (rel <= options.rtol || maxAbs <= options.atol);
    std::string budget;
    if (!options.budgetMetric.empty()) {
      // The precision artifact's own promise: its metric within its budget.
      // rel-l2 against max(|y|, floor * sqrt(n)), as the compile measured.
      double floor =
          i < options.errorFloors.size() ? options.errorFloors[i] : 0;
      double error =
          options.budgetMetric == "max-abs"
              ? maxAbs
              : std::sqrt(diffSquares) /
                    std::max({std::sqrt(refSquares),
                              floor * std::sqrt(static_cast<double>(n)),
                              1e-30});
      ok = !nanMismatch && error <= options.budget;
      char text[160];
      std::snprintf(text, sizeof text, " %s %.3e (budget %g, %s formats)",
                    options.budgetMetric.c_str(), error, options.budget,
                    options.budgetOf.c_str());
      budget = text;
    }
    std::printf(" max abs %.3e rel %.3e%s%s %s\n", maxAbs, rel, budget.c_str(),
                nanMismatch ? " (NaN where the reference has none)" : "",
                ok ? "ok" : "MISMATCH");
    mismatch |= !ok;
  }
  return mismatch ? 1 : 0;
}

} // namespace dsmp::runtime
