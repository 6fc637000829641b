//===- RunArtifact.h - Run an artifact on .pb inputs, compare ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_RUNTIME_TOOLS_RUNARTIFACT_H
#define DSMP_RUNTIME_TOOLS_RUNARTIFACT_H

#include "dsmp/runtime/TensorFile.h"

#include <string>
#include <vector>

namespace dsmp::runtime {

struct RunOptions {
  std::string artifactDir;
  std::string inputsDir; // input_K.pb (and output_K.pb for compare)
  bool compare = false;
  double rtol = 1e-5;
  double atol = 0;              // also passes when max abs error <= atol
  bool tolerancesGiven = false; // --rtol/--atol on the command line
  std::string saveDir;          // write output_K.pb here
  int repeat = 1;               // run this often, report the median time
  /// Write the profile (an artifact compiled with --profile) here as JSON
  /// and print its table; with repeat > 1 the first run is not profiled.
  std::string profilePath;
  /// A precision artifact's own budget (its manifest's metric and
  /// tolerance), which --compare judges by unless --rtol/--atol are given.
  std::string budgetMetric; // "", rel-l2 or max-abs
  double budget = 0;
  std::string budgetOf; // the target whose formats it is ("sm_80")
  /// Under rel-l2, each output's absolute floor (empty or 0: none).
  std::vector<double> errorFloors;
};

/// Loads the artifact, binds DIR/input_*.pb by name, runs, then prints each
/// output (or its max abs/rel error against DIR/output_*.pb, rel = max abs
/// error / max |reference|; an output passes when rel <= rtol or max abs
/// error <= atol; a precision artifact's output, when no --rtol/--atol is
/// given, when its error in the artifact's own metric is within its
/// tolerance). Returns the process exit status: 1 on any
/// error or mismatch. Messages are prefixed with `tool`.
int runArtifact(const RunOptions &options, const char *tool);

/// DIR/input_0.pb, input_1.pb, ... in order.
bool readInputFiles(const std::string &dir, std::vector<HostTensor> &inputs,
                    std::string &error);

/// The second half of runArtifact: saves, prints or compares `outputs`.
int reportOutputs(const RunOptions &options,
                  const std::vector<HostTensor> &outputs, const char *tool);

} // namespace dsmp::runtime

#endif // DSMP_RUNTIME_TOOLS_RUNARTIFACT_H
