//===- Profiler.h - Per-op time, FLOPs and format of runs ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The profile of an artifact compiled with `dsmp-compile --profile`: model.so
// times each call its graph makes (ProfileTable.h), and this turns those
// counters into what ran, per op and per format:
//
//  - an op's time is the time of the calls that compute it; a call that
//    computes several ops (a fused elementwise chain, a GEMM and its bias)
//    is shared among them by FLOPs (equally when none has any);
//  - an op's FLOPs are its FLOPs per run (PrecisionOpInterface, at the
//    variant's shapes) times the runs that executed it: an op in a branch
//    not taken (a layer's FP32 variant before it falls back) counts none;
//  - its format is the one it computes in (the precision assignment's, else
//    its result's element type): on a CPU that lacks it the code emulates
//    it exactly, so the time is the emulation's;
//  - run time outside every timed call (buffer allocation, the entry
//    point's glue) is `seconds - timedSeconds`.
//
// The counters live in model.so: several dsmp_models of one artifact in
// one process share them, so a profile is exact for one model at a time.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_RUNTIME_PROFILER_H
#define DSMP_RUNTIME_PROFILER_H

#include "dsmp/runtime/ProfileTable.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dsmp {

struct OpProfile {
  std::string name, type, format;
  double seconds = 0;
  /// FLOPs executed (per run times the runs that executed it).
  double flops = 0;
  /// Runs that executed it.
  uint64_t runs = 0;
};

/// One timed call site of the generated code (an outlined loop nest, a
/// GEMM library call, a copy) and the ops it computes.
struct CallProfile {
  std::string entry, callee, kind; // kind: loop | gemm | copy | call
  uint64_t calls = 0;
  double seconds = 0;
  std::vector<std::string> ops; // "node (type, format)"
};

struct FormatProfile {
  std::string format;
  size_t ops = 0;
  double seconds = 0, flops = 0;
};

struct ProfileReport {
  /// The artifact folder(s) profiled.
  std::string artifact;
  /// Entry point calls (a batch split into slices makes several).
  uint64_t runs = 0;
  /// Wall time of those calls, and the part inside timed calls.
  double seconds = 0, timedSeconds = 0;
  /// Timed calls that compute no op (copies of results into outputs).
  double unattributedSeconds = 0;
  /// By time, largest first.
  std::vector<OpProfile> ops;
  /// The call sites that ran, by time, largest first.
  std::vector<CallProfile> calls;
  /// Training: steps attempted, skipped (inf/NaN gradients) and layer
  /// fallbacks; absent for inference.
  bool training = false;
  uint64_t steps = 0, skippedSteps = 0, fallbacks = 0;

  /// Adds `other`'s runs and ops (the same op in both: summed).
  void merge(const ProfileReport &other);
  /// Per format, by time, largest first.
  std::vector<FormatProfile> formats() const;
  /// Strict JSON: the summary, `formats` (with their time and FLOP shares),
  /// `ops` and `calls`.
  std::string json() const;
  /// The summary and the `topOps` slowest ops, as a table.
  std::string text(size_t topOps = 15) const;
};

/// The counters of one loaded artifact and what they mean.
class Profiler {
public:
  /// Binds `table` (checked against `manifest`'s variants and row counts)
  /// to the arrays `library` (a dlopen handle) exports. Null with `error`
  /// set when they do not match.
  static std::unique_ptr<Profiler> create(artifact::ProfileTable table,
                                          const artifact::Manifest &manifest,
                                          void *library, std::string &error);
  /// One call of variant `variant`'s entry point took `nanoseconds`.
  void recordRun(size_t variant, uint64_t nanoseconds);
  /// Starts a new profile: what ran so far is not reported.
  void reset();
  ProfileReport report(const std::string &artifact) const;

private:
  struct Counters {
    const int64_t *rows = nullptr; // {nanoseconds, calls} per row
    std::vector<int64_t> baseline;
    uint64_t runs = 0, nanoseconds = 0;
  };
  artifact::ProfileTable table_;
  std::vector<Counters> counters_; // per variant
};

} // namespace dsmp

#endif // DSMP_RUNTIME_PROFILER_H
