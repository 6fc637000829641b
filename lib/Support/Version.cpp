//===- Version.cpp - dsmp's version line --------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Support/CommandLine.h"
#include "lib/Support/BuildCommit.inc" // generated: DSMP_BUILD_COMMIT

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

std::string dsmp::versionLine() {
  return std::string("dsmp ") + DSMP_PROJECT_VERSION + " (commit " +
         DSMP_BUILD_COMMIT + ", LLVM " + LLVM_VERSION_STRING + ")";
}

void dsmp::installVersionPrinter() {
  llvm::cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << versionLine() << "\n"; });
}
