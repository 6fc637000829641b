//===- dsmprt-run.cpp - Run a compiled artifact (runtime only) --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   dsmprt-run ARTIFACT_DIR --inputs DIR [--compare] [--rtol R] [--atol A]
//              [--save-outputs DIR] [--repeat N] [--profile FILE.json]
//
// libdsmprt's own runner: no MLIR, no LLVM, no protobuf, so it is also
// cross-built for AArch64 and run under qemu-aarch64. dsmp-run uses the
// same code (RunArtifact.cpp) for artifact folders.
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/dsmprt.h"
#include "runtime/tools/RunArtifact.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

namespace {
const char *kUsage =
    "usage: dsmprt-run ARTIFACT_DIR --inputs DIR [--compare] [--rtol R] "
    "[--atol A] [--save-outputs DIR] [--repeat N] [--profile FILE.json]\n"
    "       dsmprt-run --version\n";

/// --help: every option with its default (RunOptions' own).
void printHelp() {
  dsmp::runtime::RunOptions defaults;
  std::printf(
      "%s\n"
      "Loads an artifact folder written by dsmp-compile, binds "
      "DIR/input_K.pb by name and runs it.\n\n"
      "  --inputs DIR         input_K.pb files (and output_K.pb for "
      "--compare)\n"
      "  --compare            check each output against DIR/output_K.pb "
      "(exit 1 on a mismatch)\n"
      "  --rtol R             passes when max abs error / max |reference| "
      "<= R (default %g)\n"
      "  --atol A             or when max abs error <= A (default %g)\n"
      "  --save-outputs DIR   write output_K.pb files there (made if missing)\n"
      "  --repeat N           run N times, report the median time "
      "(default %d)\n"
      "  --profile FILE       an artifact compiled with --profile: write "
      "per-op time, FLOPs and\n"
      "                       format and each format's share as JSON, "
      "print the table\n"
      "                       (with --repeat N, of the last N-1 runs)\n"
      "  --version            the runtime's version\n",
      kUsage, defaults.rtol, defaults.atol, defaults.repeat);
}

/// A number option's value, or an error naming the flag and the text.
template <typename T> T parseNumber(const char *flag, const char *text) {
  char *end = nullptr;
  double value = std::strtod(text, &end);
  bool integral = std::is_integral_v<T>;
  if (end == text || *end || value < 0 ||
      (integral && (value != static_cast<double>(static_cast<long>(value)) ||
                    value < 1 || value > 1e9))) {
    std::fprintf(stderr, "dsmprt-run: error: %s '%s' is not a %s\n", flag, text,
                 integral ? "positive whole number" : "number >= 0");
    std::exit(1);
  }
  return static_cast<T>(value);
}
} // namespace

int main(int argc, char **argv) {
  dsmp::runtime::RunOptions options;
  const char *usage = kUsage;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *flag) -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "dsmprt-run: error: %s needs a value\n", flag);
        std::exit(1);
      }
      return argv[++i];
    };
    if (arg == "--inputs")
      options.inputsDir = value("--inputs");
    else if (arg == "--compare")
      options.compare = true;
    else if (arg == "--rtol") {
      options.rtol = parseNumber<double>("--rtol", value("--rtol"));
      options.tolerancesGiven = true;
    } else if (arg == "--atol") {
      options.atol = parseNumber<double>("--atol", value("--atol"));
      options.tolerancesGiven = true;
    } else if (arg == "--save-outputs")
      options.saveDir = value("--save-outputs");
    else if (arg == "--profile")
      options.profilePath = value("--profile");
    else if (arg == "--repeat")
      options.repeat = parseNumber<int>("--repeat", value("--repeat"));
    else if (arg == "--version") {
      std::printf("dsmprt-run (dsmp runtime %s)\n", dsmp_version());
      return 0;
    } else if (arg == "-h" || arg == "--help") {
      printHelp();
      return 0;
    } else if (!arg.empty() && arg[0] != '-' && options.artifactDir.empty())
      options.artifactDir = arg;
    else {
      std::fprintf(stderr, "dsmprt-run: error: unknown argument '%s'\n%s",
                   arg.c_str(), usage);
      return 1;
    }
  }
  if (options.artifactDir.empty() || options.inputsDir.empty()) {
    std::fputs(usage, stderr);
    return 1;
  }
  return dsmp::runtime::runArtifact(options, "dsmprt-run");
}
