//===- dsmprt-run.cpp - Run a compiled artifact (runtime only) --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   dsmprt-run ARTIFACT_DIR --inputs DIR [--compare] [--rtol R] [--atol A]
//              [--save-outputs DIR] [--repeat N]
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

int main(int argc, char **argv) {
  dsmp::runtime::RunOptions options;
  const char *usage =
      "usage: dsmprt-run ARTIFACT_DIR --inputs DIR [--compare] [--rtol R] "
      "[--atol A] [--save-outputs DIR] [--repeat N]\n"
      "       dsmprt-run --version\n";
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
    else if (arg == "--rtol")
      options.rtol = std::atof(value("--rtol"));
    else if (arg == "--atol")
      options.atol = std::atof(value("--atol"));
    else if (arg == "--save-outputs")
      options.saveDir = value("--save-outputs");
    else if (arg == "--repeat")
      options.repeat = std::atoi(value("--repeat"));
    else if (arg == "--version") {
      std::printf("dsmprt-run (dsmp runtime %s)\n", dsmp_version());
      return 0;
    } else if (arg == "-h" || arg == "--help") {
      std::fputs(usage, stdout);
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
